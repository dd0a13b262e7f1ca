// Collectives on teams called the way a kernel calls them (gshmem/coll/team.cuh), here by CPU
// PEs with the Thread group: the code a kernel's thread, warp or block runs, with the plan every
// member derives alone. Exact results for every operator over integer and floating types, in
// place and out of place, fcollect, alltoall and broadcast from every root, on the world and on
// a strided team, interleaved with the host API's collectives on the same team (they share its
// call counter), and the refusals (not a member, bad root, overlapping alltoall).
#include <gtest/gtest.h>

#include <cstdint>
#include <numeric>
#include <vector>

#include "gshmem/coll/team.cuh"
#include "gshmem/collectives.h"
#include "gshmem/gshmem.h"
#include "gshmem/gshmem.hpp"

namespace gc = gshmem::coll;
using gshmem::Thread;

namespace {

int me() {
  return gshmem_my_pe();
}
int npes() {
  return gshmem_n_pes();
}
const gshmem::DeviceContext& ctx() {
  return gshmem::default_context();
}

// PE p's value at i: small, so sums and products are exact in every type.
template <class T>
T value(int p, size_t i) {
  return T((p * 3 + int(i % 7)) % 5 + 1);
}

template <class T, class Op>
T fold(size_t i, int n, int first, int stride) {
  T acc = value<T>(first, i);
  for (int k = 1; k < n; ++k) acc = Op::apply(acc, value<T>(first + k * stride, i));
  return acc;
}

template <class T, class Op>
void check_reduce(gshmem_team_t team, int first, int stride, size_t count, bool in_place) {
  std::vector<T> src(count), dst(count, T(0));
  for (size_t i = 0; i < count; ++i) src[i] = value<T>(me(), i);
  T* out = in_place ? src.data() : dst.data();
  ASSERT_EQ((gc::team_reduce<Thread, T, Op>(ctx(), team, out, src.data(), count, "test_reduce")),
            0);
  const int n = gshmem_team_n_pes(team);
  for (size_t i = 0; i < count; ++i) {
    ASSERT_EQ(out[i], (fold<T, Op>(i, n, first, stride))) << "i=" << i;
  }
}

template <class T>
void reduce_all_ops(gshmem_team_t team, int first, int stride, size_t count) {
  for (bool in_place : {false, true}) {
    check_reduce<T, gc::OpSum>(team, first, stride, count, in_place);
    check_reduce<T, gc::OpProd>(team, first, stride, count, in_place);
    check_reduce<T, gc::OpMin>(team, first, stride, count, in_place);
    check_reduce<T, gc::OpMax>(team, first, stride, count, in_place);
    if constexpr (std::is_integral_v<T>) {
      check_reduce<T, gc::OpBand>(team, first, stride, count, in_place);
      check_reduce<T, gc::OpBor>(team, first, stride, count, in_place);
      check_reduce<T, gc::OpBxor>(team, first, stride, count, in_place);
    }
  }
}

}  // namespace

TEST(TeamCall, ReduceEveryOperator) {
  for (size_t count : {size_t(1), size_t(31), size_t(20001)}) {
    SCOPED_TRACE("count " + std::to_string(count));
    reduce_all_ops<int32_t>(GSHMEM_TEAM_WORLD, 0, 1, count);
    reduce_all_ops<int64_t>(GSHMEM_TEAM_WORLD, 0, 1, count);
    reduce_all_ops<uint8_t>(GSHMEM_TEAM_WORLD, 0, 1, count);
    reduce_all_ops<int16_t>(GSHMEM_TEAM_WORLD, 0, 1, count);
    reduce_all_ops<float>(GSHMEM_TEAM_WORLD, 0, 1, count);
    reduce_all_ops<double>(GSHMEM_TEAM_WORLD, 0, 1, count);
  }
}

TEST(TeamCall, FcollectAlltoallBroadcast) {
  const int n = npes();
  for (size_t count : {size_t(1), size_t(1000), size_t(40000)}) {
    std::vector<int64_t> src(count * size_t(n)), dst(count * size_t(n), -1);
    for (size_t i = 0; i < src.size(); ++i) src[i] = int64_t(me()) * 1000000 + int64_t(i);
    ASSERT_EQ(gc::team_fcollect<Thread>(ctx(), GSHMEM_TEAM_WORLD, dst.data(), src.data(), count,
                                        "test_fcollect"),
              0);
    for (int p = 0; p < n; ++p) {
      for (size_t i = 0; i < count; ++i) {
        ASSERT_EQ(dst[size_t(p) * count + i], int64_t(p) * 1000000 + int64_t(i));
      }
    }
    ASSERT_EQ(gc::team_alltoall<Thread>(ctx(), GSHMEM_TEAM_WORLD, dst.data(), src.data(), count,
                                        "test_alltoall"),
              0);
    for (int p = 0; p < n; ++p) {
      for (size_t i = 0; i < count; ++i) {
        ASSERT_EQ(dst[size_t(p) * count + i],
                  int64_t(p) * 1000000 + int64_t(size_t(me()) * count + i));
      }
    }
    for (int root = 0; root < n; ++root) {
      std::vector<int64_t> b(count, int64_t(me()));
      ASSERT_EQ(gc::team_broadcast<Thread>(ctx(), GSHMEM_TEAM_WORLD, b.data(), b.data(), count,
                                           root, "test_broadcast"),
                0);
      for (size_t i = 0; i < count; ++i) ASSERT_EQ(b[i], root);
    }
  }
}

// In place, fcollect's own block sits at my_pe's place in dst.
TEST(TeamCall, FcollectInPlace) {
  const int n = npes();
  const size_t count = 777;
  std::vector<int32_t> buf(count * size_t(n), -1);
  for (size_t i = 0; i < count; ++i) buf[size_t(me()) * count + i] = me() * 10000 + int32_t(i);
  ASSERT_EQ(gc::team_fcollect<Thread>(ctx(), GSHMEM_TEAM_WORLD, buf.data(),
                                      buf.data() + size_t(me()) * count, count, "test_fcollect"),
            0);
  for (int p = 0; p < n; ++p) {
    for (size_t i = 0; i < count; ++i)
      ASSERT_EQ(buf[size_t(p) * count + i], p * 10000 + int32_t(i));
  }
}

// The host API's collectives and these, one after the other on one team: one call counter.
TEST(TeamCall, MixedWithHostCollectives) {
  const int n = npes();
  for (int round = 0; round < 20; ++round) {
    int64_t x = me() + round, host = 0, dev = 0;
    ASSERT_EQ(gshmem_allreduce(GSHMEM_TEAM_WORLD, &host, &x, 1, GSHMEM_INT64, GSHMEM_SUM, nullptr),
              0);
    ASSERT_EQ((gc::team_reduce<Thread, int64_t, gc::OpSum>(ctx(), GSHMEM_TEAM_WORLD, &dev, &x, 1,
                                                           "test_reduce")),
              0);
    const int64_t want = int64_t(n) * (n - 1) / 2 + int64_t(n) * round;
    ASSERT_EQ(host, want);
    ASSERT_EQ(dev, want);
  }
}

TEST(TeamCall, StridedTeam) {
  const int n = npes();
  gshmem_team_t evens = GSHMEM_TEAM_INVALID;
  ASSERT_EQ(gshmem_team_split_strided(GSHMEM_TEAM_WORLD, 0, 2, (n + 1) / 2, nullptr, 0, &evens), 0);
  if (me() % 2 == 0) {
    reduce_all_ops<int32_t>(evens, 0, 2, 513);
    reduce_all_ops<double>(evens, 0, 2, 7);
  } else {
    // Not a member: refused, nothing sent.
    int32_t v = 1;
    EXPECT_EQ((gc::team_reduce<Thread, int32_t, gc::OpSum>(ctx(), evens, &v, &v, 1, "test")), -1);
  }
  gshmem_barrier_all();
  if (evens != GSHMEM_TEAM_INVALID) gshmem_team_destroy(evens);
}

TEST(TeamCall, Refusals) {
  int32_t v[4] = {1, 2, 3, 4};
  EXPECT_EQ((gc::team_reduce<Thread, int32_t, gc::OpSum>(ctx(), GSHMEM_TEAM_INVALID, v, v, 1, "t")),
            -1);
  EXPECT_EQ((gc::team_reduce<Thread, int32_t, gc::OpSum>(ctx(), 40, v, v, 1, "t")), -1);
  EXPECT_EQ(gc::team_broadcast<Thread>(ctx(), GSHMEM_TEAM_WORLD, v, v, 1, npes(), "t"), -1);
  EXPECT_EQ(gc::team_broadcast<Thread>(ctx(), GSHMEM_TEAM_WORLD, v, v, 1, -1, "t"), -1);
  std::vector<int32_t> buf(size_t(npes()) * 2);
  EXPECT_EQ(gc::team_alltoall<Thread>(ctx(), GSHMEM_TEAM_WORLD, buf.data(), buf.data(), 1, "t"),
            -1);
  // Still in step after the refusals (none of them communicated).
  int32_t one = 1, sum = 0;
  EXPECT_EQ(
      (gc::team_reduce<Thread, int32_t, gc::OpSum>(ctx(), GSHMEM_TEAM_WORLD, &sum, &one, 1, "t")),
      0);
  EXPECT_EQ(sum, npes());
}
