// gshmem MoE dispatch and combine (C++): gshmem::moe::AllToAll. The contracts (who calls, in
// which order, what each call completes, how errors are reported) are those of gshmem/moe.h;
// here failures throw gshmem::Error, and a capacity overflow throws moe::CapacityError.
//
//   gshmem::moe::Config cfg;
//   cfg.max_tokens = 128; cfg.num_experts = 256; cfg.experts_per_token = 8; cfg.hidden = 7168;
//   cfg.dispatch_type = gshmem::moe::DType::Bytes;  // fp8, with a scale per 128 values
//   gshmem::moe::AllToAll a2a(cfg);                 // collective over the world
//   auto batch = a2a.dispatch(x, scales, indices, &num_tokens);
//   run_experts(batch, y);                          // y shaped like batch.x, combine_type
//   a2a.combine(out, y, weights);
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>

#include "gshmem/gshmem.hpp"
#include "gshmem/moe.h"

namespace gshmem::moe {

enum class DType : int {
  F32 = GSHMEM_MOE_FLOAT32,
  BF16 = GSHMEM_MOE_BFLOAT16,
  F16 = GSHMEM_MOE_FLOAT16,
  Bytes = GSHMEM_MOE_BYTES,
};

inline size_t dtype_size(DType t) {
  return t == DType::F32 ? 4 : t == DType::Bytes ? 1 : 2;
}

// The fields mean what gshmem_moe_config_t's do.
struct Config {
  int max_tokens = 0;
  int num_experts = 0;
  int experts_per_token = 0;
  int hidden = 0;
  DType dispatch_type = DType::BF16;
  DType combine_type = DType::BF16;
  int scale_block = GSHMEM_MOE_SCALE_BLOCK_AUTO;
  gshmem_team_t team = GSHMEM_TEAM_WORLD;
  int dp_size = 1;
  double capacity_factor = 0;

  // Values per scale after AUTO is resolved (0: no scales), and scales per token.
  int resolved_scale_block() const {
    if (scale_block != GSHMEM_MOE_SCALE_BLOCK_AUTO) return scale_block;
    return dispatch_type == DType::Bytes ? GSHMEM_MOE_DEFAULT_SCALE_BLOCK : 0;
  }
  int scales_per_token() const {
    int b = resolved_scale_block();
    return b > 0 ? (hidden + b - 1) / b : 0;
  }
};

using ExpertBatch = gshmem_moe_expert_batch_t;
using Info = gshmem_moe_info_t;
using Overflow = gshmem_moe_overflow_t;

// A dispatch that would overflow a capacity-sized buffer (status GSHMEM_ERROR_CAPACITY). Thrown
// on every member of the team with the same overflow.
class CapacityError : public Error {
 public:
  CapacityError(std::string call, std::string reason, const Overflow& o)
      : Error(GSHMEM_ERROR_CAPACITY, std::move(call), "", std::move(reason)), overflow_(o) {}
  const Overflow& overflow() const { return overflow_; }

 private:
  Overflow overflow_;
};

class AllToAll {
 public:
  // Collective over the world. Throws Error naming the field of a bad config.
  explicit AllToAll(const Config& config);
  // Collective over the world.
  ~AllToAll();
  AllToAll(const AllToAll&) = delete;
  AllToAll& operator=(const AllToAll&) = delete;

  // See gshmem_moe_dispatch_send / _recv / gshmem_moe_dispatch.
  void dispatch_send(const void* x, const float* scales, const int32_t* indices,
                     const int32_t* num_tokens, void* stream = nullptr);
  ExpertBatch dispatch_recv(void* stream = nullptr);
  ExpertBatch dispatch(const void* x, const float* scales, const int32_t* indices,
                       const int32_t* num_tokens, void* stream = nullptr);

  // See gshmem_moe_combine_send / _recv / gshmem_moe_combine.
  void combine_send(const void* expert_y, void* stream = nullptr);
  void combine_recv(void* out, const float* weights, void* stream = nullptr);
  void combine(void* out, const void* expert_y, const float* weights, void* stream = nullptr);

  // See gshmem_moe_sync: waits for `stream`, then throws the failure of a dispatch that ran on
  // the GPU (CapacityError for an overflow). Returns at once on CPU PEs.
  void sync(void* stream = nullptr);

  const Config& config() const;
  Info info() const;

  class Impl;

 private:
  std::unique_ptr<Impl> impl_;
};

}  // namespace gshmem::moe
