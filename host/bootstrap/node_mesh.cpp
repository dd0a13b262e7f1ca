#include "host/bootstrap/node_mesh.hpp"

#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <fstream>
#include <map>

#include "gshmem/gshmem.hpp"
#include "host/base/env.hpp"
#include "host/base/log.hpp"

namespace gshmem {

std::string node_key() {
  const std::string& id = Env::get().str("GSHMEM_NODE_ID");
  if (!id.empty()) return "id:" + id;
  std::string boot;
  std::ifstream("/proc/sys/kernel/random/boot_id") >> boot;
  struct stat st {};
  ::stat("/proc/self/ns/net", &st);
  return "boot:" + boot + ":netns:" + std::to_string(st.st_ino);
}

namespace node_wire {

Layout parse_records(const Record* records, size_t n) {
  Layout out;
  std::map<std::string, int> ids;
  for (size_t pe = 0; pe < n; ++pe) {
    const Record& r = records[pe];
    std::string key(r.key, strnlen(r.key, sizeof r.key));
    auto [it, fresh] = ids.emplace(key, int(ids.size()));
    out.node_of.push_back(it->second);
    out.hosts.emplace_back(r.host, strnlen(r.host, sizeof r.host));
    out.socks.emplace_back(r.sock, strnlen(r.sock, sizeof r.sock));
  }
  out.n_nodes = int(ids.size());
  return out;
}

int check_hello(const void* bytes, size_t n, const std::string& secret,
                const std::vector<int>& node_of, int my_pe) {
  Hello h;
  if (n != sizeof h || my_pe < 0 || size_t(my_pe) >= node_of.size()) return -1;
  std::memcpy(&h, bytes, sizeof h);
  char want[sizeof h.secret] = {};
  std::strncpy(want, secret.c_str(), sizeof want - 1);
  if (!sock::secret_equal(h.secret, sizeof h.secret, want, sizeof want)) return -1;
  if (h.pe < 0 || h.pe >= my_pe || node_of[size_t(h.pe)] != node_of[size_t(my_pe)]) return -1;
  return h.pe;
}

}  // namespace node_wire

namespace {

double now_s() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

// How long init waits for the node's lower PEs to connect, and for one connection's hello.
constexpr double kConnectWait = 30;
constexpr double kHelloWait = 5;

}  // namespace

NodeMesh::NodeMesh(Bootstrap& boot, const std::string& job_secret) : my_pe_(boot.rank()) {
  using node_wire::Hello;
  using node_wire::Record;
  int n = boot.size();
  Record mine{};
  std::string key = node_key();
  // Every PE its own node: peers that could map each other talk through the network instead.
  if (Env::get().flag("GSHMEM_DISABLE_P2P")) key += ":pe" + std::to_string(my_pe_);
  std::strncpy(mine.key, key.c_str(), sizeof mine.key - 1);
  gethostname(mine.host, sizeof mine.host - 1);
  // Random, and told only through the bootstrap: the name is public once bound, but it gives
  // away nothing, and nobody can squat it beforehand.
  std::string sock_name = "gshmem-node-" + sock::random_hex(8);
  std::strncpy(mine.sock, sock_name.c_str(), sizeof mine.sock - 1);
  std::vector<Record> all(static_cast<size_t>(n));
  boot.allgather(&mine, all.data(), sizeof mine, "gshmem_init (node discovery)");

  node_wire::Layout layout = node_wire::parse_records(all.data(), all.size());
  node_of_ = layout.node_of;
  hostnames_ = layout.hosts;
  n_nodes_ = layout.n_nodes;
  for (int pe = 0; pe < n; ++pe) {
    if (node_of_[size_t(pe)] == node_of_[size_t(my_pe_)]) local_.push_back(pe);
  }
  links_.resize(size_t(n));
  // The socket barrier below is a world collective: a PE alone on its node still takes part
  // when any other node has peers to connect (every PE decides this from the same records).
  std::vector<int> node_sizes(size_t(n_nodes_), 0);
  for (int id : node_of_) ++node_sizes[size_t(id)];
  bool any_shared = *std::max_element(node_sizes.begin(), node_sizes.end()) > 1;
  if (local_.size() == 1) {
    if (any_shared) boot.barrier("gshmem_init (node sockets)");
    return;
  }

  // Every local PE listens; once all are listening, each connects to the peers above it and
  // accepts the ones below. Connects complete on the backlog, so the order cannot deadlock.
  sock::Fd listener = sock::listen_abstract(sock_name, int(local_.size()) + 16);
  if (!listener) {
    throw Error(GSHMEM_ERROR_TRANSPORT, "gshmem_init", "",
                "cannot open the node socket: " + std::string(strerror(errno)));
  }
  boot.barrier("gshmem_init (node sockets)");
  Hello hello{};
  std::strncpy(hello.secret, job_secret.c_str(), sizeof hello.secret - 1);
  hello.pe = my_pe_;
  int lower = 0;
  for (int pe : local_) {
    if (pe < my_pe_) ++lower;
    if (pe <= my_pe_) continue;
    sock::Fd fd = sock::connect_abstract(layout.socks[size_t(pe)]);
    if (!fd || !sock::write_all(fd.get(), &hello, sizeof hello)) {
      throw Error(
          GSHMEM_ERROR_TRANSPORT, "gshmem_init", "",
          "cannot connect to PE " + std::to_string(pe) + " on this node: " + strerror(errno));
    }
    links_[size_t(pe)] = std::move(fd);
  }
  // Anyone in the network namespace can connect here: a connection that is not a lower PE of
  // this node with the job's secret is closed and the wait goes on, within one deadline.
  double deadline = now_s() + kConnectWait;
  for (int accepted = 0; accepted < lower;) {
    double left = deadline - now_s();
    sock::set_io_timeout(listener.get(), std::max(left, 0.001));
    sock::Fd fd(::accept4(listener.get(), nullptr, nullptr, SOCK_CLOEXEC));
    if (!fd) {
      if (errno == EINTR || errno == ECONNABORTED) continue;
      throw Error(GSHMEM_ERROR_TRANSPORT, "gshmem_init", "",
                  "the PEs below PE " + std::to_string(my_pe_) +
                      " on this node did not all connect within " +
                      std::to_string(int(kConnectWait)) + " s (" + strerror(errno) + ")");
    }
    if (!sock::peer_is_same_user(fd.get())) {
      GSHMEM_WARN(INIT, "closed a node socket connection from another user");
      continue;
    }
    sock::set_io_timeout(fd.get(), std::max(std::min(left, kHelloWait), 0.001));
    Hello theirs{};
    int pe = sock::read_all(fd.get(), &theirs, sizeof theirs)
                 ? node_wire::check_hello(&theirs, sizeof theirs, job_secret, node_of_, my_pe_)
                 : -1;
    if (pe < 0 || links_[size_t(pe)]) {
      GSHMEM_WARN(INIT, "closed a node socket connection that is not a PE of this job");
      continue;
    }
    sock::set_io_timeout(fd.get(), 0);  // memory hand-offs wait as long as the peers do
    links_[size_t(pe)] = std::move(fd);
    ++accepted;
  }
  GSHMEM_INFO(INIT, "node %d of %d: %zu PEs here", node_of_[size_t(my_pe_)], n_nodes_,
              local_.size());
}

std::vector<std::vector<int>> NodeMesh::exchange_fds(const std::vector<int>& mine, uint64_t tag,
                                                     const char* what) {
  std::vector<std::vector<int>> out(node_of_.size());
  for (int pe : local_) {
    if (pe != my_pe_ && !sock::send_fds(links_[size_t(pe)].get(), mine, tag)) {
      throw Error(GSHMEM_ERROR_TRANSPORT, what, "",
                  "cannot send memory to PE " + std::to_string(pe) + ": " + strerror(errno));
    }
  }
  for (int pe : local_) {
    if (pe == my_pe_) {
      out[size_t(pe)] = mine;
      continue;
    }
    uint64_t got = 0;
    if (!sock::recv_fds(links_[size_t(pe)].get(), &out[size_t(pe)], mine.size(), &got) ||
        got != tag) {
      throw Error(GSHMEM_ERROR_TRANSPORT, what, "",
                  "did not receive PE " + std::to_string(pe) + "'s memory (it may have died)");
    }
  }
  return out;
}

}  // namespace gshmem
