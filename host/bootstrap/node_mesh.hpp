// The PEs of one node, connected pairwise by Unix sockets so they can hand each other memory as
// file descriptors (memfds of host heaps, CUDA VMM exports of device heaps). "Node" means: same
// GSHMEM_NODE_ID when set (gshmemrun --ppn makes virtual nodes that way), else the same kernel
// boot and network namespace, which is exactly the set of processes that can reach each other's
// abstract sockets. Any process there can connect to one, so the sockets' names are random (not
// the job secret: /proc/net/unix shows them), and a connection counts only from this user with
// the job secret; others are closed without disturbing the job.
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
  // World PEs on this machine (same hostname), ascending: this node's, and those of virtual nodes
  // beside it, which share its cores.
  std::vector<int> host_pes() const {
    std::vector<int> pes;
    for (int pe = 0; pe < int(hostnames_.size()); ++pe) {
      if (hostnames_[size_t(pe)] == hostnames_[size_t(my_pe_)]) pes.push_back(pe);
    }
    return pes;
  }

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

// The node mesh's two messages, parsed from bytes that came from other processes.
namespace node_wire {

// What each PE tells every other through the bootstrap: its node, host and node socket's name.
struct Record {
  char key[96];
  char host[64];
  char sock[32];
};
// The first bytes on a node socket: which PE connects, proven by the job secret.
struct Hello {
  char secret[40];
  int32_t pe;
};

struct Layout {
  std::vector<int> node_of;  // by PE: node number, in order of first appearance
  std::vector<std::string> hosts, socks;
  int n_nodes = 0;
};
// `n` records, one per PE; fields need not be NUL-terminated.
Layout parse_records(const Record* records, size_t n);
// The PE a hello comes from, or -1 unless it has exactly the job's secret and names a PE below
// `my_pe` on my_pe's node (those are the ones that connect to it).
int check_hello(const void* bytes, size_t n, const std::string& secret,
                const std::vector<int>& node_of, int my_pe);

}  // namespace node_wire

}  // namespace gshmem
