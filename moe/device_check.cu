// Instantiates the MoE exchange steps for a thread block and a warp under nvcc, so a step that
// does not compile for the device breaks the build. Nothing here runs (there may be no GPU): these
// are the kernels a stream-ordered dispatch/combine would launch, one block per peer (send steps)
// or per source (receive steps), with the routing tables built on the device.
#include "moe/exchange.cuh"
#include "moe/routing.cuh"
#include "moe/weighted_sum.cuh"

namespace gshmem::moe::detail {

template <class G>
__device__ void dispatch_steps(const DeviceContext& c, const Plan& p, uint64_t epoch, const char* x,
                               const float* scales, const int32_t* indices, int32_t tokens) {
  route<G>(p, indices, tokens, epoch);
  send_counts<G>(c, p, epoch, int32_t(blockIdx.x), {"gshmem_moe_dispatch_send"});
  for_each_arrival<G>(c, p, kCounts, epoch, "gshmem_moe_dispatch_send", [](int32_t) {});
  load_counts<G>(p, epoch);
  plan_call<G>(p);
  place_pairs<G>(p, indices, tokens);
  send_tokens<G>(c, p, epoch, int32_t(blockIdx.x), x, scales, {"gshmem_moe_dispatch_send"});
  for_each_arrival<G>(c, p, kTokens, epoch, "gshmem_moe_dispatch_recv",
                      [&](int32_t s) { unpack_landing<G>(p, s); });
}

template <class G, class Y>
__device__ void combine_steps(const DeviceContext& c, const Plan& p, uint64_t epoch, const char* y,
                              const float* weights, Y* out, int32_t tokens, float* acc) {
  send_outputs<G>(c, p, epoch, int32_t(blockIdx.x), y, {"gshmem_moe_combine_send"});
  for_each_arrival<G>(c, p, kOutputs, epoch, "gshmem_moe_combine_recv", [](int32_t) {});
  weighted_sum<G>(p, weights, out, tokens, acc, static_cast<const Y*>(nullptr));
}

__global__ void check_block(DeviceContext c, Plan p, uint64_t epoch, const char* x,
                            const float* scales, const int32_t* indices, int32_t tokens,
                            const char* y, const float* weights, coll::bfloat16_t* out,
                            float* acc) {
  dispatch_steps<Block>(c, p, epoch, x, scales, indices, tokens);
  combine_steps<Block>(c, p, epoch, y, weights, out, tokens, acc);
}

__global__ void check_warp(DeviceContext c, Plan p, uint64_t epoch, const char* x,
                           const float* scales, const int32_t* indices, int32_t tokens,
                           const char* y, const float* weights, coll::half_t* out, float* out32,
                           float* acc) {
  dispatch_steps<Warp>(c, p, epoch, x, scales, indices, tokens);
  combine_steps<Warp>(c, p, epoch, y, weights, out, tokens, acc);
  weighted_sum<Warp>(p, weights, out32, tokens, acc, reinterpret_cast<const float*>(y));
}

}  // namespace gshmem::moe::detail
