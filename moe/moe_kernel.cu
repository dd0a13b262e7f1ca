// The kernels of dispatch and combine on a GPU heap: one per step of moe/steps.cuh, run by
// blocks of kStepThreads threads (G = Block), block b being group b of the step. The steps are the
// code CPU PEs run (with G = Thread, or host thread groups in the tests). minBlocks 1 in the
// launch bounds: without it ptxas capped some steps at 32 registers and spilled (the Sum step's
// weighted sums among them); with it they take 30 to 94 and none spills (ctest
// moe_kernel_ptxas_sm*).
#include <cuda_runtime_api.h>

#include "host/cuda/cuda_error.hpp"
#include "host/cuda/gpu.hpp"
#include "moe/moe_launch.hpp"

namespace gshmem::moe::detail {

namespace {

template <Step S>
__global__ void __launch_bounds__(kStepThreads, 1) step_kernel(StepArgs a) {
  run_step<S, Block>(a, int32_t(blockIdx.x), int32_t(gridDim.x));
}

using Kernel = void (*)(StepArgs);

constexpr Kernel kKernels[] = {
    step_kernel<Step::Begin>,       step_kernel<Step::Counts>, step_kernel<Step::Plan>,
    step_kernel<Step::Tokens>,      step_kernel<Step::Recv>,   step_kernel<Step::Outputs>,
    step_kernel<Step::WaitOutputs>, step_kernel<Step::Sum>,
};
constexpr const char* kKernelNames[] = {"moe begin",        "moe counts", "moe plan",
                                        "moe tokens",       "moe recv",   "moe outputs",
                                        "moe wait outputs", "moe sum"};
static_assert(sizeof kKernels / sizeof kKernels[0] == int(Step::Sum) + 1);

// Loaded with the PE's queue, not at their first launch (see gpu::register_kernel).
[[maybe_unused]] const bool kRegistered = [] {
  for (int i = 0; i <= int(Step::Sum); ++i) {
    gpu::register_kernel(reinterpret_cast<const void*>(kKernels[i]), kKernelNames[i]);
  }
  return true;
}();

}  // namespace

void launch_step(gpu::Queue& q, Step s, const StepArgs& a, int32_t blocks, void* stream,
                 const char* call) {
  q.make_current();
  kKernels[int(s)]<<<unsigned(blocks), kStepThreads, 0, static_cast<cudaStream_t>(stream)>>>(a);
  gpu::cuda_check(cudaGetLastError(), call, kKernelNames[int(s)]);
}

void sync_stream(gpu::Queue& q, void* stream, const char* call) {
  q.make_current();
  gpu::cuda_check(cudaStreamSynchronize(static_cast<cudaStream_t>(stream)), call, "MoE kernels");
}

}  // namespace gshmem::moe::detail
