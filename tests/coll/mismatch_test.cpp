// GSHMEM_CHECK_CALLS (collectives/call_check.hpp): collectives whose arguments differ across PEs
// fail on every PE with a message naming the call, the argument and the PEs on each side, and
// leave the team usable: after every mismatch a matched call must give the exact result. Run with
// GSHMEM_CHECK_CALLS=1 (the tests' CMake helper sets it for every test), at 2 and 3 PEs (3 shows
// PE lists with more than one PE on a side) and across virtual nodes (the descriptors travel by
// the network transport).
#include <gtest/gtest.h>

#include <cstdlib>
#include <string>
#include <vector>

#include "gshmem/collectives.h"
#include "gshmem/gshmem.h"
#include "tests/common/mp_util.hpp"
#include "tests/common/mismatch_text.hpp"

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

// Symmetric buffers for the calls, and a matched AllReduce that must be exact afterwards.
struct Buffers {
  static constexpr size_t kCount = 1024;
  int32_t* src = static_cast<int32_t*>(gshmem_malloc(kCount * sizeof(int32_t) * 8));
  int32_t* dst = static_cast<int32_t*>(gshmem_malloc(kCount * sizeof(int32_t) * 8));
  ~Buffers() {
    gshmem_free(dst);
    gshmem_free(src);
  }
};

void expect_exact_allreduce(Buffers& b, gshmem_team_t team, const char* after) {
  SCOPED_TRACE(std::string("matched allreduce after: ") + after);
  const int n = gshmem_team_n_pes(team);
  for (size_t i = 0; i < Buffers::kCount; ++i)
    b.src[i] = int32_t(i) * (gshmem_team_my_pe(team) + 1);
  EXPECT_EQ(
      gshmem_allreduce(team, b.dst, b.src, Buffers::kCount, GSHMEM_INT32, GSHMEM_SUM, nullptr),
      GSHMEM_SUCCESS)
      << gshmemx_get_last_error();
  const int32_t factor = n * (n + 1) / 2;
  size_t wrong = 0;
  for (size_t i = 0; i < Buffers::kCount; ++i) wrong += b.dst[i] != int32_t(i) * factor;
  EXPECT_EQ(wrong, 0u);
}

// The status and message every PE must get.
void expect_mismatch(int rc, const std::string& want) {
  EXPECT_EQ(rc, GSHMEM_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(std::string(gshmemx_get_last_error()), want);
}

TEST(Mismatch, SettingIsOn) {
  const char* v = std::getenv("GSHMEM_CHECK_CALLS");
  ASSERT_TRUE(v && std::string(v) == "1") << "these tests need GSHMEM_CHECK_CALLS=1";
}

TEST(Mismatch, Count) {
  Buffers b;
  const size_t count = odd_one() ? 512 : 1024;
  int rc =
      gshmem_allreduce(GSHMEM_TEAM_WORLD, b.dst, b.src, count, GSHMEM_INT32, GSHMEM_SUM, nullptr);
  expect_mismatch(rc, "gshmem_allreduce: argument 'count' differs across PEs: " +
                          split("1024", "512") + " (team WORLD)");
  expect_exact_allreduce(b, GSHMEM_TEAM_WORLD, "count");
}

TEST(Mismatch, Datatype) {
  Buffers b;
  int rc = gshmem_allgather(GSHMEM_TEAM_WORLD, b.dst, b.src, 100,
                            odd_one() ? GSHMEM_UINT32 : GSHMEM_FLOAT, nullptr);
  expect_mismatch(rc, "gshmem_allgather: argument 'dtype' differs across PEs: " +
                          split("GSHMEM_FLOAT", "GSHMEM_UINT32") + " (team WORLD)");
  expect_exact_allreduce(b, GSHMEM_TEAM_WORLD, "dtype");
}

TEST(Mismatch, Operator) {
  Buffers b;
  int rc = gshmem_reducescatter(GSHMEM_TEAM_WORLD, b.dst, b.src, 64, GSHMEM_INT32,
                                odd_one() ? GSHMEM_MAX : GSHMEM_SUM, nullptr);
  expect_mismatch(rc, "gshmem_reducescatter: argument 'op' differs across PEs: " +
                          split("GSHMEM_SUM", "GSHMEM_MAX") + " (team WORLD)");
  expect_exact_allreduce(b, GSHMEM_TEAM_WORLD, "op");
}

TEST(Mismatch, Root) {
  Buffers b;
  int rc = gshmem_broadcast(GSHMEM_TEAM_WORLD, b.dst, b.src, 10, GSHMEM_INT32, odd_one() ? 1 : 0,
                            nullptr);
  expect_mismatch(rc, "gshmem_broadcast: argument 'root' differs across PEs: " + split("0", "1") +
                          " (team WORLD)");
  expect_exact_allreduce(b, GSHMEM_TEAM_WORLD, "root");
}

// PE 0 broadcasts while the others allreduce: detected, named as the call, on every PE.
TEST(Mismatch, Call) {
  Buffers b;
  int rc = me() == 0
               ? gshmem_broadcast(GSHMEM_TEAM_WORLD, b.dst, b.src, 10, GSHMEM_INT32, 0, nullptr)
               : gshmem_allreduce(GSHMEM_TEAM_WORLD, b.dst, b.src, 10, GSHMEM_INT32, GSHMEM_SUM,
                                  nullptr);
  const std::string groups = "PE 0 = gshmem_broadcast, " + pes(1, npes()) + " = gshmem_allreduce";
  expect_mismatch(rc, std::string(me() == 0 ? "gshmem_broadcast" : "gshmem_allreduce") +
                          ": 'call' differs across PEs: " + groups + " (team WORLD)");
  expect_exact_allreduce(b, GSHMEM_TEAM_WORLD, "call");
}

// The last PE calls on a copy of WORLD (same members, another team) while the others call on
// WORLD: each would wait on its own team forever without the cross-team watch. Both teams stay
// usable.
TEST(Mismatch, Team) {
  Buffers b;
  gshmem_team_t copy = GSHMEM_TEAM_INVALID;
  EXPECT_EQ(gshmem_team_split_strided(GSHMEM_TEAM_WORLD, 0, 1, npes(), nullptr, 0, &copy), 0);
  if (copy == GSHMEM_TEAM_INVALID) {
    ADD_FAILURE() << "no team";
    return;
  }
  const gshmem_team_t mine = odd_one() ? copy : GSHMEM_TEAM_WORLD;
  int rc = gshmem_allreduce(mine, b.dst, b.src, 10, GSHMEM_INT32, GSHMEM_SUM, nullptr);
  const std::string other = "team " + std::to_string(int(copy));
  expect_mismatch(
      rc, "gshmem_allreduce: argument 'team' differs across PEs: " + split("WORLD", other) + " (" +
              (odd_one() ? other : std::string("team WORLD")) + ")");
  expect_exact_allreduce(b, GSHMEM_TEAM_WORLD, "team (WORLD)");
  expect_exact_allreduce(b, copy, "team (the copy)");
  // And the other way round, with different calls too.
  rc = odd_one() ? gshmem_allreduce(GSHMEM_TEAM_WORLD, b.dst, b.src, 10, GSHMEM_INT32, GSHMEM_SUM,
                                    nullptr)
                 : gshmem_broadcast(copy, b.dst, b.src, 10, GSHMEM_INT32, 0, nullptr);
  EXPECT_EQ(rc, GSHMEM_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(gshmemx_get_last_error()).find("differs across PEs"), std::string::npos)
      << gshmemx_get_last_error();
  expect_exact_allreduce(b, copy, "team, reversed (the copy)");
  expect_exact_allreduce(b, GSHMEM_TEAM_WORLD, "team, reversed (WORLD)");
  gshmem_barrier_all();
  gshmem_team_destroy(copy);
}

// A PE whose own checks fail (src NULL) stops the others instead of leaving them in the call.
TEST(Mismatch, OnePeRejectsItsArguments) {
  Buffers b;
  int rc = gshmem_allreduce(GSHMEM_TEAM_WORLD, b.dst, odd_one() ? nullptr : b.src, 10, GSHMEM_INT32,
                            GSHMEM_SUM, nullptr);
  EXPECT_EQ(rc, GSHMEM_ERROR_INVALID_ARGUMENT);
  if (odd_one()) {
    EXPECT_EQ(std::string(gshmemx_get_last_error()), "gshmem_allreduce: src is NULL");
  } else {
    EXPECT_EQ(std::string(gshmemx_get_last_error()),
              "gshmem_allreduce: " + pes(npes() - 1, npes()) +
                  " rejected its arguments (its own message says which); no PE ran the call "
                  "(team WORLD)");
  }
  expect_exact_allreduce(b, GSHMEM_TEAM_WORLD, "rejected arguments");
}

// Matched calls of several collectives, back to back with the check on: exact results.
TEST(Mismatch, MatchedCallsStayExact) {
  Buffers b;
  const int n = npes();
  size_t wrong = 0;
  for (int round = 0; round < 20; ++round) {
    const size_t count = size_t(1 + round * 37);
    for (size_t i = 0; i < count * size_t(n); ++i) b.src[i] = int32_t(i * 7 + size_t(me()));
    EXPECT_EQ(gshmem_allgather(GSHMEM_TEAM_WORLD, b.dst, b.src, count, GSHMEM_INT32, nullptr),
              GSHMEM_SUCCESS);
    for (int p = 0; p < n; ++p) {
      for (size_t i = 0; i < count; ++i)
        wrong += b.dst[size_t(p) * count + i] != int32_t(i * 7 + size_t(p));
    }
    const int root = round % n;
    EXPECT_EQ(gshmem_broadcast(GSHMEM_TEAM_WORLD, b.dst, b.src, count, GSHMEM_INT32, root, nullptr),
              GSHMEM_SUCCESS);
    for (size_t i = 0; i < count; ++i) wrong += b.dst[i] != int32_t(i * 7 + size_t(root));
    EXPECT_EQ(
        gshmem_allreduce(GSHMEM_TEAM_WORLD, b.dst, b.src, count, GSHMEM_INT32, GSHMEM_MAX, nullptr),
        GSHMEM_SUCCESS);
    for (size_t i = 0; i < count; ++i) wrong += b.dst[i] != int32_t(i * 7 + size_t(n - 1));
  }
  EXPECT_EQ(wrong, 0u);
}

}  // namespace
