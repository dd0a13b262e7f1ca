// The device API's group forms (G = Warp and Block) run by host thread groups on CPU PEs, with
// several groups of a PE at once, as a kernel's warps and blocks run them: putmem/getmem (+nbi)
// over sizes and misalignments, typed put/get, iput/iget, putmem_signal (+nbi) with ADD from many
// groups into one signal, fence/quiet, barrier_all/sync_all/team_sync by one group while the
// others work, and the one-thread calls (atomics, p/g, signal_op, the wait_until and test
// families) from every thread of the grid. Every result is checked exactly; data comes from
// mp_util's keyed streams, so a receiver regenerates what each (PE, group) sent.
#include <gtest/gtest.h>

#include <atomic>
#include <string>
#include <vector>

#include "gshmem/device.cuh"
#include "gshmem/simt.hpp"
#include "tests/common/mp_util.hpp"

using namespace gshmem_test;
namespace simt = gshmem::simt;
using gshmem::Block;
using gshmem::Warp;

namespace {

const gshmem::DeviceContext& ctx() {
  return gshmem::default_context();
}

// Grids: Block groups are blocks; Warp groups are every warp of every block. Across virtual
// nodes every remote call is a proxy round trip: fewer, smaller groups.
simt::Grid grid() {
  if (std::getenv("MP_TEST_PPN")) return {2, 8, 4};
  return {3, 16, 8};
}

template <class G>
unsigned units(const simt::Grid& g) {
  return std::is_same_v<G, Block> ? g.blocks : g.blocks * (g.threads / g.warp);
}

template <class G>
unsigned unit_of(const simt::Grid& g, unsigned block) {
  return std::is_same_v<G, Block> ? block : block * (g.threads / g.warp) + Block::rank() / g.warp;
}

template <class G>
void rma_bytes(size_t bytes, unsigned misalign) {
  const simt::Grid g = grid();
  const int me = gshmem_my_pe(), n = gshmem_n_pes();
  const unsigned U = units<G>(g);
  const size_t stride = bytes + 32;
  SCOPED_TRACE(std::string(G::name) + " " + std::to_string(bytes) + " bytes, offset " +
               std::to_string(misalign) + "; " + seed_note());
  auto* dst = static_cast<unsigned char*>(gshmem_malloc(size_t(n) * U * stride));
  auto* src = static_cast<unsigned char*>(gshmem_malloc(size_t(U) * stride));
  ASSERT_TRUE(dst && src);
  poison(dst, size_t(n) * U * stride);
  std::vector<std::vector<unsigned char>> mine(U);
  for (unsigned u = 0; u < U; ++u) {
    mine[u] = make_data<unsigned char>(bytes, key(job_seed(), "rma", bytes, me, u));
    std::memcpy(src + size_t(u) * stride + misalign, mine[u].data(), bytes);
  }
  gshmem_barrier_all();
  simt::run(g, [&](unsigned b) {
    const unsigned u = unit_of<G>(g, b);
    for (int i = 0; i < n; ++i) {
      const int t = (me + i) % n;
      unsigned char* to = dst + (size_t(me) * U + u) * stride + misalign;
      if ((u + unsigned(i)) % 2) {
        gshmem::putmem<G>(ctx(), to, mine[u].data(), bytes, t);
      } else {
        gshmem::putmem_nbi<G>(ctx(), to, mine[u].data(), bytes, t);
      }
    }
    gshmem::quiet<G>(ctx());
  });
  gshmem_barrier_all();
  for (int s = 0; s < n; ++s) {
    for (unsigned u = 0; u < U; ++u) {
      auto want = make_data<unsigned char>(bytes, key(job_seed(), "rma", bytes, s, u));
      const unsigned char* at = dst + (size_t(s) * U + u) * stride;
      EXPECT_TRUE(all_poison(at, misalign)) << "before PE " << s << " group " << u;
      EXPECT_TRUE(same_bytes(at + misalign, want.data(), bytes)) << "PE " << s << " group " << u;
      EXPECT_TRUE(all_poison(at + misalign + bytes, 32 - misalign))
          << "after PE " << s << " group " << u;
    }
  }
  // Gets: every group reads its slot of every PE's src, blocking or nbi then quiet.
  std::vector<unsigned char> got(size_t(U) * n * stride);
  simt::run(g, [&](unsigned b) {
    const unsigned u = unit_of<G>(g, b);
    for (int t = 0; t < n; ++t) {
      unsigned char* into = got.data() + (size_t(u) * n + t) * stride;
      const unsigned char* from = src + size_t(u) * stride + misalign;
      if ((u + unsigned(t)) % 2) {
        gshmem::getmem<G>(ctx(), into, from, bytes, t);
      } else {
        gshmem::getmem_nbi<G>(ctx(), into, from, bytes, t);
      }
    }
    gshmem::quiet<G>(ctx());
  });
  for (unsigned u = 0; u < U; ++u) {
    for (int t = 0; t < n; ++t) {
      auto want = make_data<unsigned char>(bytes, key(job_seed(), "rma", bytes, t, u));
      EXPECT_TRUE(same_bytes(got.data() + (size_t(u) * n + t) * stride, want.data(), bytes))
          << "get from PE " << t << " group " << u;
    }
  }
  gshmem_barrier_all();
  gshmem_free(src);
  gshmem_free(dst);
}

template <class G>
void typed_and_strided() {
  const simt::Grid g = grid();
  const int me = gshmem_my_pe(), n = gshmem_n_pes();
  const unsigned U = units<G>(g);
  const size_t count = 777;
  SCOPED_TRACE(std::string(G::name) + "; " + seed_note());
  auto* d = static_cast<double*>(gshmem_calloc(size_t(n) * U * count, sizeof(double)));
  auto* strided = static_cast<int32_t*>(gshmem_calloc(size_t(n) * U * count * 3, sizeof(int32_t)));
  ASSERT_TRUE(d && strided);
  auto value = [](int pe, unsigned u, size_t i) { return pe * 1000003 + int(u) * 10007 + int(i); };
  gshmem_barrier_all();
  std::vector<double> got(size_t(U) * count);
  std::vector<int32_t> got_strided(size_t(U) * count * 2, -1);
  simt::run(g, [&](unsigned b) {
    const unsigned u = unit_of<G>(g, b);
    const int t = (me + 1) % n;
    std::vector<double> v(count);
    std::vector<int32_t> w(count * 2);
    for (size_t i = 0; i < count; ++i) v[i] = value(me, u, i) / 4.0;
    for (size_t i = 0; i < count * 2; ++i) w[i] = value(me, u, i);
    gshmem::put<G>(ctx(), d + (size_t(me) * U + u) * count, v.data(), count, t);
    // Elements 0, 2, 4, ... of w land 3 apart.
    gshmem::iput<G>(ctx(), strided + (size_t(me) * U + u) * count * 3, w.data(), 3, 2, count, t);
    gshmem::quiet<G>(ctx());
  });
  gshmem_barrier_all();
  simt::run(g, [&](unsigned b) {
    const unsigned u = unit_of<G>(g, b);
    const int from = (me + n - 1) % n;
    // What `from` put here, read back from here by get; every third element, 2 apart, by iget.
    gshmem::get<G>(ctx(), got.data() + size_t(u) * count, d + (size_t(from) * U + u) * count, count,
                   me);
    gshmem::iget<G>(ctx(), got_strided.data() + size_t(u) * count * 2,
                    strided + (size_t(from) * U + u) * count * 3, 2, 3, count, me);
  });
  const int from = (me + n - 1) % n;
  for (unsigned u = 0; u < U; ++u) {
    for (size_t i = 0; i < count; ++i) {
      ASSERT_EQ(got[size_t(u) * count + i], value(from, u, i) / 4.0) << "u " << u << " i " << i;
      ASSERT_EQ(got_strided[size_t(u) * count * 2 + 2 * i], value(from, u, 2 * i));
      ASSERT_EQ(got_strided[size_t(u) * count * 2 + 2 * i + 1], -1) << "iget wrote a gap";
    }
  }
  gshmem_barrier_all();
  gshmem_free(strided);
  gshmem_free(d);
}

// Every group sends to every PE with ADD 1 on one signal per source PE; a receiver that sees
// the signal at U sees every group's data.
template <class G>
void put_signal(size_t bytes) {
  const simt::Grid g = grid();
  const int me = gshmem_my_pe(), n = gshmem_n_pes();
  const unsigned U = units<G>(g);
  SCOPED_TRACE(std::string(G::name) + " " + std::to_string(bytes) + " bytes; " + seed_note());
  auto* dst = static_cast<unsigned char*>(gshmem_malloc(size_t(n) * U * bytes + 1));
  auto* sig = static_cast<uint64_t*>(gshmem_calloc(size_t(n), sizeof(uint64_t)));
  ASSERT_TRUE(dst && sig);
  std::vector<std::vector<unsigned char>> mine(U);
  for (unsigned u = 0; u < U; ++u)
    mine[u] = make_data<unsigned char>(bytes, key(job_seed(), "ps", bytes, me, u));
  gshmem_barrier_all();
  std::atomic<int> bad{0};
  simt::run(g, [&](unsigned b) {
    const unsigned u = unit_of<G>(g, b);
    for (int i = 0; i < n; ++i) {
      const int t = (me + i) % n;
      unsigned char* to = dst + (size_t(me) * U + u) * bytes;
      if (u % 2) {
        gshmem::putmem_signal<G>(ctx(), to, mine[u].data(), bytes, &sig[me], 1, GSHMEM_SIGNAL_ADD,
                                 t);
      } else {
        gshmem::putmem_signal_nbi<G>(ctx(), to, mine[u].data(), bytes, &sig[me], 1,
                                     GSHMEM_SIGNAL_ADD, t);
      }
    }
    // The first group's first thread waits for every source; the data must be there then.
    if (b == 0 && Block::rank() == 0) {
      std::vector<uint64_t> want(size_t(n), U);
      gshmem::wait_until_all_vector(ctx(), sig, size_t(n), nullptr, GSHMEM_CMP_EQ, want.data());
      for (int s = 0; s < n; ++s) {
        bad += gshmem::signal_fetch(ctx(), &sig[s]) != U;
        for (unsigned v = 0; v < U; ++v) {
          auto data = make_data<unsigned char>(bytes, key(job_seed(), "ps", bytes, s, v));
          bad += !same_bytes(dst + (size_t(s) * U + v) * bytes, data.data(), bytes);
        }
      }
    }
    gshmem::quiet<G>(ctx());  // the nbi sources are reused after the grid
  });
  EXPECT_EQ(bad.load(), 0);
  gshmem_barrier_all();
  gshmem_free(sig);
  gshmem_free(dst);
}

// One group per PE runs the synchronisation calls (one call at a time per team and PE) while
// the other groups keep adding to counters on every PE.
template <class G>
void sync_while_others_work() {
  const simt::Grid g = grid();
  const int me = gshmem_my_pe(), n = gshmem_n_pes();
  const int rounds = scaled(240, 4);
  SCOPED_TRACE(std::string(G::name) + "; " + seed_note());
  auto* slot = static_cast<int64_t*>(gshmem_calloc(2, sizeof(int64_t)));
  auto* counter = static_cast<uint64_t*>(gshmem_calloc(1, sizeof(uint64_t)));
  ASSERT_TRUE(slot && counter);
  gshmem_barrier_all();
  std::atomic<int> bad{0};
  std::atomic<uint64_t> added{0};
  simt::run(g, [&](unsigned b) {
    const bool syncer = unit_of<G>(g, b) == 0;
    if (!syncer) {
      // Not a group call: each thread alone, as a kernel's other threads would.
      uint64_t rng = key(job_seed(), "sync", me, b, Block::rank());
      for (int i = 0; i < rounds; ++i) {
        gshmem::atomic<gshmem::AmoOp::Add>(ctx(), counter, uint64_t(1), uint64_t(0),
                                           int(splitmix64(rng) % uint64_t(n)));
        ++added;
      }
      return;
    }
    const int right = (me + 1) % n, left = (me + n - 1) % n;
    for (int r = 1; r <= rounds; ++r) {
      int64_t v = int64_t(left) * 100000 + r;  // what the left neighbour sends
      int64_t out = int64_t(me) * 100000 + r;
      gshmem::putmem<G>(ctx(), &slot[r % 2], &out, sizeof out, right);
      gshmem::fence<G>(ctx());
      switch (r % 3) {
        case 0:
          gshmem::barrier_all<G>(ctx());
          break;
        case 1:
          gshmem::barrier<G>(ctx(), GSHMEM_TEAM_WORLD);
          break;
        default:
          gshmem::quiet<G>(ctx());
          gshmem::team_sync<G>(ctx(), GSHMEM_TEAM_WORLD);
          break;
      }
      bad += gshmem::detail::load_acquire(&slot[r % 2]) != v;
      gshmem::sync_all<G>(ctx());  // nobody overwrites the slot before everyone read it
    }
  });
  EXPECT_EQ(bad.load(), 0);
  // Everything added anywhere is visible everywhere after the barrier: the totals match.
  auto* sums = static_cast<uint64_t*>(gshmem_calloc(2, sizeof(uint64_t)));
  gshmem_barrier_all();
  gshmem_uint64_atomic_add(&sums[0], added.load(), 0);
  gshmem_uint64_atomic_add(&sums[1], *counter, 0);
  gshmem_barrier_all();
  if (me == 0) {
    EXPECT_EQ(sums[1], sums[0]);
  }
  gshmem_barrier_all();
  gshmem_free(sums);
  gshmem_free(counter);
  gshmem_free(slot);
}

}  // namespace

TEST(SimtApi, PutGetBytes) {
  for (size_t bytes : {size_t(1), size_t(13), size_t(64), size_t(4099), size_t(70001)}) {
    for (unsigned misalign : {0u, 3u}) {
      rma_bytes<Warp>(bytes, misalign);
      rma_bytes<Block>(bytes, misalign);
    }
  }
}

TEST(SimtApi, TypedAndStrided) {
  typed_and_strided<Warp>();
  typed_and_strided<Block>();
}

TEST(SimtApi, PutSignalAddFromEveryGroup) {
  for (size_t bytes : {size_t(0), size_t(24), size_t(5000)}) {
    put_signal<Warp>(bytes);
    put_signal<Block>(bytes);
  }
}

TEST(SimtApi, SyncWhileOthersWork) {
  sync_while_others_work<Warp>();
  sync_while_others_work<Block>();
}

// The one-thread calls from every thread of a grid at once: fetching and plain atomics,
// compare-and-swap increments, p and g, signal_op, and the wait/test families over the results.
TEST(SimtApi, EveryThreadAlone) {
  const simt::Grid g = grid();
  const int me = gshmem_my_pe(), n = gshmem_n_pes();
  const unsigned TT = g.blocks * g.threads;
  const int reps = scaled(64, 2);
  SCOPED_TRACE(seed_note());
  auto* ctr = static_cast<uint64_t*>(gshmem_calloc(4, sizeof(uint64_t)));
  auto* slots = static_cast<int32_t*>(gshmem_calloc(size_t(n) * TT, sizeof(int32_t)));
  auto* flags = static_cast<uint64_t*>(gshmem_calloc(size_t(n) * TT, sizeof(uint64_t)));
  ASSERT_TRUE(ctr && slots && flags);
  gshmem_barrier_all();
  std::atomic<int> bad{0};
  simt::run(g, [&](unsigned b) {
    const unsigned id = b * g.threads + Block::rank();
    using gshmem::AmoOp;
    for (int r = 0; r < reps; ++r) {
      for (int t = 0; t < n; ++t) {
        gshmem::atomic<AmoOp::FetchAdd>(ctx(), &ctr[0], uint64_t(1), uint64_t(0), t);
        gshmem::atomic<AmoOp::Inc>(ctx(), &ctr[1], uint64_t(0), uint64_t(0), t);
        // A CAS loop: every success adds id + 1 exactly once.
        uint64_t seen = gshmem::atomic<AmoOp::Fetch>(ctx(), &ctr[2], uint64_t(0), uint64_t(0), t);
        for (;;) {
          uint64_t was = gshmem::atomic<AmoOp::CompareSwap>(ctx(), &ctr[2], seen + id + 1, seen, t);
          if (was == seen) break;
          seen = was;
        }
        gshmem::atomic<AmoOp::Xor>(ctx(), &ctr[3], uint64_t(1) << (id % 64), uint64_t(0), t);
      }
    }
    const int right = (me + 1) % n;
    gshmem::p(ctx(), &slots[size_t(me) * TT + id], int32_t(me * 7919 + int(id)), right);
    gshmem::quiet(ctx());
    gshmem::signal_op(ctx(), &flags[size_t(me) * TT + id], uint64_t(id + 1), GSHMEM_SIGNAL_SET,
                      right);
    // The left neighbour's thread `id` SETs flags[left][id]: after it, its p is visible.
    const int left = (me + n - 1) % n;
    const uint64_t* f = &flags[size_t(left) * TT];
    gshmem::wait_until(ctx(), &f[id], GSHMEM_CMP_EQ, uint64_t(id + 1));
    bad += gshmem::g(ctx(), &slots[size_t(left) * TT + id], me) != left * 7919 + int(id);
    bad += !gshmem::test(ctx(), &f[id], GSHMEM_CMP_GE, uint64_t(1));
    if (Block::rank() == 0) {
      // Over the whole vector, while other threads' flags are still arriving.
      std::vector<uint64_t> want(TT);
      for (unsigned i = 0; i < TT; ++i) want[i] = i + 1;
      size_t any = gshmem::wait_until_any(ctx(), f, TT, nullptr, GSHMEM_CMP_NE, uint64_t(0));
      bad += any >= TT;
      std::vector<size_t> idx(TT);
      bad += gshmem::wait_until_some(ctx(), f, TT, idx.data(), nullptr, GSHMEM_CMP_NE,
                                     uint64_t(0)) == 0;
      gshmem::wait_until_all_vector(ctx(), f, TT, nullptr, GSHMEM_CMP_EQ, want.data());
      bad += gshmem::test_all_of(ctx(), f, TT, nullptr, GSHMEM_CMP_EQ,
                                 gshmem::detail::Each<uint64_t>{want.data()}, {"test_all"}) != 1;
      std::vector<int> status(TT, 1);
      status[TT - 1] = 0;  // only the last is eligible
      bad += gshmem::wait_until_any(ctx(), f, TT, status.data(), GSHMEM_CMP_EQ, uint64_t(TT)) !=
             TT - 1;
      bad += gshmem::wait_until_some_vector(ctx(), f, TT, idx.data(), nullptr, GSHMEM_CMP_EQ,
                                            want.data()) != TT;
    }
  });
  EXPECT_EQ(bad.load(), 0);
  gshmem_barrier_all();
  const uint64_t per = uint64_t(reps) * uint64_t(n);
  EXPECT_EQ(ctr[0], per * TT);
  EXPECT_EQ(ctr[1], per * TT);
  EXPECT_EQ(ctr[2], per * (uint64_t(TT) * (TT + 1) / 2));
  uint64_t x = 0;
  for (unsigned id = 0; id < TT; ++id) {
    if (per % 2) x ^= uint64_t(1) << (id % 64);
  }
  EXPECT_EQ(ctr[3], x);
  gshmem_barrier_all();
  gshmem_free(flags);
  gshmem_free(slots);
  gshmem_free(ctr);
}
