// The stream-ordered path of the NCCL-style collectives on a GPU heap (collectives/coll_kernel.cu):
// the host plans the call as on CPU PEs and enqueues one kernel, ws.nch blocks, block b running
// channel b (run_channel<Block>). No CUDA headers here, so coll_api.cpp compiles without a toolkit.
#pragma once

#include <cstdint>

#include "gshmem/coll/workspace.cuh"
#include "gshmem/collectives.h"

namespace gshmem::gpu {
class Queue;
}

namespace gshmem::coll {

// One call as the kernel needs it. ws.c is the kernel-usable context and ws.team its team entry
// (member list in memory the GPU reads); the launch sets ws.call and the kernel claims the call
// number (ws.seq 0: detail::call_seq).
struct GpuCall {
  Workspace ws;
  Coll coll;
  gshmem_datatype_t dtype;  // never GSHMEM_LONGDOUBLE
  gshmem_redop_t op;        // GSHMEM_SUM for collectives that do not reduce
  uint32_t es;              // element size
  CallArgs args;
  uint64_t src_bytes;  // what the kernel reads from args.src (for staging an overlapping src)
  bool stage_src;      // src overlaps dst in a way the algorithm cannot take: copy it first
  void* stream;        // the application's cudaStream_t; nullptr: blocking (see launch_call)
};

// Checks that src and dst are memory kernels on this PE's device can reach (device memory,
// managed or mapped host memory, or any memory where the device reads pageable memory). Throws
// Error naming the argument otherwise.
void check_reachable(gpu::Queue& q, const char* call, const char* arg, const void* p,
                     uint64_t bytes);

// Enqueues the call's kernel on c.stream and returns (stream-ordered; capturable in a CUDA graph).
// With c.stream == nullptr it runs on the legacy default stream and returns once the result is in
// dst (the legacy stream orders it after the application's work on blocking streams). Throws Error
// (naming the call) when the plan's channels cannot be resident at once on the device, or when
// CUDA refuses the launch; a kernel that fails while the call blocks is reported the same way.
void launch_call(gpu::Queue& q, const char* call, const GpuCall& c);

}  // namespace gshmem::coll
