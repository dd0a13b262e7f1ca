// Shared by the MoE tests: random token counts, and one full dispatch / experts / combine checked
// against the reference. Every PE regenerates every member's inputs from the job seed
// (reference::synthesize_all): what gathering them would give, without trusting the transport
// under test to do the gathering.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <vector>

#include "gshmem/moe.hpp"
#include "moe/reference.hpp"
#include "tests/common/mp_util.hpp"

namespace moe_test {

namespace ref = gshmem::moe::reference;
using gshmem::moe::AllToAll;
using gshmem::moe::Config;
using gshmem::moe::DType;
using gshmem::moe::ExpertBatch;

// Random token counts in 0..max_tokens per DP group, the same on every PE.
inline std::vector<int32_t> random_tokens(const Config& cfg, int n, uint64_t seed) {
  std::vector<int32_t> t(size_t(n / cfg.dp_size));
  uint64_t s = seed;
  for (auto& v : t) v = int32_t(gshmem_test::splitmix64(s) % uint64_t(cfg.max_tokens + 1));
  return t;
}

// Small shapes: 8 PEs share 2 cores in CI.
inline Config shape(int n, int topk, DType x = DType::BF16, DType y = DType::BF16) {
  Config c;
  c.max_tokens = n >= 8 ? 12 : 24;
  c.num_experts = n * std::max(2, (8 + n - 1) / n);
  c.experts_per_token = topk;
  c.hidden = n >= 8 ? 20 : 40;
  c.dispatch_type = x;
  c.combine_type = y;
  return c;
}

// The payload combinations every MoE test runs: each dispatch and combine type, with and
// without scales.
struct PayloadCase {
  DType x, y;
  int scale_block;
};
inline std::vector<PayloadCase> payload_cases() {
  return {
      {DType::F32, DType::F32, 0},
      {DType::BF16, DType::BF16, 0},
      {DType::F16, DType::F16, 0},
      {DType::Bytes, DType::BF16, GSHMEM_MOE_SCALE_BLOCK_AUTO},  // fp8 + a scale per 128
      {DType::Bytes, DType::F32, 16},                            // several scales per token
      {DType::Bytes, DType::F16, 0},                             // raw bytes, no scales
      {DType::F32, DType::BF16, 8},                              // scales with float values
  };
}

// Every member's inputs for one call: random token counts, uniform routing.
inline std::vector<ref::Inputs> uniform_inputs(const Config& cfg, int n, uint64_t seed) {
  return ref::synthesize_all(cfg, n, random_tokens(cfg, n, seed), ref::Routing::Uniform, seed);
}

inline size_t y_bytes(const Config& cfg) {
  return size_t(cfg.hidden) * gshmem::moe::dtype_size(cfg.combine_type);
}

// One call, end to end, on member `me` of the team; checks dispatch and combine. `between`
// runs between the send and receive halves when `split` (local work that could overlap).
template <class Between>
void run_call(AllToAll& a2a, const std::vector<ref::Inputs>& all, int me, bool split,
              Between&& between) {
  const Config& cfg = a2a.config();
  const int n = int(all.size());
  const ref::Inputs& in = all[size_t(me)];
  const float* scales = in.scales.empty() ? nullptr : in.scales.data();
  ExpertBatch b;
  if (split) {
    a2a.dispatch_send(in.x.data(), scales, in.indices.data(), &in.tokens);
    between();
    b = a2a.dispatch_recv();
  } else {
    b = a2a.dispatch(in.x.data(), scales, in.indices.data(), &in.tokens);
  }
  EXPECT_EQ(ref::check_dispatch(cfg, n, all, me, b), "") << gshmem_test::seed_note();

  std::vector<uint8_t> y(size_t(b.num_local_experts) * size_t(b.expert_capacity) * y_bytes(cfg));
  ref::run_experts(cfg, me, b, y.data());
  std::vector<uint8_t> out(size_t(in.tokens) * y_bytes(cfg) + 1);
  if (split) {
    a2a.combine_send(y.data());
    between();
    a2a.combine_recv(out.data(), in.weights.data());
  } else {
    a2a.combine(out.data(), y.data(), in.weights.data());
  }
  EXPECT_EQ(ref::check_combine(cfg, out.data(), ref::expected_combine(cfg, n, all, me), in.tokens),
            "")
      << gshmem_test::seed_note();
}

inline void run_call(AllToAll& a2a, const std::vector<ref::Inputs>& all, int me) {
  run_call(a2a, all, me, false, [] {});
}

}  // namespace moe_test
