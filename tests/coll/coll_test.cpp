// Collectives against a host reference: every collective x type x op, every algorithm (forced)
// x sizes from 0 and 1 element through unaligned counts to several MiB, in place and out of
// place, private and symmetric buffers; back-to-back calls with changing sizes; teams; bad
// arguments. Integer results must be exact; float inputs are crafted so that results are exact
// too (coll_check.hpp), so every algorithm must produce the same bits. FloatTolerance checks
// random floats within a stated tolerance.
//
// Runs at 2, 3, 4 and 8 PEs and across virtual nodes (--ppn); 8 PEs on 2 cores is slow, so the
// counts shrink with the PE count and the multi-MiB cases run at 4 PEs or fewer.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>

#include "collectives/adapt.hpp"
#include "collectives/calibration.hpp"
#include "gshmem/device/group.cuh"
#include "tests/coll/coll_check.hpp"

using namespace coll_test;
namespace gc = gshmem::coll;

namespace {

const Coll kColls[] = {Coll::AllReduce, Coll::Reduce,    Coll::ReduceScatter,
                       Coll::AllGather, Coll::Broadcast, Coll::AllToAll};

int npes() {
  return gshmem_n_pes();
}

// Under gshmemrun --ppn the PEs span virtual nodes and the network transport (a proxy thread per
// PE, tcp on loopback) costs milliseconds per step on 2 cores: those jobs test the cross-node and
// hierarchical paths with a smaller matrix (the full one runs on one node).
bool across() {
  return gshmem_test::split_nodes();
}

// Element counts for the algorithm sweep: 0, 1, small odd, unaligned, larger than a chunk.
std::vector<size_t> sweep_counts() {
  if (across()) return {0, 1, 7, 4099, 70001};
  std::vector<size_t> v = {0, 1, 2, 3, 7, 33, 1000, 4099};
  if (npes() <= 4) {
    v.push_back(65537);
    v.push_back(300001);
  } else {
    v.push_back(20011);
  }
  return v;
}

int root_for(size_t i) {
  return int(i % size_t(npes()));
}

// Every (type, op) pair of the reducing collectives, with the planner's algorithm, in place and
// out of place; the others with every type.
TEST(Coll, TypeOpMatrix) {
  SCOPED_TRACE(gshmem_test::seed_note());
  ensure_arena(4 << 20);
  std::vector<size_t> counts = {1, 13, 1027};
  if (across()) counts = {13};
  size_t k = 0;
  for (Coll coll : kColls) {
    for (gshmem_datatype_t t : kAllTypes) {
      for (gshmem_redop_t op : kAllOps) {
        if (reduces(coll) ? !valid_op(t, op) : op != GSHMEM_SUM) continue;
        // Across nodes: every type once per collective, the operators on two types.
        if (across() && op != GSHMEM_SUM && t != GSHMEM_INT32 && t != GSHMEM_HALF) continue;
        for (size_t count : counts) {
          Case c{coll, t, op, count};
          c.root = root_for(k);
          c.in_place = (k & 1) != 0;
          c.symmetric = (k & 2) != 0;
          c.salt = ++k;
          EXPECT_EQ(run_case(c), 0u);
        }
      }
    }
  }
}

// Every collective x algorithm (forced) x type x op, at an odd count, alternating in place and
// symmetric buffers: every algorithm carries every element size and every operator. Across
// nodes, the operators on two types.
TEST(Coll, ForcedTypeOpMatrix) {
  SCOPED_TRACE(gshmem_test::seed_note());
  ensure_arena(1 << 20);
  size_t k = 20000;
  for (Coll coll : kColls) {
    for (Algo algo : algorithms_for(coll)) {
      ForceAlgo force(algo);
      for (gshmem_datatype_t t : kAllTypes) {
        for (gshmem_redop_t op : kAllOps) {
          if (reduces(coll) ? !valid_op(t, op) : op != GSHMEM_SUM) continue;
          if (across() && op != GSHMEM_SUM && t != GSHMEM_INT8 && t != GSHMEM_BFLOAT16) continue;
          Case c{coll, t, op, 13};
          c.root = root_for(++k);
          c.in_place = (k & 1) != 0;
          c.symmetric = (k & 2) != 0;
          c.salt = k;
          EXPECT_EQ(run_case(c), 0u) << gc::coll_name(coll) << " " << gc::algo_name(algo);
        }
      }
    }
  }
}

// Every algorithm that applies here, forced, over the size sweep.
TEST(Coll, AlgorithmSweep) {
  SCOPED_TRACE(gshmem_test::seed_note());
  ensure_arena(16 << 20);
  const gshmem_datatype_t types[] = {GSHMEM_INT32, GSHMEM_FLOAT, GSHMEM_HALF, GSHMEM_UINT8,
                                     GSHMEM_COMPLEXD};
  size_t k = 0;
  for (Coll coll : kColls) {
    for (Algo algo : algorithms_for(coll)) {
      ForceAlgo force(algo);
      for (size_t count : sweep_counts()) {
        for (gshmem_datatype_t t : types) {
          ++k;
          // Big counts with one type only: the data path, not the arithmetic, is under test.
          if (count > 5000 && t != GSHMEM_INT32 && t != GSHMEM_HALF) continue;
          if (across() && t != GSHMEM_INT32 && (count > 7 || k % 2)) continue;
          gshmem_redop_t op = t == GSHMEM_COMPLEXD ? GSHMEM_PROD
                              : (k % 3 == 0)       ? GSHMEM_MAX
                                                   : GSHMEM_SUM;
          Case c{coll, t, op, count};
          c.root = root_for(k);
          c.in_place = (k & 1) != 0;
          c.symmetric = (k & 2) != 0;
          c.salt = k;
          EXPECT_EQ(run_case(c), 0u);
        }
      }
    }
  }
}

// Several MiB, each algorithm, at 2-4 PEs (more than the scratch pool: many rounds).
TEST(Coll, LargeMessages) {
  if (npes() > 4) GTEST_SKIP() << "multi-MiB cases run at 4 PEs or fewer (slow on 2 cores)";
  SCOPED_TRACE(gshmem_test::seed_note());
  const size_t bytes = across() ? (1u << 20) : (npes() <= 2 ? 12u : 6u) << 20;
  ensure_arena(3 * bytes + (1 << 20));
  size_t k = 100;
  for (Coll coll : {Coll::AllReduce, Coll::ReduceScatter, Coll::AllGather, Coll::Broadcast,
                    Coll::AllToAll, Coll::Reduce}) {
    for (Algo algo : algorithms_for(coll)) {
      ForceAlgo force(algo);
      ++k;
      size_t per = (coll == Coll::AllReduce || coll == Coll::Broadcast || coll == Coll::Reduce)
                       ? bytes / 4
                       : bytes / 4 / size_t(npes());
      Case c{coll, GSHMEM_FLOAT, GSHMEM_SUM, per + 3};
      c.root = root_for(k);
      c.symmetric = (k & 1) != 0;
      c.salt = k;
      EXPECT_EQ(run_case(c), 0u);
    }
  }
}

// The algorithms that push (ring; Bruck, whose rounds pack several pieces from 4 PEs) at steps of
// 64 KiB and more, every element size from 1 to 16 bytes, odd counts: what a streamed push
// (GSHMEM_PUSH_STREAM) writes piece by piece lands whole. Under GSHMEM_PUSH_STREAM=stream the
// pushes must also have streamed.
TEST(Coll, StreamedPushes) {
  if (npes() > 4) GTEST_SKIP() << "steps of 64 KiB at 4 PEs or fewer (slow on 2 cores)";
  SCOPED_TRACE(gshmem_test::seed_note());
  const char* setting = std::getenv("GSHMEM_PUSH_STREAM");
  const gshmem::detail::PushCounts before = gshmem::detail::push_counts();
  const gshmem_datatype_t types[] = {GSHMEM_UINT8, GSHMEM_HALF, GSHMEM_INT64, GSHMEM_COMPLEXD,
                                     GSHMEM_LONGDOUBLE};
  size_t bytes = size_t(npes()) * (80u << 10);  // a ring step per PE: 80 KiB
  ensure_arena(4 * bytes * size_t(npes()) + (1 << 20));
  size_t k = 300;
  for (Coll coll : {Coll::AllReduce, Coll::ReduceScatter, Coll::AllGather}) {
    for (Algo algo : {Algo::Ring, Algo::RecDbl}) {
      if (!gc::applicable(coll, algo, gc::team_shape(GSHMEM_TEAM_WORLD))) continue;
      ForceAlgo force(algo);
      for (gshmem_datatype_t t : types) {
        ++k;
        const size_t es = gc::visit_type(t, [](auto v) { return sizeof(v); });
        const size_t per = coll == Coll::AllReduce ? bytes / es : bytes / size_t(npes()) / es;
        Case c{coll, t, t == GSHMEM_COMPLEXD ? GSHMEM_PROD : GSHMEM_SUM, per + 3};
        c.root = root_for(k);
        c.symmetric = (k & 1) != 0;
        c.salt = k;
        EXPECT_EQ(run_case(c), 0u)
            << gc::coll_name(coll) << " " << gc::algo_name(algo) << " " << gc::dtype_short_name(t);
      }
    }
  }
  const gshmem::detail::PushCounts after = gshmem::detail::push_counts();
  if (setting && std::string(setting) == "stream" && npes() > 1) {
    EXPECT_GT(after.streamed, before.streamed + 30)
        << "GSHMEM_PUSH_STREAM=stream: no push streamed";
    EXPECT_EQ(after.plain, before.plain);
  }
}

// Back-to-back calls with changing sizes, collectives and algorithms, no barrier in between.
TEST(Coll, BackToBack) {
  SCOPED_TRACE(gshmem_test::seed_note());
  ensure_arena(4 << 20);
  const size_t counts[] = {1, 5000, 3, 70001, 0, 64, 129, 2};
  for (int rep = 0; rep < (across() ? 2 : gshmem_test::scaled(16, 2)); ++rep) {
    for (size_t i = 0; i < sizeof counts / sizeof counts[0]; ++i) {
      Coll coll = kColls[(size_t(rep) + i) % 6];
      std::vector<Algo> algos = algorithms_for(coll);
      ForceAlgo force(algos[(size_t(rep) * 7 + i) % algos.size()]);
      Case c{coll, i % 2 ? GSHMEM_INT64 : GSHMEM_BFLOAT16, GSHMEM_SUM, counts[i]};
      c.root = int((size_t(rep) + i) % size_t(npes()));
      c.in_place = rep % 2 == 1;
      c.symmetric = (i % 3) == 0;
      c.salt = 1000 + size_t(rep) * 16 + i;
      EXPECT_EQ(run_case(c), 0u);
    }
  }
}

// Many small calls in a row with no barrier, each PE checking its result at once: under the
// planner's choice these take the LL protocol (at most 8 PEs), whose writers run ahead of their
// readers by as much as the ring holds, across its wrap-around and message sizes from one cell
// to many; roots and collectives change from call to call.
TEST(Coll, SmallCallsRunAhead) {
  SCOPED_TRACE(gshmem_test::seed_note());
  ensure_arena(4 << 20);
  const int reps = across() ? 20 : gshmem_test::scaled(300, 60);
  const Coll colls[] = {Coll::Broadcast, Coll::Broadcast,     Coll::AllReduce, Coll::AllGather,
                        Coll::Broadcast, Coll::ReduceScatter, Coll::Reduce};
  for (int i = 0; i < reps; ++i) {
    Case c{colls[size_t(i) % 7], i % 3 ? GSHMEM_INT32 : GSHMEM_UINT8, GSHMEM_SUM,
           1 + size_t(i) * 37 % 1100};
    c.root = i % npes();
    c.in_place = i % 5 == 0;
    c.symmetric = i % 2 == 0;
    c.salt = 50000 + size_t(i);
    ASSERT_EQ(run_case(c), 0u) << "call " << i << ": " << gc::coll_name(c.coll) << ", count "
                               << c.count;
  }
}

// Channels and chunk sizes forced (CPU PEs run channels one after another).
TEST(Coll, ChannelsAndChunks) {
  SCOPED_TRACE(gshmem_test::seed_note());
  size_t k = 5000;
  std::vector<int> channels = {2, 3, 8};
  std::vector<uint64_t> chunks = {64, 4096, 0};
  if (across()) channels = {3}, chunks = {4096};
  for (int nch : channels) {
    for (uint64_t chunk : chunks) {
      for (Coll coll : kColls) {
        for (Algo algo : algorithms_for(coll)) {
          ForceAlgo force(algo, nch, chunk);
          Case c{coll, GSHMEM_INT16, GSHMEM_SUM, size_t(npes() > 4 || across() ? 1001 : 10007)};
          c.root = root_for(++k);
          c.in_place = (k & 1) != 0;
          c.salt = k;
          EXPECT_EQ(run_case(c), 0u);
        }
      }
    }
  }
}

// Random floats: within a stated tolerance of a long double reference, and the same bits on
// every PE (checked with MIN and MAX of a checksum over the team).
TEST(Coll, FloatTolerance) {
  SCOPED_TRACE(gshmem_test::seed_note());
  const int n = npes(), me = gshmem_my_pe();
  const size_t count = 4099;
  std::vector<float> in(count), out(count);
  for (Algo algo : algorithms_for(Coll::AllReduce)) {
    ForceAlgo force(algo);
    uint64_t salt = gshmem_test::job_seed() + uint64_t(algo);
    for (size_t i = 0; i < count; ++i) {
      in[i] = float(double(mix(salt, uint64_t(me), i) % 2000001) / 1000000.0 - 1.0) * 1e3f;
    }
    EXPECT_EQ(gshmem_allreduce(GSHMEM_TEAM_WORLD, out.data(), in.data(), count, GSHMEM_FLOAT,
                               GSHMEM_SUM, nullptr),
              GSHMEM_SUCCESS);
    // Tolerance: n float roundings of partial sums bounded by sum |x|: n * 2^-24 * sum |x|.
    size_t bad = 0;
    for (size_t i = 0; i < count; ++i) {
      long double ref = 0, mag = 0;
      for (int p = 0; p < n; ++p) {
        float x = float(double(mix(salt, uint64_t(p), i) % 2000001) / 1000000.0 - 1.0) * 1e3f;
        ref += x;
        mag += std::fabs(x);
      }
      double tol = double(n) * std::ldexp(1.0, -24) * double(mag);
      if (std::fabs(double(out[i] - float(0)) - double(ref)) > tol && ++bad <= 3) {
        ADD_FAILURE() << gc::algo_name(algo) << ": element " << i << " = " << out[i]
                      << ", reference " << double(ref) << ", tolerance " << tol;
      }
    }
    uint64_t sum = gshmem_test::checksum(out.data(), count * sizeof(float));
    uint64_t lo = 0, hi = 0;
    EXPECT_EQ(gshmem_allreduce(GSHMEM_TEAM_WORLD, &lo, &sum, 1, GSHMEM_UINT64, GSHMEM_MIN, nullptr),
              GSHMEM_SUCCESS);
    EXPECT_EQ(gshmem_allreduce(GSHMEM_TEAM_WORLD, &hi, &sum, 1, GSHMEM_UINT64, GSHMEM_MAX, nullptr),
              GSHMEM_SUCCESS);
    EXPECT_EQ(lo, hi) << gc::algo_name(algo) << ": PEs got different bits";
  }
}

// Teams: a split team, and two overlapping teams used in different orders by the PEs they share
// (the scratch pool is shared by all teams; credits keep them apart).
TEST(Coll, Teams) {
  SCOPED_TRACE(gshmem_test::seed_note());
  const int n = npes(), me = gshmem_my_pe();
  if (n < 3) GTEST_SKIP() << "needs 3 PEs";
  gshmem_team_t evens = GSHMEM_TEAM_INVALID, low = GSHMEM_TEAM_INVALID, high = GSHMEM_TEAM_INVALID;
  ASSERT_EQ(gshmem_team_split_strided(GSHMEM_TEAM_WORLD, 0, 2, (n + 1) / 2, nullptr, 0, &evens), 0);
  // low = {0, 1}, high = {1, 2}: PE 1 is in both.
  ASSERT_EQ(gshmem_team_split_strided(GSHMEM_TEAM_WORLD, 0, 1, 2, nullptr, 0, &low), 0);
  ASSERT_EQ(gshmem_team_split_strided(GSHMEM_TEAM_WORLD, 1, 1, 2, nullptr, 0, &high), 0);
  // The first three PEs: under --ppn 2 they span two nodes unevenly (no hierarchical layout).
  gshmem_team_t three = GSHMEM_TEAM_INVALID;
  ASSERT_EQ(gshmem_team_split_strided(GSHMEM_TEAM_WORLD, 0, 1, 3, nullptr, 0, &three), 0);
  size_t k = 9000;
  std::vector<Algo> algos = {Algo::Auto, Algo::Ring, Algo::Direct, Algo::Tree};
  std::vector<size_t> counts = {1, 777, 40000};
  if (across()) algos = {Algo::Auto}, counts = {777};
  for (Algo algo : algos) {
    ForceAlgo force(algo);
    for (size_t count : counts) {
      for (Coll coll : kColls) {
        Case c{coll, GSHMEM_UINT32, GSHMEM_SUM, count};
        c.root = int(k % size_t((n + 1) / 2));
        c.salt = ++k;  // the same on every PE, member or not
        if (evens != GSHMEM_TEAM_INVALID) {
          EXPECT_EQ(run_case(c, evens), 0u);
        }
      }
      for (Coll coll : {Coll::AllReduce, Coll::Broadcast, Coll::ReduceScatter}) {
        Case c{coll, GSHMEM_INT64, GSHMEM_SUM, count};
        c.root = int(k % 3);
        c.salt = ++k;
        if (three != GSHMEM_TEAM_INVALID) {
          EXPECT_EQ(run_case(c, three), 0u);
        }
      }
      for (int rep = 0; rep < 3; ++rep) {
        Case a{Coll::AllReduce, GSHMEM_INT32, GSHMEM_SUM, count};
        a.salt = ++k;
        Case b = a;
        b.coll = rep == 1 ? Coll::AllGather : Coll::AllReduce;
        b.salt = ++k;
        // PE 1 does low then high; PE 0 only low; PE 2 only high, racing ahead into PE 1's pool.
        if (low != GSHMEM_TEAM_INVALID) {
          EXPECT_EQ(run_case(a, low), 0u);
        }
        if (high != GSHMEM_TEAM_INVALID) {
          EXPECT_EQ(run_case(b, high), 0u);
        }
      }
    }
  }
  if (evens != GSHMEM_TEAM_INVALID) gshmem_team_destroy(evens);
  if (low != GSHMEM_TEAM_INVALID) gshmem_team_destroy(low);
  if (high != GSHMEM_TEAM_INVALID) gshmem_team_destroy(high);
  if (three != GSHMEM_TEAM_INVALID) gshmem_team_destroy(three);
  (void)me;
  gshmem_barrier_all();
}

// A call repeated with the same arguments runs from the thread's last call (coll_api.cpp,
// LastCall) without being planned again. It must still follow what changed under it: the data
// between calls, the settings (a forced algorithm), and the team behind the same handle (a team
// destroyed and another made in its slot).
TEST(Coll, RepeatedCallFollowsWhatChanged) {
  SCOPED_TRACE(gshmem_test::seed_note());
  const int n = npes(), me = gshmem_my_pe();
  // 80 KiB of int32 per PE: published in place, and ring steps of 64 KiB or more are pushes
  const size_t count = size_t(n) * (20u << 10);
  auto* src = static_cast<int32_t*>(gshmem_malloc(count * sizeof(int32_t)));
  auto* dst = static_cast<int32_t*>(gshmem_malloc(count * sizeof(int32_t)));
  ASSERT_NE(src, nullptr);
  ASSERT_NE(dst, nullptr);
  auto expect_sum = [&](gshmem_team_t team, const std::vector<int>& members, int call,
                        size_t elems = 0) {
    if (elems == 0) elems = count;
    for (size_t i = 0; i < elems; ++i) src[i] = int32_t(me * 1000 + call + int(i % 7));
    ASSERT_EQ(gshmem_allreduce(team, dst, src, elems, GSHMEM_INT32, GSHMEM_SUM, nullptr),
              GSHMEM_SUCCESS);
    size_t wrong = 0;
    for (size_t i = 0; i < elems; ++i) {
      int32_t want = 0;
      for (int pe : members) want += int32_t(pe * 1000 + call + int(i % 7));
      wrong += dst[i] != want;
    }
    EXPECT_EQ(wrong, 0u) << "call " << call;
  };
  std::vector<int> world(size_t(n), 0);
  for (int pe = 0; pe < n; ++pe) world[size_t(pe)] = pe;
  // The data changes between repeats (the large calls may go live, adapt.hpp: not kept).
  for (int call = 0; call < 4; ++call) expect_sum(GSHMEM_TEAM_WORLD, world, call, 5);
  for (int call = 4; call < 8; ++call) expect_sum(GSHMEM_TEAM_WORLD, world, call);
  // The settings: direct publishes the symmetric src in place (no push), ring pushes every step.
  // Forced plans never go live, so these calls are kept.
  if (n > 1 && !across() &&
      gc::applicable(Coll::AllReduce, Algo::Ring, gc::team_shape(GSHMEM_TEAM_WORLD))) {
    {
      ForceAlgo direct(Algo::Direct);
      expect_sum(GSHMEM_TEAM_WORLD, world, 10);
      const gshmem::detail::PushCounts before = gshmem::detail::push_counts();
      for (int call = 11; call < 14; ++call) expect_sum(GSHMEM_TEAM_WORLD, world, call);
      const gshmem::detail::PushCounts after = gshmem::detail::push_counts();
      EXPECT_EQ(after.plain + after.streamed, before.plain + before.streamed) << "direct pushed";
    }
    ForceAlgo ring(Algo::Ring);
    const gshmem::detail::PushCounts before = gshmem::detail::push_counts();
    expect_sum(GSHMEM_TEAM_WORLD, world, 20);
    const gshmem::detail::PushCounts after = gshmem::detail::push_counts();
    EXPECT_GT(after.plain + after.streamed, before.plain + before.streamed)
        << "the call after forcing ring did not push: it ran the last call's plan";
  }
  // The team: {0, 1}, then {0, 2} in the same slot, with a plan that does not change (forced, so
  // never live) and a call small enough to be latency-bound.
  if (n >= 3) {
    ForceAlgo direct(Algo::Direct);
    gshmem_team_t first = GSHMEM_TEAM_INVALID, second = GSHMEM_TEAM_INVALID;
    ASSERT_EQ(gshmem_team_split_strided(GSHMEM_TEAM_WORLD, 0, 1, 2, nullptr, 0, &first), 0);
    if (first != GSHMEM_TEAM_INVALID) {
      for (int call = 30; call < 33; ++call) expect_sum(first, {0, 1}, call, 777);
      gshmem_team_destroy(first);
    }
    gshmem_barrier_all();
    ASSERT_EQ(gshmem_team_split_strided(GSHMEM_TEAM_WORLD, 0, 2, 2, nullptr, 0, &second), 0);
    if (me == 0) {
      EXPECT_EQ(second, first) << "the new team did not take the old one's slot: nothing tested";
    }
    if (second != GSHMEM_TEAM_INVALID) {
      for (int call = 40; call < 43; ++call) expect_sum(second, {0, 2}, call, 777);
      gshmem_team_destroy(second);
    }
  }
  gshmem_barrier_all();
  gshmem_free(dst);
  gshmem_free(src);
}

// More members than one reduction pass takes (kMaxSrcs, 16), in place: dst is the PE's own
// input, which the first pass overwrites while a later pass still reads it (member 16 and up).
// Every direct reduction, with the roots and PEs past the first pass. Runs at 17 PEs
// (coll_17pe_in_place); skipped with fewer.
TEST(Coll, InPlaceWithMoreMembersThanAPass) {
  if (npes() <= 16 || across()) GTEST_SKIP() << "needs more than 16 PEs on one node";
  SCOPED_TRACE(gshmem_test::seed_note());
  ensure_arena(4 << 20);
  size_t k = 90000;
  for (Algo algo : {Algo::Direct, Algo::Direct2}) {
    ForceAlgo force(algo);
    for (Coll coll : {Coll::AllReduce, Coll::Reduce, Coll::ReduceScatter}) {
      if (algo == Algo::Direct2 && coll == Coll::ReduceScatter) continue;
      for (size_t count : {size_t(1), size_t(33), size_t(5000)}) {
        for (bool symmetric : {false, true}) {
          Case c{coll, GSHMEM_INT64, GSHMEM_SUM, count};
          c.in_place = true;
          c.symmetric = symmetric;
          c.root = npes() - 1;
          c.salt = ++k;
          EXPECT_EQ(run_case(c), 0u)
              << gc::algo_name(algo) << " " << describe(c, GSHMEM_TEAM_WORLD);
        }
      }
    }
  }
}

// Live choices (collectives/adapt.hpp). A calibration that promises `fast` us for `planned` and
// 1.1 times that for `other`, at every size of AllReduce: the members switch between the two
// mid-run, at the ends of epochs only they agree on: by the probe of the first epochs
// (GSHMEM_ADAPT_PROBE), or, with a promise far below what the machine gives, because the plan is
// degraded.
using Cand = std::pair<Algo, gc::Proto>;
void promise_live(Cand planned, Cand other, double fast = 0.010) {
  gc::TeamShape shape = gc::team_shape(GSHMEM_TEAM_WORLD);
  auto cal = std::make_unique<gc::Calibration>();
  cal->origin = "Coll.LiveChoices";
  gc::CalTable t{gc::shape_key(shape), {}};
  t.curves.push_back(
      {Coll::AllReduce, planned.first, planned.second, {{8, fast}, {64u << 20, fast}}});
  t.curves.push_back(
      {Coll::AllReduce, other.first, other.second, {{8, 1.1 * fast}, {64u << 20, 1.1 * fast}}});
  cal->tables.push_back(t);
  gc::install_calibration(std::move(cal));
  const gc::Plan p = gc::plan_for(Coll::AllReduce, GSHMEM_TEAM_WORLD, gc::kLiveMinBytes);
  ASSERT_EQ(p.algo, planned.first);
  ASSERT_EQ(p.proto, planned.second);
}

// Runs three epochs' worth of live AllReduce calls of `dtype` under GSHMEM_ADAPT=`mode` (epochs
// of kLiveMaxEpochCalls calls here: the exchange is promised to cost as much as a call), every
// result checked. Returns how often the live choices switched, after checking that every member
// switched as often as the others. `bytes`: of each call; `probe`: GSHMEM_ADAPT_PROBE.
int64_t run_live_calls(gshmem_datatype_t dtype, gc::Adapt mode, size_t salt,
                       size_t bytes = gc::kLiveMinBytes, bool probe = true) {
  const gc::Overrides was = gc::overrides();
  gc::Overrides o = was;
  o.adapt = mode;
  o.probe = probe;
  gc::set_overrides(&o);
  const size_t count = bytes / gshmem_datatype_size(dtype);
  const uint64_t before = gc::live_switches();
  for (int i = 0; i < 3 * gc::kLiveMaxEpochCalls; ++i) {
    Case c{Coll::AllReduce, dtype, GSHMEM_SUM, count};
    c.symmetric = i % 2 == 0;
    c.in_place = i % 3 == 0;
    c.salt = salt + size_t(i);
    EXPECT_EQ(run_case(c), 0u) << "call " << i;
  }
  gc::set_overrides(&was);
  const int64_t switched = int64_t(gc::live_switches() - before);
  int64_t lo = 0, hi = 0;
  EXPECT_EQ(
      gshmem_allreduce(GSHMEM_TEAM_WORLD, &lo, &switched, 1, GSHMEM_INT64, GSHMEM_MIN, nullptr), 0);
  EXPECT_EQ(
      gshmem_allreduce(GSHMEM_TEAM_WORLD, &hi, &switched, 1, GSHMEM_INT64, GSHMEM_MAX, nullptr), 0);
  EXPECT_EQ(lo, hi) << "the members switched a different number of times";
  return switched;
}

// Within the direct family (one node): every call's result stays exact, the calls run what the
// choice says, and a forced algorithm never switches.
TEST(Coll, LiveChoices) {
  if (across()) GTEST_SKIP() << "the direct family needs one node";
  SCOPED_TRACE(gshmem_test::seed_note());
  ensure_arena(8 * gc::kLiveMinBytes);
  const gc::Proto simple = gc::Proto::Simple;
  promise_live({Algo::Direct2, simple}, {Algo::Direct, simple});
  const uint64_t by_direct = gc::live_calls(Algo::Direct);
  const uint64_t by_direct2 = gc::live_calls(Algo::Direct2);
  // Without the probe: the plan runs far slower than promised, so the members explore.
  EXPECT_GE(run_live_calls(GSHMEM_FLOAT, gc::Adapt::SameBits, 70000, gc::kLiveMinBytes, false), 1);
  // The calls ran what the choice said: some by each.
  EXPECT_GT(gc::live_calls(Algo::Direct), by_direct);
  EXPECT_GT(gc::live_calls(Algo::Direct2), by_direct2);
  {
    ForceAlgo force(Algo::Direct2);
    const uint64_t forced_before = gc::live_switches();
    run_live_calls(GSHMEM_FLOAT, gc::Adapt::Any, 80000);
    EXPECT_EQ(gc::live_switches(), forced_before) << "a forced algorithm switched";
  }
  // Protocols are candidates too.
  if (gc::ll_applicable(Coll::AllReduce, Algo::Direct, gc::team_shape(GSHMEM_TEAM_WORLD))) {
    promise_live({Algo::Direct, simple}, {Algo::Direct, gc::Proto::LL});
    EXPECT_GE(run_live_calls(GSHMEM_FLOAT, gc::Adapt::SameBits, 85000), 1);
  }
  // A call under kLiveMinBytes that the plan expects to take kLiveMinUs is live (here the
  // calibration promises more than the machine takes: only the probe switches).
  promise_live({Algo::Direct2, simple}, {Algo::Direct, simple}, gc::kLiveMinUs);
  EXPECT_GE(run_live_calls(GSHMEM_FLOAT, gc::Adapt::Any, 87000, gc::kLiveMinBytes / 4), 1);
  promise_live({Algo::Direct2, simple}, {Algo::Direct, simple}, gc::kLiveMinUs / 2);
  EXPECT_EQ(run_live_calls(GSHMEM_FLOAT, gc::Adapt::Any, 88000, gc::kLiveMinBytes / 4), 0)
      << "a short call was live";
  gc::install_calibration(nullptr);
  gshmem_barrier_all();
}

// Across algorithm families (ring and recursive doubling, on one node or across nodes): by
// default a float reduction switches (its results stay exact here: the inputs sum exactly in any
// order); GSHMEM_ADAPT=bits keeps a float reduction on its plan but lets an integer one switch
// (any order gives the same bits); 0 switches nothing.
TEST(Coll, LiveChoicesAcrossFamilies) {
  SCOPED_TRACE(gshmem_test::seed_note());
  ensure_arena(8 * gc::kLiveMinBytes);
  promise_live({Algo::Ring, gc::Proto::Simple}, {Algo::RecDbl, gc::Proto::Simple});
  const uint64_t by_ring = gc::live_calls(Algo::Ring);
  const uint64_t by_rd = gc::live_calls(Algo::RecDbl);
  EXPECT_GE(run_live_calls(GSHMEM_FLOAT, gc::Adapt::Any, 90000), 1);
  EXPECT_GT(gc::live_calls(Algo::Ring), by_ring);
  EXPECT_GT(gc::live_calls(Algo::RecDbl), by_rd);
  EXPECT_EQ(run_live_calls(GSHMEM_FLOAT, gc::Adapt::SameBits, 91000), 0)
      << "bits: a float reduction left its algorithm family";
  EXPECT_GE(run_live_calls(GSHMEM_INT64, gc::Adapt::SameBits, 92000), 1);
  EXPECT_EQ(run_live_calls(GSHMEM_INT64, gc::Adapt::Off, 93000), 0) << "0: a call switched";
  gc::install_calibration(nullptr);
  gshmem_barrier_all();
}

// What lets GSHMEM_ADAPT=bits switch float reductions among the direct family: with random floats
// (whose sums do depend on the order), every direct variant and protocol gives the same bits, in
// place or not, for AllReduce, Reduce and ReduceScatter.
TEST(Coll, DirectVariantsGiveTheSameBits) {
  if (across()) GTEST_SKIP() << "the direct algorithms need one node";
  const int n = npes(), me = gshmem_my_pe();
  for (size_t count : {size_t(7), size_t(1000), size_t(70001)}) {
    std::vector<float> in(count * size_t(n));
    uint64_t x = 0x9E3779B97F4A7C15ull * uint64_t(me + 1) + count;
    for (float& v : in) {
      x = x * 6364136223846793005ull + 1442695040888963407ull;
      v = float(int64_t(x >> 11) % 2000001 - 1000000) * 1.37e-3f;  // mixed signs and scales
    }
    for (Coll coll : {Coll::AllReduce, Coll::Reduce, Coll::ReduceScatter}) {
      const size_t out_count = count;
      const size_t in_count = coll == Coll::ReduceScatter ? count * size_t(n) : count;
      std::vector<float> first;
      std::string first_name;
      for (Algo algo : {Algo::Direct, Algo::Direct2}) {
        if (!gc::applicable(coll, algo, gc::team_shape(GSHMEM_TEAM_WORLD))) continue;
        for (gc::Proto proto : {gc::Proto::Simple, gc::Proto::LL}) {
          gc::Overrides o;
          o.algo[int(coll)] = algo;
          o.proto = proto;
          gc::set_overrides(&o);
          std::vector<float> src(in.begin(), in.begin() + long(in_count));
          std::vector<float> dst(out_count, -1.0f);
          int rc = -1;
          switch (coll) {
            case Coll::AllReduce:
              rc = gshmem_allreduce(GSHMEM_TEAM_WORLD, dst.data(), src.data(), count, GSHMEM_FLOAT,
                                    GSHMEM_SUM, nullptr);
              break;
            case Coll::Reduce:
              rc = gshmem_reduce(GSHMEM_TEAM_WORLD, dst.data(), src.data(), count, GSHMEM_FLOAT,
                                 GSHMEM_SUM, n - 1, nullptr);
              break;
            default:
              rc = gshmem_reducescatter(GSHMEM_TEAM_WORLD, dst.data(), src.data(), count,
                                        GSHMEM_FLOAT, GSHMEM_SUM, nullptr);
              break;
          }
          gc::set_overrides(nullptr);
          ASSERT_EQ(rc, 0);
          if (coll == Coll::Reduce && me != n - 1) continue;
          const std::string name = std::string(gc::algo_name(algo)) + "/" + gc::proto_name(proto);
          if (first.empty()) {
            first = dst;
            first_name = name;
          } else {
            EXPECT_EQ(std::memcmp(first.data(), dst.data(), dst.size() * sizeof(float)), 0)
                << gc::coll_name(coll) << " of " << count << " floats: " << name << " differs from "
                << first_name;
          }
        }
      }
    }
  }
  gshmem_barrier_all();
}

// Bad arguments are refused (on every PE alike) with INVALID_ARGUMENT, touching nothing.
TEST(Coll, BadArguments) {
  int32_t a[4] = {1, 2, 3, 4}, b[4] = {};
  float f[4] = {}, g[4] = {};
  const int bad = GSHMEM_ERROR_INVALID_ARGUMENT;
  EXPECT_EQ(gshmem_allreduce(GSHMEM_TEAM_WORLD, b, a, 4, GSHMEM_INT32, GSHMEM_AVG, nullptr), bad);
  EXPECT_EQ(gshmem_allreduce(GSHMEM_TEAM_WORLD, g, f, 4, GSHMEM_FLOAT, GSHMEM_BAND, nullptr), bad);
  EXPECT_EQ(gshmem_reducescatter(GSHMEM_TEAM_WORLD, g, f, 1, GSHMEM_COMPLEXF, GSHMEM_MAX, nullptr),
            bad);
  EXPECT_EQ(
      gshmem_allreduce(GSHMEM_TEAM_WORLD, b, a, 4, gshmem_datatype_t(99), GSHMEM_SUM, nullptr),
      bad);
  EXPECT_EQ(gshmem_allreduce(GSHMEM_TEAM_WORLD, b, a, 4, GSHMEM_INT32, gshmem_redop_t(42), nullptr),
            bad);
  EXPECT_EQ(gshmem_allreduce(37, b, a, 4, GSHMEM_INT32, GSHMEM_SUM, nullptr), bad);
  EXPECT_EQ(gshmem_broadcast(GSHMEM_TEAM_WORLD, b, a, 4, GSHMEM_INT32, npes(), nullptr), bad);
  EXPECT_EQ(gshmem_reduce(GSHMEM_TEAM_WORLD, b, a, 4, GSHMEM_INT32, GSHMEM_SUM, -1, nullptr), bad);
  EXPECT_EQ(gshmem_allgather(GSHMEM_TEAM_WORLD, nullptr, a, 4, GSHMEM_INT32, nullptr), bad);
  // A stream with a host heap: the collective runs on this CPU PE and cannot be stream-ordered.
  // The message names the call, the argument and what to do instead; nothing is written.
  int stream_dummy = 0;
  const char* calls[] = {"gshmem_allreduce",     "gshmem_reduce",    "gshmem_allgather",
                         "gshmem_reducescatter", "gshmem_broadcast", "gshmem_alltoall"};
  auto call_with = [&](int k, void* s) {
    switch (k) {
      case 0:
        return gshmem_allreduce(GSHMEM_TEAM_WORLD, b, a, 1, GSHMEM_INT32, GSHMEM_SUM, s);
      case 1:
        return gshmem_reduce(GSHMEM_TEAM_WORLD, b, a, 1, GSHMEM_INT32, GSHMEM_SUM, 0, s);
      case 2:
        return gshmem_allgather(GSHMEM_TEAM_WORLD, b, a, 0, GSHMEM_INT32, s);
      case 3:
        return gshmem_reducescatter(GSHMEM_TEAM_WORLD, b, a, 1, GSHMEM_INT32, GSHMEM_SUM, s);
      case 4:
        return gshmem_broadcast(GSHMEM_TEAM_WORLD, b, a, 1, GSHMEM_INT32, 0, s);
      default:
        return gshmem_alltoall(GSHMEM_TEAM_WORLD, b, a, 0, GSHMEM_INT32, s);
    }
  };
  for (int k = 0; k < 6; ++k) {
    testing::internal::CaptureStderr();
    int rc = call_with(k, &stream_dummy);
    std::string err = testing::internal::GetCapturedStderr();
    EXPECT_EQ(rc, bad) << calls[k];
    EXPECT_NE(err.find(std::string(calls[k]) + ": stream="), std::string::npos) << err;
    EXPECT_NE(err.find("host memory"), std::string::npos) << err;
    EXPECT_NE(err.find("stream=NULL"), std::string::npos) << err;
  }
  for (int i = 0; i < 4; ++i) EXPECT_EQ(b[i], 0);
  // Zero elements: nothing to do, even with null buffers.
  EXPECT_EQ(
      gshmem_allreduce(GSHMEM_TEAM_WORLD, nullptr, nullptr, 0, GSHMEM_INT32, GSHMEM_SUM, nullptr),
      GSHMEM_SUCCESS);
  EXPECT_EQ(gshmem_datatype_size(GSHMEM_HALF), 2u);
  EXPECT_EQ(gshmem_datatype_size(GSHMEM_COMPLEXD), 16u);
  EXPECT_EQ(gshmem_datatype_size(gshmem_datatype_t(-1)), 0u);
}

}  // namespace
