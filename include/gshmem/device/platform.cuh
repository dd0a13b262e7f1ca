// Portability layer for the code shared by CPU PEs and CUDA kernels.
//
// Everything under include/gshmem/device/ is written once as __host__ __device__ C++ and runs both
// from CPU threads (a PE whose heap is host memory) and inside kernels. This header hides the few
// differences: function qualifiers, the atomic_ref implementation, spinning and the clock.
#pragma once

#include <cstddef>
#include <cstdint>

#if defined(__CUDACC__)
#define GSHMEM_HD __host__ __device__
#define GSHMEM_INLINE __forceinline__
#else
#define GSHMEM_HD
#define GSHMEM_INLINE inline __attribute__((always_inline))
#endif

#if defined(__CUDA_ARCH__)
#define GSHMEM_ON_DEVICE 1
#else
#define GSHMEM_ON_DEVICE 0
#endif

// Out of line in host code, inlined in kernels as usual. For the proxy channel's entry points: a
// Command is 64-byte aligned, and building one inside a host call's mapped-peer fast path would
// make that whole function realign its stack frame.
#if GSHMEM_ON_DEVICE
#define GSHMEM_HOST_NOINLINE
#else
#define GSHMEM_HOST_NOINLINE __attribute__((noinline))
#endif

#if __has_include(<cuda/atomic>)
#include <cuda/atomic>
#define GSHMEM_HAVE_LIBCUXX 1
#else
#include <atomic>
#define GSHMEM_HAVE_LIBCUXX 0
#endif

#if !GSHMEM_ON_DEVICE
#include <ctime>
#endif

namespace gshmem::detail {

#if GSHMEM_HAVE_LIBCUXX
// System scope: the other side may be another process, another GPU, or the proxy thread.
template <class T>
using atomic_ref = cuda::atomic_ref<T, cuda::thread_scope_system>;
using memory_order = cuda::memory_order;
inline constexpr memory_order relaxed = cuda::memory_order_relaxed;
inline constexpr memory_order acquire = cuda::memory_order_acquire;
inline constexpr memory_order release = cuda::memory_order_release;
inline constexpr memory_order acq_rel = cuda::memory_order_acq_rel;
inline constexpr memory_order seq_cst = cuda::memory_order_seq_cst;
GSHMEM_HD GSHMEM_INLINE void thread_fence_system() {
  cuda::atomic_thread_fence(cuda::memory_order_seq_cst, cuda::thread_scope_system);
}
#else
template <class T>
using atomic_ref = std::atomic_ref<T>;
using memory_order = std::memory_order;
inline constexpr memory_order relaxed = std::memory_order_relaxed;
inline constexpr memory_order acquire = std::memory_order_acquire;
inline constexpr memory_order release = std::memory_order_release;
inline constexpr memory_order acq_rel = std::memory_order_acq_rel;
inline constexpr memory_order seq_cst = std::memory_order_seq_cst;
inline void thread_fence_system() {
  std::atomic_thread_fence(std::memory_order_seq_cst);
}
#endif

// One pause of a spin loop: the cheapest instruction that tells the core we are waiting.
GSHMEM_HD GSHMEM_INLINE void spin_pause() {
#if GSHMEM_ON_DEVICE
  __nanosleep(32);
#elif defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#elif defined(__aarch64__)
  asm volatile("yield" ::: "memory");
#endif
}

// Returns v, hidden from the optimizer: what is computed from the result is computed again where
// it is used, not kept in registers from an earlier use of the same expression. For kernels whose
// long-lived values, held across a call (the collective kernels' reducer), would not fit in the
// registers: cheap ones are recomputed instead of spilled. A no-op on the host.
GSHMEM_HD GSHMEM_INLINE uint64_t recompute_from(uint64_t v) {
#if GSHMEM_ON_DEVICE
  asm volatile("" : "+l"(v));
#endif
  return v;
}

// Monotonic nanoseconds: the global timer on the device, CLOCK_MONOTONIC (vDSO) on the host.
GSHMEM_HD GSHMEM_INLINE uint64_t now_ns() {
#if GSHMEM_ON_DEVICE
  uint64_t t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
#else
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return uint64_t(ts.tv_sec) * 1000000000ull + uint64_t(ts.tv_nsec);
#endif
}

}  // namespace gshmem::detail
