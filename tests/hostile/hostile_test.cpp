// Hostile clients against running jobs. Each test starts a real job (gshmemrun, or unique-id ranks
// started one by one) whose PEs keep doing checked work, attacks what the job listens on from this
// process (garbage, a partial hello, a huge length field, a silent connection, a wrong secret, a
// connection from another user, forged fabric messages), watches every attack end in a closed
// connection within a bounded time, and then shows the job finishing with the right results.
#include <arpa/inet.h>
#include <dirent.h>
#include <grp.h>
#include <netinet/in.h>
#include <rdma/fabric.h>
#include <rdma/fi_cm.h>
#include <rdma/fi_domain.h>
#include <rdma/fi_endpoint.h>
#include <rdma/fi_errno.h>
#include <sys/socket.h>
#include <sys/ptrace.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <fcntl.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <cstddef>
#include <cstring>
#include <fstream>
#include <functional>
#include <map>
#include <set>
#include <sstream>
#include <memory>

#include "host/bootstrap/node_mesh.hpp"
#include "host/bootstrap/star.hpp"
#include "tests/launcher/proc.hpp"
#include "transports/proxy/amo_message.hpp"

using namespace gshmem_test;
using gshmem::star::Header;

namespace {

const std::string kPe = HOSTILE_PE;
constexpr uint32_t kStarMagic = 0x67736831;  // star.cpp's "gsh1"
constexpr uid_t kNobody = 65534;

// ---- Wire-level clients ---------------------------------------------------------------------

int connect_path(const std::string& path) {
  int fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_un a{};
  a.sun_family = AF_UNIX;
  std::strncpy(a.sun_path, path.c_str(), sizeof a.sun_path - 1);
  if (::connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0) {
    ::close(fd);
    return -1;
  }
  return fd;
}

int connect_tcp(const std::string& ip, int port) {
  int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(uint16_t(port));
  ::inet_pton(AF_INET, ip.c_str(), &a.sin_addr);
  if (::connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0) {
    ::close(fd);
    return -1;
  }
  return fd;
}

std::string hello(int rank, const std::string& secret, uint64_t len_override = 0) {
  Header h{};
  h.magic = kStarMagic;
  h.type = uint16_t(gshmem::star::Type::Hello);
  h.rank = rank;
  h.len = len_override ? len_override : secret.size();
  return std::string(reinterpret_cast<const char*>(&h), sizeof h) + secret;
}

// Seconds until the server closes `fd` (reads return 0 or fail), discarding what it sends; -1
// when it is still open after `limit` s. `answered` tells whether the server sent anything.
double seconds_until_closed(int fd, double limit, bool* answered = nullptr) {
  double start = now_s();
  if (answered) *answered = false;
  for (;;) {
    double left = limit - (now_s() - start);
    if (left <= 0) return -1;
    pollfd p{fd, POLLIN, 0};
    if (::poll(&p, 1, int(left * 1000) + 1) <= 0) continue;
    char buf[256];
    ssize_t n = ::read(fd, buf, sizeof buf);
    if (n > 0) {
      if (answered) *answered = true;
      continue;
    }
    return now_s() - start;
  }
}

struct Attack {
  const char* name;
  std::string bytes;  // sent right after connecting; then the connection is held open
};

// Runs every attack at once (they are held open together, as an attacker would) and expects
// each connection closed, unanswered, within `limit` seconds.
void attack_all(const std::function<int()>& connect, const std::vector<Attack>& attacks,
                double limit) {
  std::vector<int> fds;
  for (const Attack& a : attacks) {
    int fd = connect();
    ASSERT_GE(fd, 0) << a.name << ": cannot connect: " << std::strerror(errno);
    if (!a.bytes.empty()) {
      ASSERT_EQ(::send(fd, a.bytes.data(), a.bytes.size(), MSG_NOSIGNAL), ssize_t(a.bytes.size()))
          << a.name;
    }
    fds.push_back(fd);
  }
  for (size_t i = 0; i < fds.size(); ++i) {
    bool answered = false;
    double t = seconds_until_closed(fds[i], limit, &answered);
    EXPECT_GE(t, 0) << attacks[i].name << ": still open after " << limit << " s";
    EXPECT_FALSE(answered) << attacks[i].name << ": the server answered (welcomed?) it";
    ::close(fds[i]);
  }
}

std::vector<Attack> star_attacks(const std::string& wrong_secret) {
  std::string garbage(200, '\0');
  for (size_t i = 0; i < garbage.size(); ++i) garbage[i] = char(i * 37 + 11);
  return {{"garbage", garbage},
          {"huge length field", hello(0, "", uint64_t(1) << 40)},
          {"partial hello", hello(0, std::string(32, 'a')).substr(0, 20)},
          {"hello cut short in its payload", hello(0, std::string(32, 'a')).substr(0, 40)},
          {"silent connection", ""},
          {"wrong secret", hello(1, wrong_secret)},
          {"rank out of range", hello(1 << 20, wrong_secret)}};
}

// Runs `body` in a child that has become user nobody; returns its exit status.
int as_nobody(const std::function<int()>& body) {
  pid_t pid = ::fork();
  if (pid == 0) {
    if (::setgroups(0, nullptr) != 0 || ::setgid(kNobody) != 0 || ::setuid(kNobody) != 0) {
      ::_exit(99);
    }
    ::_exit(body());
  }
  int ws = 0;
  ::waitpid(pid, &ws, 0);
  return WIFEXITED(ws) ? WEXITSTATUS(ws) : 100;
}

// ---- The job --------------------------------------------------------------------------------

struct Job {
  std::string stop =
      "/tmp/gshmem-hostile-stop-" + std::to_string(::getpid()) + "-" + std::to_string(now_s());
  std::map<int, int> pids;  // PE -> pid

  std::vector<std::string> env(std::vector<std::string> extra) const {
    extra.push_back("HOSTILE_STOP=" + stop);
    extra.push_back("GSHMEM_BOOTSTRAP_HELLO_TIMEOUT=1");
    extra.push_back("GSHMEM_TIMEOUT=60");
    return extra;
  }
  void read_pids(Proc& p, int n) {
    for (int pe = 0; pe < n; ++pe) {
      std::string rest = p.line_after("pe-pid pe=" + std::to_string(pe) + " pid=", 30);
      pids[pe] = std::atoi(rest.c_str());
    }
  }
  void finish() { std::ofstream(stop) << "stop\n"; }
  ~Job() { ::unlink(stop.c_str()); }
};

void expect_finished_ok(const Outcome& o, int n) {
  EXPECT_TRUE(o.finished && o.exited && o.code == 0) << o.describe();
  for (int pe = 0; pe < n; ++pe) {
    EXPECT_TRUE(contains(o.out, "hostile-ok pe=" + std::to_string(pe) + " rounds="))
        << o.describe();
  }
}

// The inodes of the sockets process `pid` holds, from /proc/PID/fd.
std::set<std::string> socket_inodes(int pid) {
  std::set<std::string> inodes;
  std::string fd_dir = "/proc/" + std::to_string(pid) + "/fd";
  if (DIR* d = ::opendir(fd_dir.c_str())) {
    while (dirent* e = ::readdir(d)) {
      char target[128] = {};
      std::string link = fd_dir + "/" + e->d_name;
      if (::readlink(link.c_str(), target, sizeof target - 1) > 8 &&
          std::strncmp(target, "socket:[", 8) == 0) {
        inodes.insert(std::string(target + 8, std::strlen(target) - 9));
      }
    }
    ::closedir(d);
  }
  return inodes;
}

// The IPv4 addresses process `pid` listens on, from its socket inodes and /proc/net/tcp: what
// any local user can find out.
std::vector<std::pair<std::string, int>> listening_ports(int pid) {
  const std::set<std::string> inodes = socket_inodes(pid);
  std::vector<std::pair<std::string, int>> out;
  std::ifstream tcp("/proc/" + std::to_string(pid) + "/net/tcp");
  std::string line;
  std::getline(tcp, line);
  while (std::getline(tcp, line)) {
    std::istringstream f(line);
    std::string sl, local, remote, state, queues, timer, retr, uid, timeout, inode;
    f >> sl >> local >> remote >> state >> queues >> timer >> retr >> uid >> timeout >> inode;
    if (state != "0A" || !inodes.count(inode)) continue;
    unsigned ip = 0, port = 0;
    std::sscanf(local.c_str(), "%X:%X", &ip, &port);
    in_addr a{};
    a.s_addr = ip;  // /proc prints the address in host order of the raw 32 bits
    out.emplace_back(inet_ntoa(a), int(port));
  }
  return out;
}

// A libfabric endpoint that is not in the job: sends `messages` to the endpoint at ip:port and
// returns how many sends completed (a provider may refuse some; none may harm the job).
int fabric_send_from_outside(const std::string& ip, int port,
                             const std::vector<std::string>& messages, std::string* why) {
  fi_info* hints = fi_allocinfo();
  hints->ep_attr->type = FI_EP_RDM;
  hints->caps = FI_MSG;
  hints->mode = FI_CONTEXT | FI_CONTEXT2;
  hints->domain_attr->mr_mode = FI_MR_LOCAL | FI_MR_VIRT_ADDR | FI_MR_ALLOCATED | FI_MR_PROV_KEY;
  hints->addr_format = FI_SOCKADDR_IN;
  hints->fabric_attr->prov_name = strdup("tcp;ofi_rxm");
  fi_info* info = nullptr;
  int rc = fi_getinfo(FI_VERSION(1, 9), nullptr, nullptr, 0, hints, &info);
  fi_freeinfo(hints);
  if (rc) {
    *why = std::string("fi_getinfo: ") + fi_strerror(-rc);
    return -1;
  }
  fid_fabric* fabric = nullptr;
  fid_domain* domain = nullptr;
  fid_av* av = nullptr;
  fid_cq* cq = nullptr;
  fid_ep* ep = nullptr;
  fi_av_attr av_attr{};
  av_attr.type = FI_AV_TABLE;
  fi_cq_attr cq_attr{};
  cq_attr.format = FI_CQ_FORMAT_CONTEXT;
  int sent = -1;
  sockaddr_in target{};
  target.sin_family = AF_INET;
  target.sin_port = htons(uint16_t(port));
  ::inet_pton(AF_INET, ip.c_str(), &target.sin_addr);
  fi_addr_t dest = FI_ADDR_UNSPEC;
  if (fi_fabric(info->fabric_attr, &fabric, nullptr) || fi_domain(fabric, info, &domain, nullptr) ||
      fi_av_open(domain, &av_attr, &av, nullptr) || fi_cq_open(domain, &cq_attr, &cq, nullptr) ||
      fi_endpoint(domain, info, &ep, nullptr) || fi_ep_bind(ep, &av->fid, 0) ||
      fi_ep_bind(ep, &cq->fid, FI_TRANSMIT | FI_RECV) || fi_enable(ep) ||
      fi_av_insert(av, &target, 1, &dest, 0, nullptr) != 1) {
    *why = "could not open an endpoint";
  } else {
    sent = 0;
    std::vector<fi_context2> ctx(messages.size());
    for (size_t i = 0; i < messages.size(); ++i) {
      double end = now_s() + 5;
      ssize_t r;
      while ((r = fi_send(ep, messages[i].data(), messages[i].size(), nullptr, dest, &ctx[i])) ==
                 -FI_EAGAIN &&
             now_s() < end) {
        fi_cq_entry e[8];
        fi_cq_read(cq, e, 8);
      }
      if (r) continue;
      // Wait for this send's completion (or its error) before the next.
      for (;;) {
        fi_cq_entry e[8];
        ssize_t k = fi_cq_read(cq, e, 8);
        if (k > 0) {
          sent += int(k);
          break;
        }
        if (k == -FI_EAVAIL) {
          fi_cq_err_entry err{};
          fi_cq_readerr(cq, &err, 0);
          *why = fi_strerror(err.err);
          break;
        }
        if (now_s() > end) {
          *why = "a send did not complete";
          break;
        }
      }
    }
  }
  if (ep) fi_close(&ep->fid);
  if (av) fi_close(&av->fid);
  if (cq) fi_close(&cq->fid);
  if (domain) fi_close(&domain->fid);
  if (fabric) fi_close(&fabric->fid);
  fi_freeinfo(info);
  return sent;
}

// ---- The node sockets ------------------------------------------------------------------------

int connect_abstract(const std::string& name) {
  int fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_un a{};
  a.sun_family = AF_UNIX;
  std::memcpy(a.sun_path + 1, name.data(), std::min(name.size(), sizeof a.sun_path - 1));
  auto len = socklen_t(offsetof(sockaddr_un, sun_path) + 1 + name.size());
  if (::connect(fd, reinterpret_cast<sockaddr*>(&a), len) != 0) {
    ::close(fd);
    return -1;
  }
  return fd;
}

// The abstract names of the gshmem node sockets process `pid` listens on, from its socket inodes
// and /proc/net/unix (what any process in the network namespace can read).
std::vector<std::string> node_listeners(int pid) {
  const std::set<std::string> inodes = socket_inodes(pid);
  std::vector<std::string> out;
  std::ifstream unix_table("/proc/net/unix");
  std::string line;
  std::getline(unix_table, line);
  while (std::getline(unix_table, line)) {
    std::istringstream f(line);
    std::string num, refs, proto, flags, type, state, inode, path;
    f >> num >> refs >> proto >> flags >> type >> state >> inode >> path;
    if (state == "01" && inodes.count(inode) && path.rfind("@gshmem-node-", 0) == 0) {
      out.push_back(path.substr(1));
    }
  }
  return out;
}

// Traces process `pid` (its main thread, which runs gshmem_init) from now on and leaves it
// stopped right after the listen() that opened its node socket, so that the socket can be
// attacked while the job waits for this PE: connections queue in its backlog and the PE meets
// them, before its peers' own, when it goes on (PTRACE_DETACH). Empty, or why not.
std::string hold_after_node_listen(int pid, double limit) {
  if (::ptrace(PTRACE_SEIZE, pid, nullptr, reinterpret_cast<void*>(PTRACE_O_TRACESYSGOOD)) != 0) {
    return std::string("PTRACE_SEIZE: ") + std::strerror(errno);
  }
  if (::ptrace(PTRACE_INTERRUPT, pid, nullptr, nullptr) != 0) {
    return std::string("PTRACE_INTERRUPT: ") + std::strerror(errno);
  }
  const double end = now_s() + limit;
  bool in_listen = false;
  for (;;) {
    int ws = 0;
    if (::waitpid(pid, &ws, __WALL) != pid) return std::string("waitpid: ") + std::strerror(errno);
    if (WIFEXITED(ws) || WIFSIGNALED(ws)) return "the PE ended before it opened its node socket";
    if (now_s() > end) return "the PE did not open its node socket in time";
    const int sig = WSTOPSIG(ws);
    int deliver = 0;
    if (sig == (SIGTRAP | 0x80)) {
      __ptrace_syscall_info info{};
      ::ptrace(PTRACE_GET_SYSCALL_INFO, pid, reinterpret_cast<void*>(sizeof info), &info);
      if (info.op == PTRACE_SYSCALL_INFO_ENTRY) {
        in_listen = info.entry.nr == SYS_listen;
      } else if (info.op == PTRACE_SYSCALL_INFO_EXIT && in_listen && !node_listeners(pid).empty()) {
        return "";
      }
    } else if (ws >> 16 != PTRACE_EVENT_STOP) {
      deliver = sig;  // a signal for the PE: pass it on
    }
    if (::ptrace(PTRACE_SYSCALL, pid, nullptr, reinterpret_cast<void*>(intptr_t(deliver))) != 0) {
      return std::string("PTRACE_SYSCALL: ") + std::strerror(errno);
    }
  }
}

std::string mesh_hello(const std::string& secret, int pe) {
  gshmem::node_wire::Hello h{};
  std::strncpy(h.secret, secret.c_str(), sizeof h.secret - 1);
  h.pe = pe;
  return std::string(reinterpret_cast<const char*>(&h), sizeof h);
}

}  // namespace

// gshmemrun's socket: a private directory, a 0600 socket, every hostile connection closed within
// the hello timeout (1 s here), another user kept out by the directory and, when the directory is
// opened up, by the peer-credential check; the job's PEs finish with correct results.
TEST(Hostile, LauncherSocket) {
  const int n = 3;
  Job job;
  Proc run({GSHMEMRUN, "-n", std::to_string(n), "--timeout", "90", kPe}, job.env({}));
  std::string addr = run.line_after("launcher-addr=", 30);
  ASSERT_FALSE(addr.empty()) << run.wait(5).describe();
  job.read_pids(run, n);
  std::string dir = addr.substr(0, addr.rfind('/'));

  struct stat st {};
  ASSERT_EQ(::stat(dir.c_str(), &st), 0) << dir;
  EXPECT_EQ(st.st_mode & 0777, 0700u) << dir;
  EXPECT_EQ(st.st_uid, ::geteuid());
  ASSERT_EQ(::stat(addr.c_str(), &st), 0) << addr;
  EXPECT_TRUE(S_ISSOCK(st.st_mode));
  EXPECT_EQ(st.st_mode & 0777, 0600u) << addr;

  attack_all([&] { return connect_path(addr); }, star_attacks(std::string(32, '0')), 5);

  // A flood of silent connections: the oldest are closed to make room, the job goes on.
  std::vector<int> flood;
  for (int i = 0; i < 300; ++i) flood.push_back(connect_path(addr));
  for (int fd : flood) {
    EXPECT_GE(seconds_until_closed(fd, 5), 0) << "a flood connection stayed open";
    ::close(fd);
  }

  // Another user: the directory keeps it out...
  EXPECT_EQ(as_nobody([&] {
              int fd = connect_path(addr);
              return fd < 0 && errno == EACCES ? 0 : 1;
            }),
            0)
      << "user nobody could connect to " << addr;
  // ...and with the directory and socket opened up, the server's credential check does.
  ASSERT_EQ(::chmod(dir.c_str(), 0711), 0);
  ASSERT_EQ(::chmod(addr.c_str(), 0666), 0);
  int status = as_nobody([&] {
    int fd = connect_path(addr);
    if (fd < 0) return 2;
    std::string h = hello(1, std::string(32, '0'));
    if (::send(fd, h.data(), h.size(), MSG_NOSIGNAL) < 0) return 0;  // closed already: fine
    bool answered = false;
    return seconds_until_closed(fd, 2, &answered) >= 0 && !answered ? 0 : 3;
  });
  ::chmod(dir.c_str(), 0700);
  ::chmod(addr.c_str(), 0600);
  EXPECT_EQ(status, 0) << "a connection from user nobody was not closed at once";

  // The PEs' heap memfds: 0600, and /proc/<pid>/fd is closed to another user.
  int memfds = 0;
  std::string fd_dir = "/proc/" + std::to_string(job.pids[1]) + "/fd";
  if (DIR* d = ::opendir(fd_dir.c_str())) {
    while (dirent* e = ::readdir(d)) {
      char target[256] = {};
      std::string link = fd_dir + "/" + e->d_name;
      if (::readlink(link.c_str(), target, sizeof target - 1) <= 0) continue;
      if (std::strncmp(target, "/memfd:gshmem", 13) != 0) continue;
      ++memfds;
      ASSERT_EQ(::stat(link.c_str(), &st), 0);
      EXPECT_EQ(st.st_mode & 0777, 0600u) << target;
      EXPECT_EQ(as_nobody([&] { return ::open(link.c_str(), O_RDWR) < 0 ? 0 : 1; }), 0)
          << "user nobody opened " << target;
    }
    ::closedir(d);
  }
  EXPECT_GT(memfds, 0) << "found no heap memfd in " << fd_dir;

  job.finish();
  Outcome o = run.wait(60);
  expect_finished_ok(o, n);
  EXPECT_TRUE(contains(o.err, "wrong job secret")) << o.describe();
  EXPECT_TRUE(contains(o.err, "another user")) << o.describe();
  EXPECT_TRUE(contains(o.err, "did not say hello")) << o.describe();
  struct stat gone {};
  EXPECT_NE(::stat(dir.c_str(), &gone), 0) << "gshmemrun left " << dir << " behind";
}

// The unique-id bootstrap's TCP port on rank 0: the same attacks; a client that knows the address
// and size but not GSHMEM_BOOTSTRAP_UID_SECRET does not join.
TEST(Hostile, UniqueIdPort) {
  const int n = 3;
  int port = free_port();
  ASSERT_GT(port, 0);
  Job job;
  std::vector<std::unique_ptr<Proc>> ranks;
  for (int r = 0; r < n; ++r) {
    ranks.push_back(std::make_unique<Proc>(
        std::vector<std::string>{kPe},
        job.env({"GSHMEM_BOOTSTRAP=uid",
                 "GSHMEM_BOOTSTRAP_UID_ADDR=127.0.0.1:" + std::to_string(port),
                 "GSHMEM_BOOTSTRAP_UID_SECRET=hostile-test-" + std::to_string(port),
                 "GSHMEM_RANK=" + std::to_string(r), "GSHMEM_NRANKS=" + std::to_string(n)})));
  }
  ASSERT_FALSE(ranks[0]->line_after("pe-pid pe=0 pid=", 30).empty())
      << ranks[0]->wait(5).describe();
  // What a client would present that knows the address and the size but not the job's secret.
  std::string guessed = "addr:127.0.0.1:" + std::to_string(port) + ":" + std::to_string(n);
  attack_all([&] { return connect_tcp("127.0.0.1", port); }, star_attacks(guessed), 5);
  job.finish();
  for (int r = 0; r < n; ++r) {
    Outcome o = ranks[size_t(r)]->wait(60);
    EXPECT_TRUE(o.finished && o.exited && o.code == 0) << "rank " << r << ": " << o.describe();
    EXPECT_TRUE(contains(o.out, "hostile-ok pe=" + std::to_string(r))) << o.describe();
    if (r == 0) {
      EXPECT_TRUE(contains(o.err, "wrong job secret")) << o.describe();
    }
  }
}

// The fabric endpoints (--ppn 1: every peer is remote; emulated atomics: the proxies message each
// other): raw TCP garbage at every port a PE listens on, then messages from a libfabric endpoint
// that is not in the job, shaped like atomic requests and replies (wrong key), too short and too
// long. The PEs drop them, say so, and finish with every value right.
TEST(Hostile, FabricMessagesFromOutsideTheJob) {
  const int n = 2;
  Job job;
  Proc run({GSHMEMRUN, "-n", std::to_string(n), "--ppn", "1", "--timeout", "90", kPe},
           job.env({"GSHMEM_FABRIC_PROVIDER=tcp;ofi_rxm", "GSHMEM_FABRIC_ATOMICS=emulated"}));
  ASSERT_FALSE(run.line_after("launcher-addr=", 30).empty()) << run.wait(5).describe();
  job.read_pids(run, n);
  ::usleep(300000);  // let the first rounds start: the endpoints are up once init returned
  auto ports = listening_ports(job.pids[1]);
  ASSERT_FALSE(ports.empty()) << "PE 1 listens on no TCP port";

  for (auto& [ip, port] : ports) {
    int fd = connect_tcp(ip, port);
    if (fd < 0) continue;
    std::string garbage(300, '\xa5');
    ::send(fd, garbage.data(), garbage.size(), MSG_NOSIGNAL);
    ::close(fd);
  }

  std::vector<std::string> messages;
  for (uint32_t i = 0; i < 64; ++i) {
    gshmem::AmoMessage m{};
    m.kind = i % 2 ? gshmem::kAmoReply : gshmem::kAmoRequest;
    m.amo_op = 1;    // Set
    m.amo_type = 3;  // U64
    m.segment = 0;
    m.from = 0;
    m.cookie = i / 2;
    m.offset = 8 * (i / 2);
    m.value = 0x7777777777777777ull;
    m.key = 0x1234 + i;  // not the job's
    messages.emplace_back(reinterpret_cast<const char*>(&m), sizeof m);
  }
  messages.emplace_back(8, '\x01');
  messages.emplace_back(1000, '\x01');
  int delivered = 0;
  std::string why;
  for (auto& [ip, port] : ports) {
    int k = fabric_send_from_outside(ip, port, messages, &why);
    if (k > 0) delivered += k;
  }
  EXPECT_GT(delivered, 0) << "no forged message reached PE 1 (" << why << ")";
  ::usleep(300000);

  job.finish();
  Outcome o = run.wait(60);
  expect_finished_ok(o, n);
  EXPECT_TRUE(contains(o.err, "without the job's key")) << o.describe();
}

// The node socket a PE opens during init (abstract, so any process in the network namespace can
// reach it; its name is in /proc/net/unix). PE 2 is held just after it starts listening (ptrace),
// while its peers wait for it; garbage, a partial hello, a silent connection, wrong secrets, PEs
// that do not connect to it, and another user queue up there. Once it goes on it must close every
// one (the silent and partial ones within the hello timeout) and still join its real peers, and
// the job must finish with correct results.
TEST(Hostile, NodeSocket) {
  const int n = 3;
  int port = free_port();
  ASSERT_GT(port, 0);
  Job job;
  auto rank = [&](int r) {
    return std::make_unique<Proc>(
        std::vector<std::string>{kPe},
        job.env({"GSHMEM_BOOTSTRAP=uid",
                 "GSHMEM_BOOTSTRAP_UID_ADDR=127.0.0.1:" + std::to_string(port),
                 "GSHMEM_BOOTSTRAP_UID_SECRET=hostile-test-" + std::to_string(port),
                 "GSHMEM_RANK=" + std::to_string(r), "GSHMEM_NRANKS=" + std::to_string(n)}));
  };
  // Rank 2 first: it cannot reach its node socket before ranks 0 and 1 exist, so it is traced
  // well before that.
  std::unique_ptr<Proc> last = rank(2);
  std::unique_ptr<Proc> r0 = rank(0), r1 = rank(1);
  std::string why = hold_after_node_listen(last->pid(), 60);
  if (why.rfind("PTRACE_SEIZE", 0) == 0) GTEST_SKIP() << "no ptrace here: " << why;
  ASSERT_EQ(why, "") << last->wait(5).describe();
  std::vector<std::string> names = node_listeners(last->pid());
  ASSERT_EQ(names.size(), 1u);
  std::string garbage(200, '\0');
  for (size_t i = 0; i < garbage.size(); ++i) garbage[i] = char(i * 37 + 11);
  const std::vector<Attack> attacks = {
      {"garbage", garbage},
      {"partial hello", mesh_hello("x", 0).substr(0, 20)},
      {"silent connection", ""},
      {"wrong secret", mesh_hello("not-the-job-secret", 0)},
      {"empty secret", mesh_hello("", 1)},
      {"a PE that does not connect to it", mesh_hello("not-the-job-secret", 2)},
      {"PE out of range", mesh_hello("not-the-job-secret", 1 << 20)}};
  std::vector<int> fds;
  for (const Attack& a : attacks) {
    int fd = connect_abstract(names[0]);
    ASSERT_GE(fd, 0) << a.name << ": cannot connect: " << std::strerror(errno);
    if (!a.bytes.empty()) {
      ASSERT_EQ(::send(fd, a.bytes.data(), a.bytes.size(), MSG_NOSIGNAL), ssize_t(a.bytes.size()))
          << a.name;
    }
    fds.push_back(fd);
  }
  // Another user: it connects and says hello with a secret that cannot be the job's.
  EXPECT_EQ(
      as_nobody([&] {
        int fd = connect_abstract(names[0]);
        std::string h = mesh_hello("nobody's guess", 0);
        return fd >= 0 && ::send(fd, h.data(), h.size(), MSG_NOSIGNAL) == ssize_t(h.size()) ? 0 : 1;
      }),
      0);
  ASSERT_EQ(::ptrace(PTRACE_DETACH, last->pid(), nullptr, nullptr), 0) << std::strerror(errno);
  for (size_t i = 0; i < fds.size(); ++i) {
    bool answered = false;
    double t = seconds_until_closed(fds[i], 25, &answered);
    EXPECT_GE(t, 0) << attacks[i].name << ": still open after 25 s";
    EXPECT_FALSE(answered) << attacks[i].name << ": the PE answered it";
    ::close(fds[i]);
  }
  job.finish();
  Proc* ranks[] = {r0.get(), r1.get(), last.get()};
  for (int r = 0; r < n; ++r) {
    Outcome o = ranks[r]->wait(90);
    EXPECT_TRUE(o.finished && o.exited && o.code == 0) << "rank " << r << ": " << o.describe();
    EXPECT_TRUE(contains(o.out, "hostile-ok pe=" + std::to_string(r))) << o.describe();
    if (r == 2) {
      EXPECT_TRUE(contains(o.err, "not a PE of this job")) << o.describe();
      EXPECT_TRUE(contains(o.err, "from another user")) << o.describe();
    }
  }
}
