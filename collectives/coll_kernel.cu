// The kernels of the stream-ordered collectives on a GPU heap, and their launch. One kernel per
// collective and algorithm (two for Hier's AllReduce, by its cross-node algorithm), for every
// type and operator: the algorithms are the same code for every type, so each is compiled once
// (run_channel_as<Block, KernelReducer, ...>) and the reducer picks the typed loop at run time in
// a function of its own, shared by all kernels (not inlined into each of the algorithms' call
// sites).
//
// Registers: a kernel gets those of its largest path. The algorithms' paths want 110 to 255
// registers per thread (ptxas 13.0, sm_90), so a block is 256 threads (255 registers each) and a
// large call takes more blocks (channels: planner.cpp), the same threads per byte as 512-thread
// blocks had. At 512 threads (128 registers) 14 of the 22 kernels spilled, Hier's AllReduce 1.5 KB
// with a 656-byte stack frame; at 256 only Hier's two kernels spilled, 24 and 32 bytes, until
// hier.cuh recomputed its per-piece values in each phase (recompute_from): none spills now.
// Compiled per algorithm only (every collective of it behind a switch), from a modified copy of the
// Workspace parameter, with the recursive doubling and Bruck links in arrays indexed by the
// round, the kernels had spilled up to 1.7 KB with stack frames up to 3.3 KB.
// scripts/ptxas_report.py prints ptxas's figures; the tests coll_kernel_ptxas_sm* (label cuda)
// fail when a kernel spills beyond the known budgets (tests/CMakeLists.txt).
#include <cuda_runtime_api.h>

#include <array>
#include <cstdio>
#include <string>
#include <utility>

#include "collectives/coll_launch.hpp"
#include "gshmem/coll/algorithms.cuh"
#include "gshmem/gshmem.hpp"
#include "host/cuda/cuda_error.hpp"
#include "host/cuda/gpu.hpp"

namespace gshmem::coll {

namespace {

// Threads per block (channel). The copies and reductions stride over the block; 256 leaves the
// compiler 255 registers per thread for the algorithm set (see the top of this file).
constexpr int kThreads = 256;

// The typed loops. Plain switches: the visit_type / visit_op helpers take lambdas, which device
// code cannot pass to a __host__ __device__ function.
template <class T, class Op>
__device__ __forceinline__ void reduce_as(void* out, const void* const* srcs, int nsrc,
                                          size_t count) {
  if constexpr (op_exists_v<T, Op>) reduce_elements<Block, T, Op>(out, srcs, nsrc, count);
}

template <class T>
__device__ __forceinline__ void reduce_typed(gshmem_redop_t op, void* out, const void* const* srcs,
                                             int nsrc, size_t count) {
  switch (op) {
    case GSHMEM_PROD:
      return reduce_as<T, OpProd>(out, srcs, nsrc, count);
    case GSHMEM_MIN:
      return reduce_as<T, OpMin>(out, srcs, nsrc, count);
    case GSHMEM_MAX:
      return reduce_as<T, OpMax>(out, srcs, nsrc, count);
    case GSHMEM_BAND:
      return reduce_as<T, OpBand>(out, srcs, nsrc, count);
    case GSHMEM_BOR:
      return reduce_as<T, OpBor>(out, srcs, nsrc, count);
    case GSHMEM_BXOR:
      return reduce_as<T, OpBxor>(out, srcs, nsrc, count);
    default:  // SUM, and AVG (SUM, then finish)
      return reduce_as<T, OpSum>(out, srcs, nsrc, count);
  }
}

// Called from every reduction site of the algorithms; one function of its own, not inlined.
__device__ __noinline__ void reduce_any(gshmem_datatype_t t, gshmem_redop_t op, void* out,
                                        const void* const* srcs, int nsrc, size_t count) {
  switch (t) {
    case GSHMEM_FLOAT:
      return reduce_typed<float>(op, out, srcs, nsrc, count);
    case GSHMEM_DOUBLE:
      return reduce_typed<double>(op, out, srcs, nsrc, count);
    case GSHMEM_HALF:
      return reduce_typed<half_t>(op, out, srcs, nsrc, count);
    case GSHMEM_BFLOAT16:
      return reduce_typed<bfloat16_t>(op, out, srcs, nsrc, count);
    case GSHMEM_INT8:
      return reduce_typed<int8_t>(op, out, srcs, nsrc, count);
    case GSHMEM_UINT8:
      return reduce_typed<uint8_t>(op, out, srcs, nsrc, count);
    case GSHMEM_INT16:
      return reduce_typed<int16_t>(op, out, srcs, nsrc, count);
    case GSHMEM_UINT16:
      return reduce_typed<uint16_t>(op, out, srcs, nsrc, count);
    case GSHMEM_INT32:
      return reduce_typed<int32_t>(op, out, srcs, nsrc, count);
    case GSHMEM_UINT32:
      return reduce_typed<uint32_t>(op, out, srcs, nsrc, count);
    case GSHMEM_INT64:
      return reduce_typed<int64_t>(op, out, srcs, nsrc, count);
    case GSHMEM_UINT64:
      return reduce_typed<uint64_t>(op, out, srcs, nsrc, count);
    case GSHMEM_COMPLEXF:
      return reduce_typed<complexf_t>(op, out, srcs, nsrc, count);
    case GSHMEM_COMPLEXD:
      return reduce_typed<complexd_t>(op, out, srcs, nsrc, count);
    default:  // LONGDOUBLE: refused on the host
      return;
  }
}

// AVG's division (the real floating types only).
__device__ __noinline__ void divide_any(gshmem_datatype_t t, void* out, size_t count, int n) {
  switch (t) {
    case GSHMEM_FLOAT:
      return divide_elements<Block, float>(out, count, n);
    case GSHMEM_DOUBLE:
      return divide_elements<Block, double>(out, count, n);
    case GSHMEM_HALF:
      return divide_elements<Block, half_t>(out, count, n);
    case GSHMEM_BFLOAT16:
      return divide_elements<Block, bfloat16_t>(out, count, n);
    default:
      return;
  }
}

// The reducer the algorithms run with in the kernel: (dtype, op) chosen at run time. The host
// checked that the pair exists and is not long double.
struct KernelReducer {
  gshmem_datatype_t dtype;
  gshmem_redop_t op;
  uint32_t es;

  GSHMEM_HD GSHMEM_INLINE size_t esize() const { return es; }
  template <class G>
  GSHMEM_HD GSHMEM_INLINE void reduce(void* out, const void* const* srcs, int nsrc,
                                      size_t count) const {
    static_assert(std::is_same_v<G, Block>, "the collective kernel runs a channel per block");
#if GSHMEM_ON_DEVICE
    reduce_any(dtype, op, out, srcs, nsrc, count);
#endif
  }
  template <class G>
  GSHMEM_HD GSHMEM_INLINE void finish(void* out, size_t count, int n) const {
    static_assert(std::is_same_v<G, Block>, "the collective kernel runs a channel per block");
#if GSHMEM_ON_DEVICE
    if (op == GSHMEM_AVG) divide_any(dtype, out, count, n);
#endif
  }
};

// Wait diagnostics print the call's name: a string the device can read, which the launch puts
// in the Workspace (ws.call) by its device address.
constexpr int kNameBytes = 32;
__device__ const char kCallNames[kNumColls][kNameBytes] = {
    "gshmem_allreduce (stream)",     "gshmem_reduce (stream)",    "gshmem_allgather (stream)",
    "gshmem_reducescatter (stream)", "gshmem_broadcast (stream)", "gshmem_alltoall (stream)"};
static_assert(int(Coll::AllReduce) == 0 && int(Coll::Reduce) == 1 && int(Coll::AllGather) == 2 &&
              int(Coll::ReduceScatter) == 3 && int(Coll::Broadcast) == 4 &&
              int(Coll::AllToAll) == 5);

// The call's number on the team, from the counter in the team's collective area (word 0 of its
// header, the word CPU PEs count in), read by every block and advanced once by the last block to
// read it (word 1 counts the readers). It is read here, not fixed at enqueue time, so that a CUDA
// graph replaying the kernel makes a new call each time: tags must grow from call to call. The
// kernels of one PE's collectives run one after another (the pool is shared), so the count is the
// same on every member that makes the same calls. The algorithms read it from the block's shared
// word (detail::call_seq, for a Workspace whose seq is 0).
__device__ void claim_seq(const Workspace& ws) {
  uint64_t& seq = detail::kernel_call_seq();
  if (threadIdx.x == 0) {
    uint64_t* words = reinterpret_cast<uint64_t*>(ws.c.heap.base + ws.area_off);
    cuda::atomic_ref<uint64_t, cuda::thread_scope_device> calls(words[0]), readers(words[1]);
    const uint64_t last = calls.load(cuda::memory_order_relaxed);
    // acq_rel: every block's read comes before the last block's update.
    if (readers.fetch_add(1, cuda::memory_order_acq_rel) + 1 == uint64_t(ws.nch)) {
      readers.store(0, cuda::memory_order_relaxed);
      calls.store(last + 1, cuda::memory_order_relaxed);
    }
    seq = last + 1;
  }
  __syncthreads();
}

// One kernel per collective and algorithm that runs it (runs_as); Sub is Hier's cross-node
// algorithm (Ring or RecDbl; unused by the others). minBlocks 1: 255 registers per thread at 256
// threads (ptxas's default would aim at more blocks per SM and fewer registers). ws is used as it
// came (seq 0, call set by the launch): its fields are then read from the parameter space where
// they are used, while a modified copy would hold them in registers for the whole kernel.
template <Coll C, Algo A, Algo Sub>
__global__ void __launch_bounds__(kThreads, 1)
    coll_kernel(const Workspace ws, KernelReducer r, CallArgs a) {
  claim_seq(ws);
  run_channel_as<Block, KernelReducer, C, A, Sub>(ws, r, a, int(blockIdx.x));
  if (a.src_pub || a.dst_pub) release_user_buffers<Block>(ws);
}

using Kernel = void (*)(const Workspace, KernelReducer, CallArgs);

// kKernels[c][a]: the kernel of collective c run by algorithm a, nullptr where a does not
// implement c. Column kHierRd is Hier with recursive doubling across nodes (column Hier: with the
// ring).
constexpr int kHierRd = kNumAlgos;
constexpr int kColumns = kNumAlgos + 1;
using KernelRow = std::array<Kernel, kColumns>;

template <Coll C, int A>
constexpr Kernel kernel_of() {
  if constexpr (A == kHierRd) {
    if constexpr (implements(Algo::Hier, C)) return coll_kernel<C, Algo::Hier, Algo::RecDbl>;
    return nullptr;
  } else if constexpr (implements(Algo(A), C)) {
    return coll_kernel<C, Algo(A), Algo::Ring>;
  } else {
    return nullptr;
  }
}

template <Coll C, int... A>
constexpr KernelRow kernel_row(std::integer_sequence<int, A...>) {
  return {kernel_of<C, A>()...};
}

template <int... C>
constexpr std::array<KernelRow, kNumColls> kernel_table(std::integer_sequence<int, C...>) {
  return {kernel_row<Coll(C)>(std::make_integer_sequence<int, kColumns>{})...};
}

constexpr std::array<KernelRow, kNumColls> kKernels =
    kernel_table(std::make_integer_sequence<int, kNumColls>{});

// The kernel of a call's plan: what run_channel would run (runs_as); nullptr for a plan without an
// algorithm.
Kernel kernel_for(Coll coll, const Workspace& ws) {
  if (ws.algo == Algo::Auto || int(ws.algo) >= kNumAlgos || int(coll) >= kNumColls) return nullptr;
  const Algo a = runs_as(ws.algo, coll);
  const int column = a == Algo::Hier && ws.sub == Algo::RecDbl ? kHierRd : int(a);
  return kKernels[size_t(coll)][size_t(column)];
}

// Calls f(kernel) for every kernel of the table.
template <class F>
void for_each_kernel(F&& f) {
  for (const KernelRow& row : kKernels) {
    for (Kernel k : row) {
      if (k) f(k);
    }
  }
}

[[maybe_unused]] const bool coll_kernels_registered = [] {
  for_each_kernel([](Kernel k) {
    gpu::register_kernel(reinterpret_cast<const void*>(k), "the collective kernels");
  });
  return true;
}();

// What one device can hold of the kernel, asked once per device.
struct DeviceLimits {
  bool known = false;
  int max_blocks = 0;                // resident at once: blocks per SM x SMs
  bool pageable = false;             // kernels may read pageable host memory (HMM/ATS)
  const char* call_names = nullptr;  // kCallNames on the device
};

const DeviceLimits& limits(int device, const char* call) {
  static thread_local DeviceLimits cache[64];
  DeviceLimits& l = cache[device & 63];
  if (!l.known) {
    int sms = 0, per_sm = 1 << 30, pageable = 0;
    gpu::cuda_check(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device), call,
                    "cudaDeviceGetAttribute(MultiProcessorCount)");
    for_each_kernel([&](Kernel k) {  // the least any of them allows
      int n = 0;
      gpu::cuda_check(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&n, k, kThreads, 0), call,
                      "cudaOccupancyMaxActiveBlocksPerMultiprocessor (collective kernel)");
      per_sm = n < per_sm ? n : per_sm;
    });
    if (cudaDeviceGetAttribute(&pageable, cudaDevAttrPageableMemoryAccess, device) != cudaSuccess) {
      (void)cudaGetLastError();
      pageable = 0;
    }
    void* names = nullptr;
    gpu::cuda_check(cudaGetSymbolAddress(&names, kCallNames), call,
                    "cudaGetSymbolAddress (collective call names)");
    l.call_names = static_cast<const char*>(names);
    l.max_blocks = sms * per_sm;
    l.pageable = pageable != 0;
    l.known = true;
  }
  return l;
}

}  // namespace

void check_reachable(gpu::Queue& q, const char* call, const char* arg, const void* p,
                     uint64_t bytes) {
  if (!p || !bytes) return;
  q.make_current();
  if (limits(q.device(), call).pageable) return;
  cudaPointerAttributes at{};
  cudaError_t rc = cudaPointerGetAttributes(&at, p);
  if (rc != cudaSuccess)
    gpu::cuda_fail(rc, call, std::string("cudaPointerGetAttributes(") + arg + ")");
  if (at.type == cudaMemoryTypeUnregistered ||
      (at.type == cudaMemoryTypeHost && !at.devicePointer)) {
    char where[32];
    std::snprintf(where, sizeof where, "%p", p);
    throw Error(GSHMEM_ERROR_INVALID_ARGUMENT, call, arg,
                std::string(arg) + "=" + where +
                    " is host memory the GPU cannot reach (a stream-ordered call on a GPU "
                    "heap needs device, managed or pinned mapped memory)");
  }
}

void launch_call(gpu::Queue& q, const char* call, const GpuCall& c) {
  q.make_current();
  const DeviceLimits& l = limits(q.device(), call);
  if (c.ws.nch < 1 || c.ws.nch > l.max_blocks) {
    throw Error(GSHMEM_ERROR_INVALID_ARGUMENT, call, "",
                "the plan's " + std::to_string(c.ws.nch) + " channels need as many blocks of " +
                    std::to_string(kThreads) +
                    " threads resident at once (they wait for each other), but device " +
                    std::to_string(q.device()) + " holds at most " + std::to_string(l.max_blocks) +
                    " of them (lower GSHMEM_NCHANNELS)");
  }
  cudaStream_t s = static_cast<cudaStream_t>(c.stream);  // nullptr: the legacy default stream
  CallArgs a = c.args;
  Workspace ws = c.ws;
  ws.seq = 0;  // the kernel claims it (detail::call_seq)
  ws.call = l.call_names + size_t(c.coll) * kNameBytes;
  void* staged = nullptr;
  if (c.stage_src && c.src_bytes) {
    // Stream-ordered scratch: the copy, the kernel and the release are all on s (and in a graph,
    // when captured).
    gpu::cuda_check(cudaMallocAsync(&staged, c.src_bytes, s), call,
                    "cudaMallocAsync (staging src)");
    gpu::cuda_check(cudaMemcpyAsync(staged, a.src, c.src_bytes, cudaMemcpyDefault, s), call,
                    "cudaMemcpyAsync (staging src)");
    a.src = staged;
  }
  const Kernel kernel = kernel_for(c.coll, c.ws);
  if (!kernel) {
    throw Error(GSHMEM_ERROR_INTERNAL, call, "",
                "the plan names no algorithm (" + std::to_string(int(c.ws.algo)) + ")");
  }
  kernel<<<ws.nch, kThreads, 0, s>>>(ws, KernelReducer{c.dtype, c.op, c.es}, a);
  cudaError_t rc = cudaGetLastError();
  if (staged) {
    cudaError_t frc = cudaFreeAsync(staged, s);
    if (rc == cudaSuccess) rc = frc;
  }
  gpu::cuda_check(rc, call, "collective kernel launch");
  if (!c.stream) {
    gpu::cuda_check(cudaStreamSynchronize(s), call, "collective kernel (legacy default stream)");
  }
}

}  // namespace gshmem::coll
