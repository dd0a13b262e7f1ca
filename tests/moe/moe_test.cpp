// MoE dispatch/combine on CPU PEs, against the plain reference: payload types, top-k 1..8, skewed
// and masked routings, members with no tokens, back-to-back calls without barriers, the split
// send/receive halves, capacity overflow (reported alike on every member, then retried), bad
// input, data-parallel groups, sub-teams and the C API. Run within one node and across virtual
// nodes (--ppn), where batches travel through the network transport.
//
// Every PE runs every test and reaches the same collective calls; inputs come from the job seed
// (MP_TEST_SEED reproduces a run). MP_TEST_SIMT=THREADSxWARP (tests/simt) runs the exchange steps
// with host thread groups of that shape, as kernels would run them.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "gshmem/moe.h"
#include "moe/test_hooks.hpp"
#include "tests/moe/moe_check.hpp"

extern "C" int moe_c_create(int n_pes, gshmem_moe_handle_t* handle);  // capi_c.c

namespace {

// Before main: every handle of the run is made under it.
const bool kHostGroups = [] {
  const char* v = std::getenv("MP_TEST_SIMT");
  gshmem::simt::Grid g{1, 0, 0};
  if (!v || std::sscanf(v, "%ux%u", &g.threads, &g.warp) != 2 || g.threads == 0) return false;
  gshmem::moe::set_host_groups(&g);
  return true;
}();

using namespace moe_test;
using gshmem::moe::CapacityError;
using gshmem_test::job_seed;
using gshmem_test::key;

int me() {
  return gshmem_my_pe();
}
int npes() {
  return gshmem_n_pes();
}

TEST(Moe, PayloadTypes) {
  for (const moe_test::PayloadCase& t : moe_test::payload_cases()) {
    Config cfg = shape(npes(), 3, t.x, t.y);
    cfg.scale_block = t.scale_block;
    SCOPED_TRACE("dispatch " + std::to_string(int(t.x)) + " combine " + std::to_string(int(t.y)) +
                 " scale_block " + std::to_string(t.scale_block));
    AllToAll a2a(cfg);
    for (int call = 0; call < 2; ++call) {
      uint64_t seed = key(job_seed(), "types", int(t.x), int(t.y), call);
      auto all = uniform_inputs(cfg, npes(), seed);
      run_call(a2a, all, me());
    }
  }
}

TEST(Moe, TopK) {
  for (int k = 1; k <= 8; ++k) {
    SCOPED_TRACE("top-" + std::to_string(k));
    Config cfg = shape(npes(), k);
    AllToAll a2a(cfg);
    uint64_t seed = key(job_seed(), "topk", k);
    run_call(a2a, uniform_inputs(cfg, npes(), seed), me());
  }
}

// Every token of every member to the same experts: expert 0 gets the worst case, exactly full.
TEST(Moe, Skewed) {
  Config cfg = shape(npes(), 3, DType::Bytes, DType::BF16);
  AllToAll a2a(cfg);
  std::vector<int32_t> full(size_t(npes()), cfg.max_tokens);
  uint64_t seed = key(job_seed(), "skewed");
  auto all = ref::synthesize_all(cfg, npes(), full, ref::Routing::Skewed, seed);
  run_call(a2a, all, me());
  EXPECT_EQ(a2a.info().expert_capacity, npes() * cfg.max_tokens);
}

TEST(Moe, ZeroTokens) {
  Config cfg = shape(npes(), 2);
  AllToAll a2a(cfg);
  uint64_t seed = key(job_seed(), "zero");
  std::vector<int32_t> tokens = random_tokens(cfg, npes(), seed);
  tokens[0] = 0;
  if (npes() > 2) tokens[size_t(npes() - 1)] = 0;
  run_call(a2a, ref::synthesize_all(cfg, npes(), tokens, ref::Routing::Uniform, seed), me());
  // Nobody has anything.
  run_call(a2a,
           ref::synthesize_all(cfg, npes(), std::vector<int32_t>(size_t(npes()), 0),
                               ref::Routing::Uniform, seed),
           me());
}

TEST(Moe, Masked) {
  Config cfg = shape(npes(), 4, DType::F16, DType::F32);
  AllToAll a2a(cfg);
  uint64_t seed = key(job_seed(), "masked");
  run_call(a2a,
           ref::synthesize_all(cfg, npes(), random_tokens(cfg, npes(), seed), ref::Routing::Masked,
                               seed),
           me());
}

// Calls follow each other with no barrier; members drift apart with random pauses (in and between
// the halves), so a fast member's next call meets a slow member still in the previous one. Twice:
// with worst-case buffers (network batches leave before the counts are in) and sized by a factor
// large enough for anything (batches leave after the capacity check, so a receiver waits on them
// at once: any reliance on arrival order shows under reordering fault injection).
TEST(Moe, BackToBack) {
  for (double factor : {0.0, 1e6}) {
    SCOPED_TRACE("capacity_factor " + std::to_string(factor));
    Config cfg = shape(npes(), 2, DType::Bytes, DType::BF16);
    cfg.scale_block = 8;
    cfg.capacity_factor = factor;
    AllToAll a2a(cfg);
    uint64_t rng = key(job_seed(), "jitter", me());
    const int calls = std::max(4, 24 / npes());
    for (int call = 0; call < calls; ++call) {
      uint64_t seed = key(job_seed(), "b2b", call);
      ref::Routing r = call % 3 == 2 ? ref::Routing::Skewed : ref::Routing::Uniform;
      auto all = ref::synthesize_all(cfg, npes(), random_tokens(cfg, npes(), seed), r, seed);
      gshmem_test::jitter(rng, 300);
      run_call(a2a, all, me(), call % 2 == 1, [&] { gshmem_test::jitter(rng, 300); });
    }
  }
}

// A handle sized by capacity factor: a call that does not fit is reported on every member with
// the same details, nothing is exchanged, the handle stays usable, and a handle made with the
// reported factor takes the same call.
TEST(Moe, CapacityOverflow) {
  Config cfg = shape(npes(), 2);
  cfg.capacity_factor = 1.0;
  std::vector<int32_t> full(size_t(npes()), cfg.max_tokens);
  uint64_t seed = key(job_seed(), "capacity");
  auto skewed = ref::synthesize_all(cfg, npes(), full, ref::Routing::Skewed, seed);
  double factor = 0;
  {
    AllToAll a2a(cfg);
    const int avg = npes() * cfg.max_tokens * cfg.experts_per_token / cfg.num_experts;
    EXPECT_EQ(a2a.info().expert_capacity, std::max(1, avg));
    const ref::Inputs& in = skewed[size_t(me())];
    try {
      a2a.dispatch(in.x.data(), nullptr, in.indices.data(), &in.tokens);
      ADD_FAILURE() << "a skewed call fit a capacity-sized buffer";
    } catch (const CapacityError& e) {
      const gshmem::moe::Overflow& o = e.overflow();
      EXPECT_EQ(e.status(), GSHMEM_ERROR_CAPACITY);
      EXPECT_EQ(o.kind, GSHMEM_MOE_OVERFLOW_EXPERT);
      EXPECT_EQ(o.expert, 0);  // the first expert found full, the same on every member
      EXPECT_EQ(o.dest, 0);
      EXPECT_EQ(o.count, npes() * cfg.max_tokens);
      EXPECT_EQ(o.capacity, a2a.info().expert_capacity);
      EXPECT_EQ(o.source, (a2a.info().expert_capacity) / cfg.max_tokens);
      EXPECT_NE(std::string(e.what()).find("expert 0"), std::string::npos) << e.what();
      factor = o.min_capacity_factor;
    }
    // Still usable: a call that fits.
    Config small = cfg;
    auto few = ref::synthesize_all(small, npes(), std::vector<int32_t>(size_t(npes()), 1),
                                   ref::Routing::Uniform, seed + 1);
    run_call(a2a, few, me());
  }
  ASSERT_GT(factor, 1.0);
  cfg.capacity_factor = factor;
  AllToAll bigger(cfg);
  EXPECT_EQ(bigger.info().expert_capacity, npes() * cfg.max_tokens);
  run_call(bigger, skewed, me());
}

// Each member sends all its tokens to the next member's experts: every expert carries exactly
// the average load or less, but each pair of neighbours carries n times the average. With a
// capacity factor of 1.5 that fits on one node and overflows a landing zone across nodes.
TEST(Moe, LandingOverflow) {
  Config cfg = shape(npes(), 2);
  cfg.capacity_factor = 1.5;
  const int L = cfg.num_experts / npes();
  std::vector<int32_t> full(size_t(npes()), cfg.max_tokens);
  auto all =
      ref::synthesize_all(cfg, npes(), full, ref::Routing::Uniform, key(job_seed(), "landing"));
  for (int s = 0; s < npes(); ++s) {
    ref::Inputs& in = all[size_t(s)];
    for (int t = 0; t < in.tokens; ++t) {
      for (int k = 0; k < cfg.experts_per_token; ++k) {
        in.indices[size_t(t * cfg.experts_per_token + k)] = (s + 1) % npes() * L + (t + k) % L;
      }
    }
  }
  AllToAll a2a(cfg);
  if (!gshmem_test::split_nodes()) {
    run_call(a2a, all, me());
    return;
  }
  const ref::Inputs& in = all[size_t(me())];
  try {
    a2a.dispatch(in.x.data(), nullptr, in.indices.data(), &in.tokens);
    ADD_FAILURE() << "the landing zones should not take this call";
  } catch (const CapacityError& e) {
    EXPECT_EQ(e.overflow().kind, GSHMEM_MOE_OVERFLOW_LANDING) << e.what();
    EXPECT_EQ(e.overflow().count, cfg.max_tokens * cfg.experts_per_token);
    EXPECT_EQ(e.overflow().dest, (e.overflow().source + 1) % npes());
    EXPECT_GE(e.overflow().min_capacity_factor, double(npes()) - 1e-6);
  }
}

// Bad input on one member fails the call on every member (nobody waits for the tokens it never
// sends) and leaves the handle usable.
TEST(Moe, BadInput) {
  Config cfg = shape(npes(), 2);
  AllToAll a2a(cfg);
  uint64_t seed = key(job_seed(), "bad");
  auto all = ref::synthesize_all(cfg, npes(), std::vector<int32_t>(size_t(npes()), 4),
                                 ref::Routing::Uniform, seed);
  ref::Inputs in = all[size_t(me())];
  const int culprit = npes() - 1;
  if (me() == culprit) in.indices[3] = cfg.num_experts;
  try {
    a2a.dispatch(in.x.data(), nullptr, in.indices.data(), &in.tokens);
    ADD_FAILURE() << "a bad expert index went unreported";
  } catch (const gshmem::Error& e) {
    EXPECT_EQ(e.status(), GSHMEM_ERROR_INVALID_ARGUMENT);
    if (me() == culprit) {
      EXPECT_EQ(e.argument(), "indices");
      EXPECT_NE(std::string(e.what()).find("indices[1][1]"), std::string::npos) << e.what();
    } else {
      EXPECT_NE(std::string(e.what()).find("PE " + std::to_string(culprit)), std::string::npos)
          << e.what();
    }
  }
  // An expert twice in one token, on member 0.
  ref::Inputs twice = all[size_t(me())];
  if (me() == 0) twice.indices[1] = twice.indices[0];
  try {
    a2a.dispatch(twice.x.data(), nullptr, twice.indices.data(), &twice.tokens);
    ADD_FAILURE() << "a repeated expert went unreported";
  } catch (const gshmem::Error& e) {
    if (me() == 0) {
      EXPECT_NE(std::string(e.what()).find("repeats"), std::string::npos) << e.what();
    }
  }
  // Too many tokens on member 0.
  int32_t too_many = cfg.max_tokens + 1;
  const int32_t* count = me() == 0 ? &too_many : &all[size_t(me())].tokens;
  EXPECT_THROW(
      a2a.dispatch(all[size_t(me())].x.data(), nullptr, all[size_t(me())].indices.data(), count),
      gshmem::Error);
  // Calls out of order and streams are refused where they are made, without communicating.
  EXPECT_THROW(a2a.combine_send(all[0].x.data()), gshmem::Error);
  EXPECT_THROW(a2a.dispatch_recv(), gshmem::Error);
  int stream;
  EXPECT_THROW(a2a.dispatch(in.x.data(), nullptr, in.indices.data(), &in.tokens, &stream),
               gshmem::Error);
  run_call(a2a, all, me());
}

// combine() reads a member's own outputs where the experts left them; here that is the batch's own
// x (allowed when the types match), which peers must not overwrite before every member is done.
// Back to back with jitter, alone and in DP groups.
TEST(Moe, OutputsInPlace) {
  for (int dp : {1, 2}) {
    if (npes() % dp) continue;
    for (DType t : {DType::F32, DType::BF16}) {
      SCOPED_TRACE("dp " + std::to_string(dp) + " type " + std::to_string(int(t)));
      Config cfg = shape(npes(), 3, t, t);
      cfg.dp_size = dp;
      AllToAll a2a(cfg);
      uint64_t rng = key(job_seed(), "inplace jitter", me(), dp, int(t));
      for (int call = 0; call < 4; ++call) {
        uint64_t seed = key(job_seed(), "inplace", dp, int(t), call);
        auto all = uniform_inputs(cfg, npes(), seed);
        const ref::Inputs& in = all[size_t(me())];
        ExpertBatch b = a2a.dispatch(in.x.data(), nullptr, in.indices.data(), &in.tokens);
        const size_t bytes = size_t(b.num_local_experts) * size_t(b.expert_capacity) * y_bytes(cfg);
        std::vector<uint8_t> y(bytes);
        ref::run_experts(cfg, me(), b, y.data());
        std::memcpy(b.x, y.data(), bytes);
        gshmem_test::jitter(rng, 300);
        std::vector<uint8_t> out(size_t(in.tokens) * y_bytes(cfg) + 1);
        a2a.combine(out.data(), b.x, in.weights.data());
        EXPECT_EQ(ref::check_combine(cfg, out.data(), ref::expected_combine(cfg, npes(), all, me()),
                                     in.tokens),
                  "")
            << gshmem_test::seed_note();
      }
    }
  }
}

// combine() with no output buffer on one member: reported there after its outputs went out (the
// others finish), and the combine_recv that follows gets every row, its own ones too.
TEST(Moe, CombineWithoutOutput) {
  Config cfg = shape(npes(), 3);
  AllToAll a2a(cfg);
  uint64_t seed = key(job_seed(), "no out");
  auto all = ref::synthesize_all(cfg, npes(), std::vector<int32_t>(size_t(npes()), 4),
                                 ref::Routing::Uniform, seed);
  const ref::Inputs& in = all[size_t(me())];
  ExpertBatch b = a2a.dispatch(in.x.data(), nullptr, in.indices.data(), &in.tokens);
  std::vector<uint8_t> y(size_t(b.num_local_experts) * size_t(b.expert_capacity) * y_bytes(cfg));
  ref::run_experts(cfg, me(), b, y.data());
  std::vector<uint8_t> out(size_t(in.tokens) * y_bytes(cfg) + 1);
  if (me() == 0) {
    EXPECT_THROW(a2a.combine(nullptr, y.data(), in.weights.data()), gshmem::Error);
    std::fill(y.begin(), y.end(), uint8_t(0xff));  // combine_send's contract: y is free again
    a2a.combine_recv(out.data(), in.weights.data());
  } else {
    a2a.combine(out.data(), y.data(), in.weights.data());
  }
  EXPECT_EQ(
      ref::check_combine(cfg, out.data(), ref::expected_combine(cfg, npes(), all, me()), in.tokens),
      "")
      << gshmem_test::seed_note();
  run_call(a2a, all, me());
}

TEST(Moe, DataParallel) {
  if (npes() % 2) GTEST_SKIP() << "needs an even team";
  Config cfg = shape(npes(), 3, DType::Bytes, DType::BF16);
  cfg.dp_size = 2;
  AllToAll a2a(cfg);
  EXPECT_EQ(a2a.info().expert_capacity, npes() / 2 * cfg.max_tokens);
  for (int call = 0; call < 2; ++call) {
    uint64_t seed = key(job_seed(), "dp", call);
    std::vector<int32_t> tokens = random_tokens(cfg, npes(), seed);
    if (call == 1) tokens[0] = 0;
    run_call(a2a, ref::synthesize_all(cfg, npes(), tokens, ref::Routing::Uniform, seed), me());
  }
}

// Two teams (even and odd PEs) exchanging at once, each with its own handle.
TEST(Moe, SubTeams) {
  if (npes() < 4) GTEST_SKIP() << "needs 4 PEs";
  gshmem_team_t even, odd;
  ASSERT_EQ(gshmem_team_split_strided(GSHMEM_TEAM_WORLD, 0, 2, npes() / 2, nullptr, 0, &even), 0);
  ASSERT_EQ(gshmem_team_split_strided(GSHMEM_TEAM_WORLD, 1, 2, npes() / 2, nullptr, 0, &odd), 0);
  gshmem_team_t team = me() % 2 ? odd : even;
  const int n = gshmem_team_n_pes(team), my = gshmem_team_my_pe(team);
  Config cfg = shape(n, 2);
  cfg.team = team;
  {
    AllToAll a2a(cfg);
    for (int call = 0; call < 2; ++call) {
      uint64_t seed = key(job_seed(), "subteam", me() % 2, call);
      run_call(a2a, uniform_inputs(cfg, n, seed), my);
    }
  }
  gshmem_team_destroy(even);
  gshmem_team_destroy(odd);
}

TEST(Moe, CApi) {
  gshmem_moe_config_t c;
  gshmem_moe_config_init(&c);
  EXPECT_EQ(c.dispatch_type, GSHMEM_MOE_BFLOAT16);
  EXPECT_EQ(c.dp_size, 1);
  c.max_tokens = 8;
  c.num_experts = npes() * 2 + 1;  // not a multiple of the team size
  c.experts_per_token = 2;
  c.hidden = 16;
  c.dispatch_type = GSHMEM_MOE_FLOAT32;
  c.combine_type = GSHMEM_MOE_FLOAT32;
  gshmem_moe_handle_t h = nullptr;
  EXPECT_EQ(gshmem_moe_create(&c, &h), GSHMEM_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(h, nullptr);
  c.num_experts = npes() * 2;
  ASSERT_EQ(moe_c_create(npes(), &h), GSHMEM_SUCCESS);
  gshmem_moe_info_t info;
  EXPECT_EQ(gshmem_moe_get_info(h, &info), GSHMEM_SUCCESS);
  EXPECT_EQ(info.num_local_experts, 2);
  EXPECT_EQ(info.expert_capacity, npes() * 8);
  EXPECT_GT(info.symmetric_bytes, size_t(2 * npes() * 8 * 16 * 4));

  Config cfg;
  cfg.max_tokens = 8;
  cfg.num_experts = npes() * 2;
  cfg.experts_per_token = 2;
  cfg.hidden = 16;
  cfg.dispatch_type = cfg.combine_type = DType::F32;
  uint64_t seed = key(job_seed(), "capi");
  auto all = uniform_inputs(cfg, npes(), seed);
  const ref::Inputs& in = all[size_t(me())];
  int stream;
  EXPECT_EQ(
      gshmem_moe_dispatch_send(h, in.x.data(), nullptr, in.indices.data(), &in.tokens, &stream),
      GSHMEM_ERROR_INVALID_ARGUMENT);
  gshmem_moe_expert_batch_t b;
  ASSERT_EQ(
      gshmem_moe_dispatch(h, &b, in.x.data(), nullptr, in.indices.data(), &in.tokens, nullptr),
      GSHMEM_SUCCESS);
  EXPECT_EQ(ref::check_dispatch(cfg, npes(), all, me(), b), "");
  std::vector<uint8_t> y(size_t(b.num_local_experts * b.expert_capacity) * y_bytes(cfg));
  ref::run_experts(cfg, me(), b, y.data());
  std::vector<uint8_t> out(size_t(in.tokens) * y_bytes(cfg) + 1);
  EXPECT_EQ(gshmem_moe_combine(h, out.data(), y.data(), in.weights.data(), nullptr),
            GSHMEM_SUCCESS);
  EXPECT_EQ(
      ref::check_combine(cfg, out.data(), ref::expected_combine(cfg, npes(), all, me()), in.tokens),
      "");
  gshmem_moe_overflow_t o;
  EXPECT_EQ(gshmem_moe_last_overflow(h, &o), GSHMEM_SUCCESS);
  EXPECT_EQ(o.kind, GSHMEM_MOE_OVERFLOW_NONE);
  EXPECT_EQ(gshmem_moe_destroy(h), GSHMEM_SUCCESS);

  // A capacity overflow through the C API.
  c.capacity_factor = 1.0;
  ASSERT_EQ(gshmem_moe_create(&c, &h), GSHMEM_SUCCESS);
  auto skewed = ref::synthesize_all(cfg, npes(), std::vector<int32_t>(size_t(npes()), 8),
                                    ref::Routing::Skewed, seed);
  const ref::Inputs& sk = skewed[size_t(me())];
  EXPECT_EQ(
      gshmem_moe_dispatch(h, &b, sk.x.data(), nullptr, sk.indices.data(), &sk.tokens, nullptr),
      GSHMEM_ERROR_CAPACITY);
  EXPECT_EQ(gshmem_moe_last_overflow(h, &o), GSHMEM_SUCCESS);
  EXPECT_EQ(o.kind, GSHMEM_MOE_OVERFLOW_EXPERT);
  EXPECT_EQ(o.count, npes() * 8);
  EXPECT_EQ(gshmem_moe_destroy(h), GSHMEM_SUCCESS);
  EXPECT_EQ(gshmem_moe_dtype_size(GSHMEM_MOE_BYTES), 1u);
}

}  // namespace
