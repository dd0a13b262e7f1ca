// A host segment of this PE plus the mappings of every same-node peer's copy: the peer base
// table behind gshmem_ptr and the mapped fast path.
#pragma once

#include <cstdint>
#include <vector>

#include "gshmem/device/context.cuh"
#include "host/heap/host_segment.hpp"
#include "host/bootstrap/node_mesh.hpp"

namespace gshmem {

class SharedSegment {
 public:
  SharedSegment() = default;
  // Collective over the node: hands `local` to every same-node peer and maps theirs.
  SharedSegment(NodeMesh& mesh, int n_pes, HostSegment local, uint64_t tag, const char* what);

  char* base() const { return local_.base(); }
  uint64_t size() const { return local_.size(); }
  int fd() const { return local_.fd(); }
  // By world PE: where that PE's copy is mapped here, nullptr when it is not.
  char* const* peer_bases() const { return peer_base_.data(); }
  Segment view() const { return Segment{base(), size(), peer_base_.data()}; }
  size_t mapped_peers() const { return peers_.size(); }

 private:
  HostSegment local_;
  std::vector<HostSegment> peers_;
  std::vector<char*> peer_base_;
};

}  // namespace gshmem
