// Ordering and synchronisation: fence orders puts to one PE, quiet completes non-blocking puts,
// and barrier_all, sync_all, gshmem_barrier(team) and gshmem_team_sync(team) hold up in loops,
// on the world and on split teams; gshmemx_host_barrier_all holds every PE until the last arrives;
// a long wait polls, or naps where GSHMEM_WAIT_SLEEP asks.
#include <gtest/gtest.h>

#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "gshmem/gshmem.h"
#include "tests/common/mp_util.hpp"

using namespace gshmem_test;

// put data, fence, put flag: the target sees the data whenever it sees the flag. Each PE sends to
// the next and receives from the previous; the receiver checks right after the flag appears,
// while later rounds' puts may be on their way (each round uses its own block).
TEST(Sync, FenceOrdersPutsToOnePe) {
  SCOPED_TRACE(seed_note());
  int me = gshmem_my_pe(), n = gshmem_n_pes();
  const int rounds = scaled(8000, 400);
  constexpr size_t kInts = 1024;
  auto* data = static_cast<int*>(gshmem_malloc(size_t(rounds) * kInts * sizeof(int)));
  auto* flag = static_cast<int*>(gshmem_calloc(1, sizeof(int)));
  ASSERT_TRUE(data && flag);
  int to = (me + 1) % n, from = (me + n - 1) % n;
  gshmem_barrier_all();
  std::vector<int> block(kInts);
  int bad_rounds = 0, checked = 0;
  auto check_round = [&](int k, size_t step) {
    const volatile int* got = data + size_t(k - 1) * kInts;
    for (size_t i = 0; i < kInts; i += step) {
      if (got[i] != k * 7919 + int(i)) {
        ++bad_rounds;
        return;
      }
    }
  };
  for (int r = 1; r <= rounds; ++r) {
    for (size_t i = 0; i < kInts; ++i) block[i] = r * 7919 + int(i);
    gshmem_int_put(data + size_t(r - 1) * kInts, block.data(), kInts, to);
    gshmem_fence();
    gshmem_int_p(flag, r, to);
    // Receive: check each round the flag (read with acquire by test) has passed by now.
    while (gshmem_int_test(flag, GSHMEM_CMP_GE, checked + 1)) check_round(++checked, 1);
  }
  gshmem_int_wait_until(flag, GSHMEM_CMP_EQ, rounds);
  while (checked < rounds) check_round(++checked, 1);
  EXPECT_EQ(bad_rounds, 0) << "rounds from PE " << from << " whose data lagged their flag";
  gshmem_barrier_all();
  gshmem_free(flag);
  gshmem_free(data);
}

// put_nbi to every PE, quiet, then sync_all (which does not complete puts itself): the data must
// be in place.
TEST(Sync, QuietCompletesNbiPuts) {
  SCOPED_TRACE(seed_note());
  int me = gshmem_my_pe(), n = gshmem_n_pes();
  constexpr size_t kLongs = 4096;
  auto* dst = static_cast<long*>(gshmem_malloc(size_t(n) * kLongs * sizeof(long)));
  ASSERT_NE(dst, nullptr);
  for (int round = 0; round < 4; ++round) {
    poison(dst, size_t(n) * kLongs * sizeof(long));
    gshmem_sync_all();
    std::vector<std::vector<long>> src;
    for (int t = 0; t < n; ++t) {
      src.push_back(make_data<long>(kLongs, key(job_seed(), "quiet", round, me, t)));
      gshmem_long_put_nbi(dst + size_t(me) * kLongs, src.back().data(), kLongs, t);
    }
    gshmem_quiet();
    gshmem_sync_all();
    for (int s = 0; s < n; ++s) {
      std::vector<long> want = make_data<long>(kLongs, key(job_seed(), "quiet", round, s, me));
      EXPECT_TRUE(same_bytes(dst + size_t(s) * kLongs, want.data(), kLongs * sizeof(long)))
          << "round " << round << " from PE " << s;
    }
    gshmem_sync_all();
  }
  gshmem_free(dst);
}

namespace {

// In each iteration every member p's the iteration number into its slot on every member, syncs
// with `sync`, checks all slots, and syncs again before the next iteration overwrites them.
template <class Sync>
void sync_loop(const char* what, gshmem_team_t team, int iterations, Sync sync) {
  SCOPED_TRACE(what);
  int size = gshmem_team_n_pes(team), mine = gshmem_team_my_pe(team);
  int* slots = static_cast<int*>(gshmem_calloc(size_t(gshmem_n_pes()), sizeof(int)));
  EXPECT_NE(slots, nullptr);
  if (!slots) return;
  int bad = 0;
  if (mine >= 0) {
    for (int it = 1; it <= iterations; ++it) {
      for (int i = 0; i < size; ++i) {
        gshmem_int_p(&slots[mine], it, gshmem_team_translate_pe(team, i, GSHMEM_TEAM_WORLD));
      }
      sync();
      for (int i = 0; i < size; ++i) bad += slots[i] != it;
      sync();
    }
  }
  EXPECT_EQ(bad, 0) << "slots not updated after " << what;
  gshmem_barrier_all();
  gshmem_free(slots);
}

}  // namespace

TEST(Sync, BarrierAllLoop) {
  sync_loop("gshmem_barrier_all", GSHMEM_TEAM_WORLD, scaled(8000, 400),
            [] { gshmem_barrier_all(); });
}

// sync_all does not promise to complete puts, so the puts are completed with quiet first.
TEST(Sync, SyncAllLoop) {
  sync_loop("gshmem_sync_all", GSHMEM_TEAM_WORLD, scaled(8000, 400), [] {
    gshmem_quiet();
    gshmem_sync_all();
  });
}

TEST(Sync, TeamBarrierAndSyncLoopsOnWorld) {
  sync_loop("gshmem_barrier(WORLD)", GSHMEM_TEAM_WORLD, scaled(4000, 200),
            [] { EXPECT_EQ(gshmem_barrier(GSHMEM_TEAM_WORLD), 0); });
  sync_loop("gshmem_team_sync(WORLD)", GSHMEM_TEAM_WORLD, scaled(4000, 200), [] {
    gshmem_quiet();
    EXPECT_EQ(gshmem_team_sync(GSHMEM_TEAM_WORLD), 0);
  });
  sync_loop("gshmem_barrier(SHARED)", GSHMEM_TEAM_SHARED, scaled(4000, 200),
            [] { EXPECT_EQ(gshmem_barrier(GSHMEM_TEAM_SHARED), 0); });
  sync_loop("gshmem_team_sync(NODE)", GSHMEM_TEAM_NODE, scaled(4000, 200), [] {
    gshmem_quiet();
    EXPECT_EQ(gshmem_team_sync(GSHMEM_TEAM_NODE), 0);
  });
}

// Even and odd PEs in two teams that synchronise independently (and at different rates).
TEST(Sync, TeamBarrierLoopsOnSplitTeams) {
  int me = gshmem_my_pe(), n = gshmem_n_pes();
  gshmem_team_t even = GSHMEM_TEAM_INVALID, odd = GSHMEM_TEAM_INVALID;
  EXPECT_EQ(gshmem_team_split_strided(GSHMEM_TEAM_WORLD, 0, 2, (n + 1) / 2, nullptr, 0, &even), 0);
  if (n > 1) {
    EXPECT_EQ(gshmem_team_split_strided(GSHMEM_TEAM_WORLD, 1, 2, n / 2, nullptr, 0, &odd), 0);
  }
  gshmem_team_t mine = me % 2 ? odd : even;
  EXPECT_NE(mine, GSHMEM_TEAM_INVALID);
  EXPECT_EQ(me % 2 ? even : odd, GSHMEM_TEAM_INVALID);
  // sync_loop's allocations are collective over the world, so both teams run it together; the
  // non-member handle makes a PE skip the other team's loop.
  int iterations = me % 2 ? scaled(6000, 300) : scaled(3000, 150);
  SCOPED_TRACE(me % 2 ? "odd team" : "even team");
  {
    int size = gshmem_team_n_pes(mine), idx = gshmem_team_my_pe(mine);
    int* slots = static_cast<int*>(gshmem_calloc(size_t(n), sizeof(int)));
    ASSERT_NE(slots, nullptr);
    int bad = 0;
    for (int it = 1; it <= iterations && mine != GSHMEM_TEAM_INVALID; ++it) {
      for (int i = 0; i < size; ++i) {
        gshmem_int_p(&slots[idx], it, gshmem_team_translate_pe(mine, i, GSHMEM_TEAM_WORLD));
      }
      EXPECT_EQ(gshmem_barrier(mine), 0);
      for (int i = 0; i < size; ++i) bad += slots[i] != it;
      EXPECT_EQ(gshmem_team_sync(mine), 0);
    }
    EXPECT_EQ(bad, 0);
    gshmem_barrier_all();
    gshmem_free(slots);
  }
  gshmem_team_destroy(even);
  gshmem_team_destroy(odd);
  gshmem_barrier_all();
}

// gshmemx_host_barrier_all: no PE leaves before the last one arrives. Each PE arrives at a time
// of its own (the last one late), reads CLOCK_MONOTONIC (one clock for every process of the
// machine) before and after, and the times are gathered: the earliest departure must come after
// the latest arrival. It orders no memory operation, so the times travel by put + barrier_all.
TEST(Sync, HostBarrierHoldsUntilAllArrive) {
  SCOPED_TRACE(seed_note());
  int me = gshmem_my_pe(), n = gshmem_n_pes();
  auto* times = static_cast<int64_t*>(gshmem_calloc(size_t(2 * n), sizeof(int64_t)));
  ASSERT_TRUE(times);
  auto now_ns = [] {
    timespec ts{};
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return int64_t(ts.tv_sec) * 1000000000 + ts.tv_nsec;
  };
  gshmem_barrier_all();
  for (int round = 0; round < 3; ++round) {
    const int late = round % n;
    if (me == late) usleep(100 * 1000);
    int64_t mine[2];
    mine[0] = now_ns();
    gshmemx_host_barrier_all();
    mine[1] = now_ns();
    for (int pe = 0; pe < n; ++pe) gshmem_int64_put(times + 2 * me, mine, 2, pe);
    gshmem_barrier_all();
    int64_t last_in = 0, first_out = INT64_MAX;
    for (int pe = 0; pe < n; ++pe) {
      last_in = std::max(last_in, times[2 * pe]);
      first_out = std::min(first_out, times[2 * pe + 1]);
    }
    EXPECT_LE(last_in, first_out) << "round " << round << ": a PE left before PE " << late
                                  << " arrived";
    gshmem_barrier_all();
  }
  gshmem_free(times);
}

// A barrier whose last PE arrives 0.8 s late. By default the waiters poll the whole time (yielding
// where cores are scarce: no voluntary context switch); with GSHMEM_WAIT_SLEEP (the
// mp_sync_*_wait_sleep entries) they nap once nothing has happened for that long, each nap a
// voluntary switch (thousands in the wait; CPU time alone would not tell them apart on a loaded
// machine, where a polling waiter gets a fraction of a core too). Either way the barrier holds and
// ends, and a network's news ends a nap (across virtual nodes).
TEST(Sync, LongWaitNapsOnlyWhenAsked) {
  int me = gshmem_my_pe(), n = gshmem_n_pes();
  auto wall_s = [] {
    timespec ts{};
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return double(ts.tv_sec) + double(ts.tv_nsec) / 1e9;
  };
  auto switches = [] {
    rusage ru{};
    getrusage(RUSAGE_THREAD, &ru);
    return long(ru.ru_nvcsw);
  };
  const char* nap = std::getenv("GSHMEM_WAIT_SLEEP");
  const bool naps = nap && std::strtod(nap, nullptr) > 0;
  auto* word = static_cast<int*>(gshmem_calloc(1, sizeof(int)));
  ASSERT_TRUE(word);
  gshmem_barrier_all();
  const int late = n - 1;
  if (me == late) usleep(800 * 1000);
  double wall = wall_s();
  long slept = switches();
  gshmem_barrier_all();
  wall = wall_s() - wall;
  slept = switches() - slept;
  // The late PE's put reaches every PE after the wait: the network still progresses.
  if (me == late) {
    for (int pe = 0; pe < n; ++pe) gshmem_int_p(word, late + 1, pe);
  }
  gshmem_barrier_all();
  EXPECT_EQ(*word, late + 1);
  if (me != late) {
    EXPECT_GT(wall, 0.5) << "the barrier ended before PE " << late << " arrived";
    std::printf("PE %d waited %.2f s in the barrier and blocked %ld times (%s)\n", me, wall, slept,
                naps ? "GSHMEM_WAIT_SLEEP set: naps" : "polls");
    if (naps) {
      EXPECT_GT(slept, 500) << "GSHMEM_WAIT_SLEEP=" << nap << " but the wait hardly napped";
    } else {
      EXPECT_LT(slept, 100) << "GSHMEM_WAIT_SLEEP is unset but the wait blocked";
    }
  }
  gshmem_free(word);
}
