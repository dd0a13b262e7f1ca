#include "transports/mapped/shared_segment.hpp"

namespace gshmem {

SharedSegment::SharedSegment(NodeMesh& mesh, int n_pes, HostSegment local, uint64_t tag,
                             const char* what)
    : local_(std::move(local)) {
  peer_base_.assign(size_t(n_pes), nullptr);
  peer_base_[size_t(mesh.my_pe())] = local_.base();
  auto fds = mesh.exchange_fds({local_.fd()}, tag, what);
  for (int pe : mesh.local_pes()) {
    if (pe == mesh.my_pe()) continue;
    peers_.push_back(HostSegment::attach(fds[size_t(pe)].at(0), local_.size()));
    peer_base_[size_t(pe)] = peers_.back().base();
  }
}

}  // namespace gshmem
