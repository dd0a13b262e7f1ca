// Built without CUDA: no device segment exists. The runtime never asks for one (gpu::probe says
// no GPU is usable, so GSHMEM_HEAP=device fails with that reason first).
#include "gshmem/gshmem.hpp"
#include "host/heap/segment.hpp"

namespace gshmem {

std::unique_ptr<HeapSegment> make_device_heap(Bootstrap&, NodeMesh&, uint64_t, uint64_t, int,
                                              bool) {
  throw Error(GSHMEM_ERROR_INTERNAL, "gshmem_init", "", "gshmem was built without CUDA");
}

}  // namespace gshmem
