#include "host/tools/job.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstring>

#include "host/base/env.hpp"

namespace gshmem::launcher {

namespace {

// How long a PE's error report waits for a death that may have caused it (see Job::report_).
constexpr double kReportGrace = 0.25;

double now_s() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

std::string describe_status(int wstatus) {
  if (WIFSIGNALED(wstatus)) {
    int sig = WTERMSIG(wstatus);
    return "was killed by signal " + std::to_string(sig) + " (" + strsignal(sig) + ")";
  }
  return "exited with status " + std::to_string(WEXITSTATUS(wstatus));
}

int shell_status(int wstatus) {
  return WIFSIGNALED(wstatus) ? 128 + WTERMSIG(wstatus) : WEXITSTATUS(wstatus);
}

const int kSignals[] = {SIGCHLD, SIGINT, SIGTERM, SIGHUP, SIGQUIT};

}  // namespace

Job::Job(Options options) : opt_(std::move(options)), pes_(size_t(opt_.npes)) {}

Job::~Job() {
  for (auto& pe : pes_) {
    if (pe.running) ::kill(-pe.pid, SIGKILL);
  }
  if (!addr_.empty()) ::unlink(addr_.c_str());
  if (!dir_.empty()) ::rmdir(dir_.c_str());
}

void Job::spawn(int r) {
  Pe& pe = pes_[size_t(r)];
  int out[2] = {-1, -1}, err[2] = {-1, -1};
  if (opt_.tag_output && (::pipe2(out, O_CLOEXEC) != 0 || ::pipe2(err, O_CLOEXEC) != 0)) {
    std::perror("gshmemrun: pipe");
    std::exit(1);
  }
  pid_t parent = ::getpid();
  pid_t pid = ::fork();
  if (pid < 0) {
    std::perror("gshmemrun: fork");
    fail(1, "could not start PE " + std::to_string(r));
    return;
  }
  if (pid == 0) {
    ::setpgid(0, 0);
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (::getppid() != parent) ::_exit(1);
    sigset_t none;
    sigemptyset(&none);
    ::sigprocmask(SIG_SETMASK, &none, nullptr);
    ::signal(SIGPIPE, SIG_DFL);
    if (opt_.tag_output) {
      ::dup2(out[1], STDOUT_FILENO);
      ::dup2(err[1], STDERR_FILENO);
    }
    if (r != 0) {
      int devnull = ::open("/dev/null", O_RDONLY);
      if (devnull >= 0) ::dup2(devnull, STDIN_FILENO);
    }
    ::setenv("GSHMEM_LAUNCHER_ADDR", addr_.c_str(), 1);
    ::setenv("GSHMEM_LAUNCHER_SECRET", secret_.c_str(), 1);
    ::setenv("GSHMEM_LAUNCHER_PE", std::to_string(r).c_str(), 1);
    ::setenv("GSHMEM_LAUNCHER_NPES", std::to_string(opt_.npes).c_str(), 1);
    if (opt_.ppn > 0) {
      std::string node = job_id_ + "-vnode" + std::to_string(r / opt_.ppn);
      ::setenv("GSHMEM_NODE_ID", node.c_str(), 1);
    }
    std::vector<char*> args;
    for (auto& a : opt_.argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    ::execvp(args[0], args.data());
    std::fprintf(stderr, "gshmemrun: PE %d: cannot run '%s': %s\n", r, args[0], strerror(errno));
    ::_exit(127);
  }
  ::setpgid(pid, pid);  // also from here, so no signal can race the child's own call
  pe.pid = pid;
  pe.running = true;
  if (opt_.tag_output) {
    ::close(out[1]);
    ::close(err[1]);
    pe.out.reset(out[0]);
    pe.err.reset(err[0]);
  }
}

void Job::emit(int r, bool err, const std::string& line) {
  std::string tagged = "[PE " + std::to_string(r) + "] " + line + "\n";
  sock::write_all(err ? STDERR_FILENO : STDOUT_FILENO, tagged.data(), tagged.size());
}

void Job::drain(int r, bool err) {
  Pe& pe = pes_[size_t(r)];
  sock::Fd& fd = err ? pe.err : pe.out;
  std::string& buf = err ? pe.err_line : pe.out_line;
  char chunk[4096];
  ssize_t n = ::read(fd.get(), chunk, sizeof chunk);
  if (n <= 0) {
    if (n < 0 && errno == EINTR) return;
    if (!buf.empty()) emit(r, err, buf);
    buf.clear();
    fd.reset();
    return;
  }
  buf.append(chunk, size_t(n));
  size_t nl;
  while ((nl = buf.find('\n')) != std::string::npos) {
    emit(r, err, buf.substr(0, nl));
    buf.erase(0, nl + 1);
  }
}

void Job::fail(int status, const std::string& why) {
  if (ending_) return;
  ending_ = true;
  ending_since_ = now_s();
  if (job_status_ < 0) job_status_ = status;
  std::fprintf(stderr, "gshmemrun: %s; ending the job\n", why.c_str());
  // A stopped PE cannot hear that the job ends, and SIGTERM waits for it to be continued: it
  // goes at once (what its peers reported is most likely because of it).
  for (int r = 0; r < opt_.npes; ++r) {
    Pe& pe = pes_[size_t(r)];
    if (!pe.running || !pe.stop_signal) continue;
    std::fprintf(
        stderr, "gshmemrun: PE %d (pid %d) is stopped (signal %d, %s) since %.1f s; killing it\n",
        r, int(pe.pid), pe.stop_signal, strsignal(pe.stop_signal), now_s() - pe.stopped_since);
    ::kill(-pe.pid, SIGKILL);
  }
  std::fflush(stderr);
  if (server_) server_->broadcast_failure(status, why);
}

void Job::check_stopped(double now) {
  if (ending_ || pe_timeout_s_ <= 0) return;
  for (int r = 0; r < opt_.npes; ++r) {
    const Pe& pe = pes_[size_t(r)];
    if (pe.running && pe.stop_signal && now - pe.stopped_since > pe_timeout_s_) {
      char why[200];
      std::snprintf(why, sizeof why,
                    "PE %d (pid %d) has been stopped (signal %d, %s) for %.1f s (GSHMEM_TIMEOUT)",
                    r, int(pe.pid), pe.stop_signal, strsignal(pe.stop_signal),
                    now - pe.stopped_since);
      fail(1, why);
      return;
    }
  }
}

void Job::report_failure() {
  if (job_status_ < 0) job_status_ = report_.code;
  fail(report_.code, report_.why);
}

void Job::escalate(double now) {
  if (!ending_) return;
  int want = now - ending_since_ > opt_.grace_s + 2 ? 2
             : now - ending_since_ > opt_.grace_s   ? 1
                                                    : 0;
  if (want <= kill_stage_) return;
  kill_stage_ = want;
  for (auto& pe : pes_) {
    if (pe.running) ::kill(-pe.pid, want == 1 ? SIGTERM : SIGKILL);
  }
}

void Job::on_exit(int r, int wstatus) {
  Pe& pe = pes_[size_t(r)];
  pe.running = false;
  pe.status = wstatus;
  if (ending_) return;
  server_->drain(r);
  bool connected = server_->ever_connected(r);
  bool finalized = server_->said_bye(r);
  std::string who = "PE " + std::to_string(r) + " (pid " + std::to_string(pe.pid) + ")";
  if (report_.rank == r) {  // it said why before it went
    report_failure();
  } else if (WIFSIGNALED(wstatus)) {
    fail(shell_status(wstatus), who + " " + describe_status(wstatus));
  } else if (WEXITSTATUS(wstatus) != 0 && !finalized) {
    fail(shell_status(wstatus),
         who + " " + describe_status(wstatus) +
             (connected ? " before gshmem_finalize" : " before connecting (gshmem_init)"));
  } else if (WEXITSTATUS(wstatus) == 0 && connected && !finalized) {
    fail(1, who + " exited without calling gshmem_finalize while the job was running");
  }
}

void Job::reap() {
  for (;;) {
    int ws = 0;
    pid_t pid = ::waitpid(-1, &ws, WNOHANG | WUNTRACED | WCONTINUED);
    if (pid <= 0) return;
    for (int r = 0; r < opt_.npes; ++r) {
      Pe& pe = pes_[size_t(r)];
      if (pe.pid != pid || !pe.running) continue;
      if (WIFSTOPPED(ws)) {
        // Not an end: it may be continued. Its peers wait for it, bounded by GSHMEM_TIMEOUT.
        if (!pe.stop_signal) pe.stopped_since = now_s();
        pe.stop_signal = WSTOPSIG(ws);
      } else if (WIFCONTINUED(ws)) {
        pe.stop_signal = 0;
      } else {
        on_exit(r, ws);
      }
    }
  }
}

int Job::exit_status() const {
  if (job_status_ >= 0) return job_status_;
  int worst = 0;
  for (const auto& pe : pes_) worst = std::max(worst, shell_status(pe.status));
  return worst;
}

int Job::run() {
  start_ = now_s();
  pe_timeout_s_ = Env::get().seconds("GSHMEM_TIMEOUT");
  secret_ = sock::random_hex(16);
  job_id_ = "gshmemrun-" + std::to_string(::getpid()) + "-" + sock::random_hex(6);
  // The socket lives in a directory only this user can enter: other users cannot even connect,
  // and the server checks each peer's user and the job secret besides. Its name carries this
  // process's pid, so that what is left of a job can be told from other jobs' directories.
  dir_ = sock::private_dir("gshmemrun-" + std::to_string(::getpid()));
  if (dir_.empty()) {
    std::fprintf(stderr, "gshmemrun: cannot create a private directory for the job socket: %s\n",
                 strerror(errno));
    return 1;
  }
  addr_ = dir_ + "/job.sock";
  listener_ = sock::listen_unix(addr_, opt_.npes + 16);
  if (!listener_) {
    std::fprintf(stderr, "gshmemrun: cannot open the job socket %s: %s\n", addr_.c_str(),
                 strerror(errno));
    return 1;
  }
  sigset_t mask;
  sigemptyset(&mask);
  for (int s : kSignals) sigaddset(&mask, s);
  ::sigprocmask(SIG_BLOCK, &mask, nullptr);
  ::signal(SIGPIPE, SIG_IGN);
  signals_.reset(::signalfd(-1, &mask, SFD_CLOEXEC | SFD_NONBLOCK));

  server_ = std::make_unique<star::Server>(
      opt_.npes, secret_,
      star::Server::Hooks{
          [this](int rank, int code, const std::string& why) {
            if (report_.rank < 0 && !ending_) report_ = {rank, code, why, now_s()};
          },
          [](int, bool) {},  // deaths are reported from waitpid, which knows how the PE ended
          [this](const std::string& why) { fail(1, why); }},
      Env::get().seconds("GSHMEM_BOOTSTRAP_HELLO_TIMEOUT"));

  for (int r = 0; r < opt_.npes && !ending_; ++r) spawn(r);

  std::vector<pollfd> fds;
  for (;;) {
    bool any_running = false, any_output = false;
    for (auto& pe : pes_) {
      any_running = any_running || pe.running;
      any_output = any_output || pe.out || pe.err;
    }
    if (!any_running && !any_output) break;

    fds.clear();
    fds.push_back({signals_.get(), POLLIN, 0});
    fds.push_back({listener_.get(), POLLIN, 0});
    size_t first_pipe = fds.size();
    for (auto& pe : pes_) {
      if (pe.out) fds.push_back({pe.out.get(), POLLIN, 0});
      if (pe.err) fds.push_back({pe.err.get(), POLLIN, 0});
    }
    size_t first_client = fds.size();
    server_->collect_pollfds(&fds);
    ::poll(fds.data(), fds.size(), report_.rank >= 0 && !ending_ ? 50 : 200);

    // Deaths, then messages. A PE's death (its sockets closed) is the cause of the transport
    // errors its peers report a moment later, so it is what the job ends with when both are
    // here; on_exit handles the dead PE's own messages (an abort it sent) before its status.
    reap();
    for (size_t i = first_client; i < fds.size(); ++i) {
      if (fds[i].revents) server_->handle(fds[i].fd);
    }
    if (fds[1].revents & POLLIN) {
      sock::Fd conn(::accept4(listener_.get(), nullptr, nullptr, SOCK_CLOEXEC));
      if (conn) server_->add_connection(std::move(conn));
    }
    for (size_t i = first_pipe; i < first_client; ++i) {
      if (!fds[i].revents) continue;
      for (int r = 0; r < opt_.npes; ++r) {
        Pe& pe = pes_[size_t(r)];
        if (pe.out.get() == fds[i].fd)
          drain(r, false);
        else if (pe.err.get() == fds[i].fd)
          drain(r, true);
      }
    }
    if (fds[0].revents & POLLIN) {
      signalfd_siginfo si;
      while (::read(signals_.get(), &si, sizeof si) == ssize_t(sizeof si)) {
        if (si.ssi_signo != SIGCHLD) {
          fail(128 + int(si.ssi_signo),
               std::string("gshmemrun received ") + strsignal(int(si.ssi_signo)));
        }
      }
    }
    reap();

    double now = now_s();
    if (report_.rank >= 0 && !ending_ && now - report_.since >= kReportGrace) report_failure();
    if (opt_.timeout_s > 0 && !ending_ && now - start_ > opt_.timeout_s) {
      std::string running;
      for (int r = 0; r < opt_.npes; ++r) {
        if (pes_[size_t(r)].running) running += " " + std::to_string(r);
      }
      fail(124, "the job timed out after " + std::to_string(int(opt_.timeout_s)) +
                    " s (--timeout); PEs still running:" + running);
    }
    if (!ending_ && now - last_straggler_report_ > 30) {
      std::string report = server_->straggler_report(10);
      if (!report.empty()) {
        std::fprintf(stderr, "gshmemrun: warning: %s\n", report.c_str());
        last_straggler_report_ = now;
      }
    }
    server_->expire_hellos();
    check_stopped(now);
    escalate(now);
  }
  return exit_status();
}

}  // namespace gshmem::launcher
