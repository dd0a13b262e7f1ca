// Thread groups are types. A call made "by a group" must be made by every thread of the group with
// the same arguments; the group shares the work and synchronises before the call returns.
//   Thread  one thread (a CPU PE is one Thread)
//   Warp    the 32 threads of a warp, converged
//   Block   every thread of the thread block
// Warp and Block run on the host too, as host thread groups (gshmem/simt.hpp): a simt::run
// starts blocks of host threads, and there rank(), size() and sync() are the calling host
// thread's place in its block and warp and their barriers. The code over G is otherwise the same
// in both, so running it on CPU PEs runs what the kernels run; only rank, size, sync and the
// copy unit below differ.
#pragma once

#include <cstring>
#include <type_traits>

#include "gshmem/device/platform.cuh"

namespace gshmem {

namespace detail {

// The host side of Warp and Block (host/runtime/host_groups.cpp): the calling thread's rank in
// its host warp or block, their sizes, and their barriers. Outside a simt::run they raise an
// Error naming the group (there is no warp or block to be part of).
enum class HostScope : uint8_t { Warp, Block };
unsigned host_group_rank(HostScope s);
unsigned host_group_size(HostScope s);
void host_group_sync(HostScope s);

// Pushes: copies of kStreamMinBytes or more that another PE reads next (a put to a peer, a
// collective's push into a peer's receive slot or into this PE's pool), made by a CPU PE's own
// thread (host/runtime/push_copy.cpp).
// - push_begin says whether this push streams, and push_end (after a plain copy) reports how long
//   it took. Each thread decides alone (the choice does not change what lands, only how).
//   push_counts: this thread's pushes so far, plain and streamed (for tests).
// - stream_store writes with non-temporal stores, which send the lines to memory instead of into
//   this core's cache, and leaves them unordered; stream_fence orders them before the stores
//   that follow. Plain memcpy where the CPU has no such stores.
struct PushMode {
  bool stream;
  uint64_t t0;
};
struct PushCounts {
  uint64_t plain = 0, streamed = 0;
};
PushMode push_begin();
void push_end(const PushMode& m, size_t n);
PushCounts push_counts();
void stream_store(void* dst, const void* src, size_t n);
void stream_fence();

}  // namespace detail

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
#endif

// A warp is 32 consecutive threads of that order (on the host: simt::Grid::warp threads).
struct Warp {
  GSHMEM_HD GSHMEM_INLINE static unsigned rank() {
#if GSHMEM_ON_DEVICE
    return thread_in_block() & 31u;
#else
    return detail::host_group_rank(detail::HostScope::Warp);
#endif
  }
  GSHMEM_HD GSHMEM_INLINE static unsigned size() {
#if GSHMEM_ON_DEVICE
    return 32;
#else
    return detail::host_group_size(detail::HostScope::Warp);
#endif
  }
  GSHMEM_HD GSHMEM_INLINE static void sync() {
#if GSHMEM_ON_DEVICE
    __syncwarp();
#else
    detail::host_group_sync(detail::HostScope::Warp);
#endif
  }
  static constexpr const char* name = "warp";
};

struct Block {
  GSHMEM_HD GSHMEM_INLINE static unsigned rank() {
#if GSHMEM_ON_DEVICE
    return thread_in_block();
#else
    return detail::host_group_rank(detail::HostScope::Block);
#endif
  }
  GSHMEM_HD GSHMEM_INLINE static unsigned size() {
#if GSHMEM_ON_DEVICE
    return blockDim.x * blockDim.y * blockDim.z;
#else
    return detail::host_group_size(detail::HostScope::Block);
#endif
  }
  GSHMEM_HD GSHMEM_INLINE static void sync() {
#if GSHMEM_ON_DEVICE
    __syncthreads();
#else
    detail::host_group_sync(detail::HostScope::Block);
#endif
  }
  static constexpr const char* name = "block";
};

// This block's index in the grid: blockIdx.x, or the host block of a simt::run.
namespace detail {
unsigned host_block_index();
}
GSHMEM_HD GSHMEM_INLINE unsigned block_in_grid() {
#if GSHMEM_ON_DEVICE
  return blockIdx.x;
#else
  return detail::host_block_index();
#endif
}

namespace detail {

#if GSHMEM_ON_DEVICE
#define GSHMEM_UNROLL _Pragma("unroll")
using CopyVec = int4;
#else
#if defined(__CUDACC__)
#define GSHMEM_UNROLL  // nvcc's host pass knows neither pragma
#else
#define GSHMEM_UNROLL _Pragma("GCC unroll 4")
#endif
// The host's 16-byte unit: two words, copied as one SSE/NEON register where the target has one.
struct alignas(16) CopyVec {
  uint64_t w[2];
};
#endif
static_assert(sizeof(CopyVec) == 16);

// Strided copy over the group in units of U; returns the bytes covered. Four loads are issued
// before their stores: a copy runs at (requests in flight) / latency, and the compiler may not
// move a load above a store that might alias it. Overlapping ranges are not supported (memcpy).
template <class G, class U>
GSHMEM_HD GSHMEM_INLINE size_t copy_units(char* dst, const char* src, size_t n) {
  constexpr unsigned kUnroll = 4;
  const size_t units = n / sizeof(U), stride = G::size();
  U* d = reinterpret_cast<U*>(dst);
  const U* s = reinterpret_cast<const U*>(src);
  size_t i = G::rank();
  for (; i + (kUnroll - 1) * stride < units; i += kUnroll * stride) {
    U v[kUnroll];
    GSHMEM_UNROLL
    for (unsigned k = 0; k < kUnroll; ++k) v[k] = s[i + k * stride];
    GSHMEM_UNROLL
    for (unsigned k = 0; k < kUnroll; ++k) d[i + k * stride] = v[k];
  }
  for (; i < units; i += stride) d[i] = s[i];
  return units * sizeof(U);
}

// Copies n bytes with the whole group: 16-byte vectors when both ends allow it. Does not
// synchronise the group; callers that need the copy complete group-wide call G::sync().
// A CPU PE's own thread (Thread on the host) copies with memcpy, which picks the widest
// instructions and non-temporal stores for large copies; host thread groups run the kernels'
// loop.
template <class G>
GSHMEM_HD GSHMEM_INLINE void group_copy(void* dst, const void* src, size_t n) {
#if !GSHMEM_ON_DEVICE
  if constexpr (std::is_same_v<G, Thread>) {
    std::memcpy(dst, src, n);
    return;
  }
#endif
  char* d = static_cast<char*>(dst);
  const char* s = static_cast<const char*>(src);
  uintptr_t mis = reinterpret_cast<uintptr_t>(d) | reinterpret_cast<uintptr_t>(s);
  size_t done = 0;
  if ((mis & 15) == 0) {
    done = copy_units<G, CopyVec>(d, s, n);
  } else if ((mis & 7) == 0) {
    done = copy_units<G, uint64_t>(d, s, n);
  } else if ((mis & 3) == 0) {
    done = copy_units<G, uint32_t>(d, s, n);
  }
  copy_units<G, char>(d + done, s + done, n - done);
}

inline constexpr size_t kStreamMinBytes = size_t(64) << 10;

// Copies n bytes that another PE reads next. On a CPU PE's own thread, a copy of kStreamMinBytes
// or more is a push (push_begin): plain, or streamed while plain pushes run slow. Elsewhere
// group_copy.
template <class G>
GSHMEM_HD GSHMEM_INLINE void group_push(void* dst, const void* src, size_t n) {
#if !GSHMEM_ON_DEVICE
  if constexpr (std::is_same_v<G, Thread>) {
    if (n >= kStreamMinBytes) {
      const PushMode m = push_begin();
      if (m.stream) {
        stream_store(dst, src, n);
        stream_fence();
      } else {
        std::memcpy(dst, src, n);
        push_end(m, n);
      }
      return;
    }
  }
#endif
  group_copy<G>(dst, src, n);
}

}  // namespace detail
}  // namespace gshmem
