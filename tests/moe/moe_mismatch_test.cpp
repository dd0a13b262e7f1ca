// GSHMEM_CHECK_CALLS (collectives/call_check.hpp) for MoE: a config that differs across PEs fails
// gshmem_moe_create on every PE naming the field; a dispatch on one PE against another call (or
// another handle) on the others fails alike; afterwards matched calls are exact against the
// reference.
#include <gtest/gtest.h>

#include <cstdlib>
#include <string>

#include "gshmem/collectives.h"
#include "tests/common/mismatch_text.hpp"
#include "tests/moe/moe_check.hpp"

using namespace moe_test;
using gshmem_test::job_seed;
using gshmem_test::key;

using gshmem_test::odd_one;
using gshmem_test::pes;
using gshmem_test::split;

namespace {

int me() {
  return gshmem_my_pe();
}
int npes() {
  return gshmem_n_pes();
}

Config shape() {
  Config c;
  c.max_tokens = 16;
  c.num_experts = 2 * npes();
  c.experts_per_token = 2;
  c.hidden = 32;
  return c;
}

// What creating a handle with `cfg` on this PE threw ("" when it did not).
std::string create_error(const Config& cfg) {
  try {
    AllToAll a2a(cfg);
  } catch (const gshmem::Error& e) {
    EXPECT_EQ(e.status(), GSHMEM_ERROR_INVALID_ARGUMENT);
    return e.what();
  }
  return "";
}

void matched_call(AllToAll& a2a, const char* after) {
  SCOPED_TRACE(std::string("matched call after: ") + after);
  const Config& cfg = a2a.config();
  uint64_t seed = key(job_seed(), "mismatch", after);
  run_call(a2a, uniform_inputs(cfg, npes(), seed), me());
}

TEST(MoeMismatch, SettingIsOn) {
  const char* v = std::getenv("GSHMEM_CHECK_CALLS");
  ASSERT_TRUE(v && std::string(v) == "1") << "these tests need GSHMEM_CHECK_CALLS=1";
}

TEST(MoeMismatch, Config) {
  Config c = shape();
  if (odd_one()) c.hidden = 48;
  EXPECT_EQ(create_error(c), "gshmem_moe_create: argument 'hidden' differs across PEs: " +
                                 split("32", "48") + " (team WORLD)");
  c = shape();
  if (odd_one()) c.experts_per_token = 3;
  EXPECT_EQ(create_error(c),
            "gshmem_moe_create: argument 'experts_per_token' differs across PEs: " +
                split("2", "3") + " (team WORLD)");
  c = shape();
  if (odd_one()) c.dispatch_type = DType::Bytes;
  EXPECT_EQ(create_error(c), "gshmem_moe_create: argument 'dispatch_type' differs across PEs: " +
                                 split("GSHMEM_MOE_BFLOAT16", "GSHMEM_MOE_BYTES") +
                                 " (team WORLD)");
  c = shape();
  if (odd_one()) c.capacity_factor = 1.5;
  EXPECT_EQ(create_error(c), "gshmem_moe_create: argument 'capacity_factor' differs across PEs: " +
                                 split("0", "1.5") + " (team WORLD)");
  // A config only one PE rejects (num_experts not a multiple of the team): the others are told.
  c = shape();
  if (odd_one()) c.num_experts = 2 * npes() + 1;
  const std::string err = create_error(c);
  EXPECT_NE(err.find("gshmem_moe_create: argument 'num_experts' differs across PEs"),
            std::string::npos)
      << err;
  AllToAll a2a(shape());
  matched_call(a2a, "config");
}

// PE 0 dispatches while the others allreduce; then PE 0 dispatches on another handle.
TEST(MoeMismatch, CallAndHandle) {
  AllToAll a2a(shape());
  AllToAll other(shape());
  int32_t* sym = static_cast<int32_t*>(gshmem_malloc(2 * 64 * sizeof(int32_t)));
  const ref::Inputs in =
      ref::synthesize_all(a2a.config(), npes(), std::vector<int32_t>(size_t(npes()), 0),
                          ref::Routing::Uniform, 1)[size_t(me())];
  const std::string groups =
      "PE 0 = gshmem_moe_dispatch_send, " + pes(1, npes()) + " = gshmem_allreduce";
  if (me() == 0) {
    std::string what;
    try {
      a2a.dispatch_send(in.x.data(), nullptr, in.indices.data(), &in.tokens);
    } catch (const gshmem::Error& e) {
      what = e.what();
    }
    EXPECT_EQ(what,
              "gshmem_moe_dispatch_send: 'call' differs across PEs: " + groups + " (team WORLD)");
  } else {
    EXPECT_EQ(
        gshmem_allreduce(GSHMEM_TEAM_WORLD, sym + 64, sym, 64, GSHMEM_INT32, GSHMEM_SUM, nullptr),
        GSHMEM_ERROR_INVALID_ARGUMENT);
    EXPECT_EQ(std::string(gshmemx_get_last_error()),
              "gshmem_allreduce: 'call' differs across PEs: " + groups + " (team WORLD)");
  }
  matched_call(a2a, "call");

  std::string what;
  try {
    (odd_one() ? other : a2a).dispatch_send(in.x.data(), nullptr, in.indices.data(), &in.tokens);
  } catch (const gshmem::Error& e) {
    what = e.what();
  }
  EXPECT_NE(what.find("gshmem_moe_dispatch_send: argument 'handle' differs across PEs: " +
                      pes(0, npes() - 1) + " = "),
            std::string::npos)
      << what;
  matched_call(a2a, "handle");
  matched_call(other, "handle (the other handle)");
  gshmem_barrier_all();
  gshmem_free(sym);
}

}  // namespace
