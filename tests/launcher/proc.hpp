// Starting and watching processes from a one-process test: a job (gshmemrun, mpirun) or the PEs
// of a unique-id job started one by one. Output is captured through pipes; every wait has a
// deadline after which the process group is killed, so a hanging job fails the test instead of
// hanging it.
#pragma once

#include <dirent.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <vector>

extern char** environ;

namespace gshmem_test {

inline double now_s() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

struct Outcome {
  bool finished = false;  // false: the deadline passed and the process group was killed
  bool exited = false;
  int code = -1;   // exit status when exited
  int signal = 0;  // terminating signal otherwise
  double seconds = 0;
  std::string out, err;

  std::string describe() const {
    std::ostringstream s;
    if (!finished) s << "did not finish in time; ";
    if (exited) {
      s << "exit status " << code;
    } else {
      s << "killed by signal " << signal;
    }
    s << " after " << seconds << " s\n--- stdout ---\n" << out << "--- stderr ---\n" << err;
    return s.str();
  }
};

class Proc {
 public:
  // argv[0] is a path. env: "NAME=value" entries set on top of this process's environment, from
  // which every GSHMEM_* variable is removed first (the test decides what the job sees).
  Proc(const std::vector<std::string>& argv, const std::vector<std::string>& env = {}) {
    int out[2], err[2];
    if (::pipe2(out, O_CLOEXEC) != 0 || ::pipe2(err, O_CLOEXEC) != 0) std::abort();
    std::vector<std::string> envs;
    for (char** e = environ; *e; ++e) {
      if (std::strncmp(*e, "GSHMEM_", 7) != 0) envs.emplace_back(*e);
    }
    for (const auto& e : env) envs.push_back(e);
    std::vector<char*> cargv, cenv;
    for (const auto& a : argv) cargv.push_back(const_cast<char*>(a.c_str()));
    cargv.push_back(nullptr);
    for (const auto& e : envs) cenv.push_back(const_cast<char*>(e.c_str()));
    cenv.push_back(nullptr);
    start_ = now_s();
    pid_ = ::fork();
    if (pid_ == 0) {
      ::setpgid(0, 0);
      ::dup2(out[1], STDOUT_FILENO);
      ::dup2(err[1], STDERR_FILENO);
      ::execve(cargv[0], cargv.data(), cenv.data());
      std::fprintf(stderr, "cannot exec %s: %s\n", cargv[0], std::strerror(errno));
      ::_exit(126);
    }
    ::setpgid(pid_, pid_);
    ::close(out[1]);
    ::close(err[1]);
    out_fd_ = out[0];
    err_fd_ = err[0];
  }
  ~Proc() {
    if (!reaped_) {
      ::kill(-pid_, SIGKILL);
      ::kill(pid_, SIGKILL);
      int ws;
      ::waitpid(pid_, &ws, 0);
    }
    if (out_fd_ >= 0) ::close(out_fd_);
    if (err_fd_ >= 0) ::close(err_fd_);
  }
  Proc(const Proc&) = delete;
  Proc& operator=(const Proc&) = delete;

  pid_t pid() const { return pid_; }

  // Reads stdout until a line containing `text` has arrived (true) or the deadline passes.
  bool wait_for_output(const std::string& text, double timeout_s) {
    double end = now_s() + timeout_s;
    while (out_.find(text) == std::string::npos) {
      if (now_s() > end || (out_fd_ < 0 && err_fd_ < 0)) return false;
      pump(end);
    }
    return true;
  }

  // The rest of the first stdout line that contains `prefix` ("" when none arrived in time).
  std::string line_after(const std::string& prefix, double timeout_s) {
    double end = now_s() + timeout_s;
    for (;;) {
      size_t at = out_.find(prefix);
      size_t nl = at == std::string::npos ? at : out_.find('\n', at);
      if (nl != std::string::npos) return out_.substr(at + prefix.size(), nl - at - prefix.size());
      if (now_s() > end || (out_fd_ < 0 && err_fd_ < 0)) return "";
      pump(end);
    }
  }

  // Waits for the exit and the end of the output; kills the process group at the deadline.
  Outcome wait(double timeout_s) {
    Outcome o;
    double end = now_s() + timeout_s;
    int ws = 0;
    for (;;) {
      if (!reaped_ && ::waitpid(pid_, &ws, WNOHANG) == pid_) {
        reaped_ = true;
        end_ = now_s();
      }
      if (reaped_ && out_fd_ < 0 && err_fd_ < 0) break;
      if (now_s() > end) {
        ::kill(-pid_, SIGKILL);
        ::kill(pid_, SIGKILL);
        if (!reaped_) {
          ::waitpid(pid_, &ws, 0);
          reaped_ = true;
          end_ = now_s();
        }
        drain_nonblocking();
        o.finished = false;
        fill(o, ws);
        return o;
      }
      pump(std::min(end, now_s() + 0.05));
    }
    o.finished = true;
    fill(o, ws);
    return o;
  }

 private:
  void fill(Outcome& o, int ws) {
    o.exited = WIFEXITED(ws);
    o.code = o.exited ? WEXITSTATUS(ws) : -1;
    o.signal = WIFSIGNALED(ws) ? WTERMSIG(ws) : 0;
    o.seconds = end_ - start_;
    o.out = out_;
    o.err = err_;
  }

  // One poll over the open pipes, up to the deadline; appends what arrives.
  void pump(double until) {
    pollfd fds[2];
    int n = 0;
    if (out_fd_ >= 0) fds[n++] = {out_fd_, POLLIN, 0};
    if (err_fd_ >= 0) fds[n++] = {err_fd_, POLLIN, 0};
    int ms = int(std::max(0.0, until - now_s()) * 1000) + 1;
    if (n == 0) {
      ::usleep(useconds_t(std::min(ms, 50)) * 1000);
      return;
    }
    if (::poll(fds, nfds_t(n), std::min(ms, 50)) <= 0) return;
    for (int i = 0; i < n; ++i) {
      if (fds[i].revents) read_from(fds[i].fd);
    }
  }

  void read_from(int fd) {
    char buf[4096];
    ssize_t k = ::read(fd, buf, sizeof buf);
    std::string& dst = fd == out_fd_ ? out_ : err_;
    if (k > 0) {
      dst.append(buf, size_t(k));
      return;
    }
    if (k < 0 && errno == EINTR) return;
    ::close(fd);
    (fd == out_fd_ ? out_fd_ : err_fd_) = -1;
  }

  void drain_nonblocking() {
    for (int* fd : {&out_fd_, &err_fd_}) {
      if (*fd < 0) continue;
      ::fcntl(*fd, F_SETFL, O_NONBLOCK);
      char buf[4096];
      ssize_t k;
      while ((k = ::read(*fd, buf, sizeof buf)) > 0) {
        (fd == &out_fd_ ? out_ : err_).append(buf, size_t(k));
      }
    }
  }

  pid_t pid_ = -1;
  int out_fd_ = -1, err_fd_ = -1;
  bool reaped_ = false;
  double start_ = 0, end_ = 0;
  std::string out_, err_;
};

inline Outcome run(const std::vector<std::string>& argv, const std::vector<std::string>& env,
                   double timeout_s) {
  Proc p(argv, env);
  return p.wait(timeout_s);
}

// A text no other process has on its command line, to find the job's processes by.
inline std::string unique_marker(const char* what) {
  return std::string("gshmem-test-") + what + "-" + std::to_string(getpid()) + "-" +
         std::to_string(uint64_t(now_s() * 1e6));
}

// Pids whose command line contains `marker` (this process excluded).
inline std::vector<int> pids_with(const std::string& marker) {
  std::vector<int> pids;
  DIR* d = ::opendir("/proc");
  if (!d) return pids;
  while (dirent* e = ::readdir(d)) {
    int pid = std::atoi(e->d_name);
    if (pid <= 0 || pid == getpid()) continue;
    std::ifstream f(std::string("/proc/") + e->d_name + "/cmdline", std::ios::binary);
    std::string cmd((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
    if (cmd.find(marker) != std::string::npos) pids.push_back(pid);
  }
  ::closedir(d);
  return pids;
}

inline std::set<std::string> list_dir(const std::string& dir) {
  std::set<std::string> names;
  if (DIR* d = ::opendir(dir.c_str())) {
    while (dirent* e = ::readdir(d)) {
      std::string name = e->d_name;
      if (name != "." && name != "..") names.insert(name);
    }
    ::closedir(d);
  }
  return names;
}

// A TCP port on 127.0.0.1 that was free a moment ago.
inline int free_port() {
  int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  a.sin_port = 0;
  socklen_t len = sizeof a;
  int port = -1;
  if (::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0 &&
      ::getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len) == 0) {
    port = ntohs(a.sin_port);
  }
  ::close(fd);
  return port;
}

inline bool contains(const std::string& haystack, const std::string& needle) {
  return haystack.find(needle) != std::string::npos;
}

inline int count(const std::string& haystack, const std::string& needle) {
  int c = 0;
  for (size_t at = haystack.find(needle); at != std::string::npos;
       at = haystack.find(needle, at + 1)) {
    ++c;
  }
  return c;
}

}  // namespace gshmem_test
