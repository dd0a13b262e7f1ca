#include "host/bootstrap/node_mesh.hpp"

#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
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

namespace {

struct NodeRecord {
  char key[96];
  char host[64];
};

struct Hello {
  char secret[40];
  int32_t pe;
};

}  // namespace

NodeMesh::NodeMesh(Bootstrap& boot, const std::string& job_secret) : my_pe_(boot.rank()) {
  int n = boot.size();
  NodeRecord mine{};
  std::string key = node_key();
  // Every PE its own node: peers that could map each other talk through the network instead.
  if (Env::get().flag("GSHMEM_DISABLE_P2P")) key += ":pe" + std::to_string(my_pe_);
  std::strncpy(mine.key, key.c_str(), sizeof mine.key - 1);
  gethostname(mine.host, sizeof mine.host - 1);
  std::vector<NodeRecord> all(static_cast<size_t>(n));
  boot.allgather(&mine, all.data(), sizeof mine, "gshmem_init (node discovery)");

  std::map<std::string, int> ids;
  node_of_.resize(size_t(n));
  for (int pe = 0; pe < n; ++pe) {
    auto [it, fresh] = ids.emplace(all[size_t(pe)].key, int(ids.size()));
    node_of_[size_t(pe)] = it->second;
    hostnames_.emplace_back(all[size_t(pe)].host);
  }
  n_nodes_ = int(ids.size());
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
  auto name = [&](int pe) { return "gshmem-" + job_secret + "-" + std::to_string(pe); };
  sock::Fd listener = sock::listen_abstract(name(my_pe_), int(local_.size()));
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
    sock::Fd fd = sock::connect_abstract(name(pe));
    if (!fd || !sock::write_all(fd.get(), &hello, sizeof hello)) {
      throw Error(
          GSHMEM_ERROR_TRANSPORT, "gshmem_init", "",
          "cannot connect to PE " + std::to_string(pe) + " on this node: " + strerror(errno));
    }
    links_[size_t(pe)] = std::move(fd);
  }
  sock::set_io_timeout(listener.get(), 30);
  for (int i = 0; i < lower; ++i) {
    sock::Fd fd(::accept4(listener.get(), nullptr, nullptr, SOCK_CLOEXEC));
    Hello theirs{};
    if (!fd || !sock::read_all(fd.get(), &theirs, sizeof theirs) ||
        std::strncmp(theirs.secret, hello.secret, sizeof hello.secret) != 0 || theirs.pe < 0 ||
        theirs.pe >= my_pe_ || node_of_[size_t(theirs.pe)] != node_of_[size_t(my_pe_)] ||
        links_[size_t(theirs.pe)]) {
      throw Error(GSHMEM_ERROR_TRANSPORT, "gshmem_init", "",
                  "a node socket connection failed or did not come from a PE of this job");
    }
    links_[size_t(theirs.pe)] = std::move(fd);
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
