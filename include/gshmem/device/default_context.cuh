// The default DeviceContext of kernels: what the NVSHMEM-style C names (gshmem_putmem from a
// kernel) work on. CUDA only.
//
// The runtime hands every registered hook a fresh context after gshmem_init, after each heap
// growth, and a zeroed one at finalize (gshmemx_register_context_hook). gshmem::device keeps one
// hook that copies it into every __constant__ copy attached below, on the current device.
//
// Two ways to compile a kernel that uses it, chosen by the compiler's own flag:
//   -rdc=true (CMake: CUDA_SEPARABLE_COMPILATION ON; what gshmem::device itself uses): one
//       copy, `gshmemi_device_ctx`, defined in gshmem::device and resolved by the device link.
//   whole-program (no -rdc): every translation unit that includes this header gets its own
//       static copy and attaches it at load, so a plain `nvcc app.cu -lgshmem_device -lgshmem`
//       works without a device link.
//
// Contract: the copy is updated with cudaMemcpyToSymbol from inside gshmem_init, gshmem_malloc
// (when the heap grows) and gshmem_finalize, so kernels that use the default context must not
// run concurrently with those calls. Several PEs in one process cannot share the default
// context: give each its own with the C++ API (every template takes a DeviceContext).
#pragma once

#if !defined(__CUDACC__)
#error "gshmem/device/default_context.cuh is for CUDA sources (nvcc)"
#endif

#include <cstddef>
#include <string>

#include "gshmem/device/context.cuh"

extern "C" {
// From the runtime (declared here too, with the same signature, so this header does not depend
// on the host header's version).
void gshmemx_register_context_hook(void (*hook)(const void* ctx, size_t bytes));

// gshmem::device, host side. Adds a __constant__ DeviceContext (the host shadow address of the
// symbol) to the copies the hook updates, and fills it at once when the runtime is already up.
// Safe from static constructors. Returns 0, or -1 when the runtime offers no hook (then every
// device call through the default context sees n_pes == 0 and says "not initialised").
int gshmemi_device_attach(const void* symbol);
// Anchors the object that defines the -rdc copy, so static linking keeps it (and its attach).
extern const int gshmemi_device_ctx_anchor;
}

#if defined(__CUDACC_RDC__)
extern __constant__ gshmem::DeviceContext gshmemi_device_ctx;
#if !defined(__CUDA_ARCH__)
namespace {
[[maybe_unused]] __attribute__((used)) const int* const gshmemi_device_ctx_keep =
    &gshmemi_device_ctx_anchor;
}
#endif
#else
static __constant__ gshmem::DeviceContext gshmemi_device_ctx;
#if !defined(__CUDA_ARCH__)
namespace {
[[maybe_unused]] __attribute__((used)) const int gshmemi_device_ctx_attached =
    gshmemi_device_attach(&gshmemi_device_ctx);
}
#endif
#endif

namespace gshmem {

namespace detail {
// The default context as device code sees it: a __constant__ read, the same for every thread.
__device__ GSHMEM_INLINE const DeviceContext& device_default_context() {
  return gshmemi_device_ctx;
}
}  // namespace detail

// Host side: the context kernels get by default, as the runtime last handed it over (n_pes 0
// before gshmem_init and after finalize). For the C++ API, whose templates take it explicitly.
DeviceContext device_context();

// Host side: problems that would make kernels fault on this context (memory a kernel cannot
// reach: the heap, the peer table, the teams, the abort flag), as one readable line; empty
// when there is none. Tests and benchmarks call it before their first kernel so the first GPU
// run fails with a reason instead of an illegal-address error.
std::string device_context_problem(const DeviceContext& c);

}  // namespace gshmem
