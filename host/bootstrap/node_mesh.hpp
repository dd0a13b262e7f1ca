// The PEs of one node, connected pairwise by Unix sockets so they can hand each other memory as
// file descriptors (memfds of host heaps, CUDA VMM exports of device heaps). "Node" means: same
// GSHMEM_NODE_ID when set (gshmemrun --ppn makes virtual nodes that way), else the same kernel
// boot and network namespace, which is exactly the set of processes that can reach each other's
// abstract sockets.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "host/bootstrap/bootstrap.hpp"
#include "host/base/sock.hpp"

namespace gshmem {

class NodeMesh {
 public:
  // Collective over the bootstrap.
  NodeMesh(Bootstrap& boot, const std::string& job_secret);

  int my_pe() const { return my_pe_; }
  int node_of(int pe) const { return node_of_[size_t(pe)]; }
  int n_nodes() const { return n_nodes_; }
  bool same_node(int pe) const { return node_of(pe) == node_of(my_pe_); }
  // World PEs on this node, ascending, this PE included.
  const std::vector<int>& local_pes() const { return local_; }
  const std::string& hostname_of(int pe) const { return hostnames_[size_t(pe)]; }

  // Collective over the node: every local PE sends the same number of descriptors; the result
  // holds, for each world PE on this node, the descriptors it sent (this PE's own are not
  // duplicated: the caller keeps ownership of `mine`).
  std::vector<std::vector<int>> exchange_fds(const std::vector<int>& mine, uint64_t tag,
                                             const char* what);

 private:
  int my_pe_;
  int n_nodes_ = 0;
  std::vector<int> node_of_;
  std::vector<std::string> hostnames_;
  std::vector<int> local_;
  std::vector<sock::Fd> links_;  // by world PE; set for local peers
};

// This process's node identity: GSHMEM_NODE_ID, else boot id + network namespace.
std::string node_key();

}  // namespace gshmem
