// The GPU heap's path of dispatch and combine (moe/moe_kernel.cu): each step of moe/steps.cuh as
// one kernel on the caller's stream, a block per group. No CUDA headers here, so all_to_all.cpp
// compiles without a toolkit.
#pragma once

#include <cstdint>

#include "moe/steps.cuh"

namespace gshmem::gpu {
class Queue;
}

namespace gshmem::moe::detail {

// Threads per block of the step kernels.
constexpr int32_t kStepThreads = 512;

// Enqueues step s as `blocks` blocks on `stream` (a cudaStream_t; nullptr: the legacy default
// stream) and returns: stream-ordered, capturable in a CUDA graph. Throws Error naming `call` when
// CUDA refuses the launch.
void launch_step(gpu::Queue& q, Step s, const StepArgs& a, int32_t blocks, void* stream,
                 const char* call);

// Waits for everything enqueued on `stream`; a kernel that failed is reported as an Error naming
// `call`.
void sync_stream(gpu::Queue& q, void* stream, const char* call);

}  // namespace gshmem::moe::detail
