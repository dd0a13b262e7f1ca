#include "host/heap/shared_segment.hpp"

#include <cstring>

#include "host/heap/segment.hpp"

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

// ---- The host heap --------------------------------------------------------------------------

namespace gshmem {

namespace {

// The whole memfd is backed (pages on first touch), so commit has nothing to do.
class HostHeap final : public HeapSegment {
 public:
  HostHeap(NodeMesh& mesh, int n_pes, uint64_t bytes, uint64_t alignment)
      : alignment_(alignment),
        seg_(mesh, n_pes, HostSegment::create("gshmem-heap", bytes, alignment),
             0x68656170 /* "heap" */, "gshmem_init (heap)") {}

  const char* kind() const override { return "host"; }
  char* base() const override { return seg_.base(); }
  uint64_t size() const override { return seg_.size(); }
  uint64_t base_alignment() const override { return alignment_; }
  Segment view() const override { return seg_.view(); }
  size_t mapped_peers() const override { return seg_.mapped_peers(); }
  void zero(uint64_t off, uint64_t bytes) override { std::memset(base() + off, 0, bytes); }
  void move(uint64_t dst, uint64_t src, uint64_t bytes) override {
    std::memmove(base() + dst, base() + src, bytes);
  }

 private:
  uint64_t alignment_;
  SharedSegment seg_;
};

}  // namespace

std::unique_ptr<HeapSegment> make_host_heap(NodeMesh& mesh, int n_pes, uint64_t bytes,
                                            uint64_t alignment) {
  return std::make_unique<HostHeap>(mesh, n_pes, bytes, alignment);
}

}  // namespace gshmem
