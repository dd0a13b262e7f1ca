// Thread groups are types. A call made "by a group" must be made by every thread of the group with
// the same arguments; the group shares the work and synchronises before the call returns.
//   Thread  one thread (a CPU PE is one Thread)
//   Warp    the 32 threads of a warp, converged
//   Block   every thread of the thread block
#pragma once

#include <cstring>

#include "gshmem/device/platform.cuh"

namespace gshmem {

struct Thread {
  GSHMEM_HD GSHMEM_INLINE static unsigned rank() { return 0; }
  GSHMEM_HD GSHMEM_INLINE static unsigned size() { return 1; }
  GSHMEM_HD GSHMEM_INLINE static void sync() {}
  static constexpr const char* name = "thread";
};

#if defined(__CUDACC__)
// This thread's place in its block's linear order (x fastest, also in 2D and 3D blocks).
__device__ GSHMEM_INLINE unsigned thread_in_block() {
  return threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
}

// A warp is 32 consecutive threads of that order.
struct Warp {
  __device__ GSHMEM_INLINE static unsigned rank() { return thread_in_block() & 31u; }
  __device__ GSHMEM_INLINE static unsigned size() { return 32; }
  __device__ GSHMEM_INLINE static void sync() { __syncwarp(); }
  static constexpr const char* name = "warp";
};

struct Block {
  __device__ GSHMEM_INLINE static unsigned rank() { return thread_in_block(); }
  __device__ GSHMEM_INLINE static unsigned size() { return blockDim.x * blockDim.y * blockDim.z; }
  __device__ GSHMEM_INLINE static void sync() { __syncthreads(); }
  static constexpr const char* name = "block";
};
#endif

namespace detail {

#if defined(__CUDACC__)
// Strided copy over the group in units of U; returns the bytes covered. Four loads are issued
// before their stores: a copy runs at (requests in flight) / latency, and the compiler may not
// move a load above a store that might alias it. Overlapping ranges are not supported (memcpy).
template <class G, class U>
__device__ GSHMEM_INLINE size_t copy_units(char* dst, const char* src, size_t n) {
  constexpr unsigned kUnroll = 4;
  const size_t units = n / sizeof(U), stride = G::size();
  U* d = reinterpret_cast<U*>(dst);
  const U* s = reinterpret_cast<const U*>(src);
  size_t i = G::rank();
  for (; i + (kUnroll - 1) * stride < units; i += kUnroll * stride) {
    U v[kUnroll];
#pragma unroll
    for (unsigned k = 0; k < kUnroll; ++k) v[k] = s[i + k * stride];
#pragma unroll
    for (unsigned k = 0; k < kUnroll; ++k) d[i + k * stride] = v[k];
  }
  for (; i < units; i += stride) d[i] = s[i];
  return units * sizeof(U);
}
#endif

// Copies n bytes with the whole group: 16-byte vectors when both ends allow it. Does not
// synchronise the group; callers that need the copy complete group-wide call G::sync().
template <class G>
GSHMEM_HD GSHMEM_INLINE void group_copy(void* dst, const void* src, size_t n) {
#if GSHMEM_ON_DEVICE
  char* d = static_cast<char*>(dst);
  const char* s = static_cast<const char*>(src);
  uintptr_t mis = reinterpret_cast<uintptr_t>(d) | reinterpret_cast<uintptr_t>(s);
  size_t done = 0;
  if ((mis & 15) == 0) {
    done = copy_units<G, int4>(d, s, n);
  } else if ((mis & 7) == 0) {
    done = copy_units<G, uint64_t>(d, s, n);
  } else if ((mis & 3) == 0) {
    done = copy_units<G, uint32_t>(d, s, n);
  }
  copy_units<G, char>(d + done, s + done, n - done);
#else
  std::memcpy(dst, src, n);
#endif
}

}  // namespace detail
}  // namespace gshmem
