// Many producer threads per PE push a random mix of operations through the proxy channel at
// once (every peer is on another virtual node, so everything goes through the channel), and
// every result is checked. Built with ThreadSanitizer: the ring, the proxy and the completion
// words must be free of data races, not only produce the right numbers.
#include <gtest/gtest.h>

#include <atomic>
#include <cstring>
#include <random>
#include <thread>
#include <vector>

#include "gshmem/gshmem.h"

namespace {

constexpr int kThreads = 4;
constexpr int kOps = 300;
constexpr size_t kBlock = 256;  // words per (PE, thread) slot

struct Shared {
  uint64_t* slots;     // [n_pes][kThreads][kBlock]: written by PE p's thread t, here
  uint64_t* counters;  // [n_pes]: fetch_add targets, one per source PE
  uint64_t* signals;   // [n_pes][kThreads]: put_signal targets
};

uint64_t pattern(int pe, int thread, uint64_t round, size_t i) {
  return (uint64_t(pe) << 56) | (uint64_t(thread) << 48) | (round << 16) | i;
}

}  // namespace

TEST(ChannelStress, ManyProducersRandomMix) {
  int me = gshmem_my_pe(), n = gshmem_n_pes();
  Shared s;
  s.slots = static_cast<uint64_t*>(gshmem_calloc(size_t(n) * kThreads * kBlock, sizeof(uint64_t)));
  s.counters = static_cast<uint64_t*>(gshmem_calloc(size_t(n), sizeof(uint64_t)));
  s.signals = static_cast<uint64_t*>(gshmem_calloc(size_t(n) * kThreads, sizeof(uint64_t)));
  std::atomic<int> wrong{0};
  std::atomic<uint64_t> adds_sent{0};

  auto worker = [&](int t) {
    std::mt19937_64 rng(uint64_t(me) * 1000 + uint64_t(t));
    std::vector<uint64_t> src(kBlock), back(kBlock);
    uint64_t round = 0, signalled = 0;
    for (int op = 0; op < kOps; ++op) {
      int pe = int(rng() % uint64_t(n));
      uint64_t* slot = s.slots + (size_t(me) * kThreads + size_t(t)) * kBlock;
      switch (rng() % 5) {
        case 0: {  // put a block, quiet, read it back
          ++round;
          for (size_t i = 0; i < kBlock; ++i) src[i] = pattern(me, t, round, i);
          gshmem_putmem_nbi(slot, src.data(), kBlock * 8, pe);
          gshmem_quiet();
          gshmem_getmem(back.data(), slot, kBlock * 8, pe);
          if (std::memcmp(back.data(), src.data(), kBlock * 8) != 0) ++wrong;
          break;
        }
        case 1: {  // single-word put and get
          uint64_t v = rng();
          gshmem_uint64_p(slot + kBlock - 1, v, pe);
          gshmem_quiet();
          if (gshmem_uint64_g(slot + kBlock - 1, pe) != v) ++wrong;
          break;
        }
        case 2:  // fetch_add: checked in total at the end
          gshmem_uint64_atomic_fetch_add(&s.counters[me], 1, pe);
          ++adds_sent;
          break;
        case 3:  // non-fetching add
          gshmem_uint64_atomic_add(&s.counters[me], 1, pe);
          ++adds_sent;
          break;
        default:  // put with signal to the next PE's per-thread signal word
          ++round;
          for (size_t i = 0; i < kBlock; ++i) src[i] = pattern(me, t, round, i);
          gshmem_putmem_signal_nbi(slot, src.data(), kBlock * 8,
                                   &s.signals[size_t(me) * kThreads + size_t(t)], 1,
                                   GSHMEM_SIGNAL_ADD, (me + 1) % n);
          ++signalled;
          gshmem_quiet();
          break;
      }
    }
    gshmem_quiet();
    (void)signalled;
  };
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) threads.emplace_back(worker, t);
  for (auto& th : threads) th.join();
  gshmem_barrier_all();

  EXPECT_EQ(wrong.load(), 0) << "read-backs that did not match";
  // Every PE's adds land in counters[source] spread over all PEs: the sum over PEs is exact.
  uint64_t* total = static_cast<uint64_t*>(gshmem_calloc(size_t(n), sizeof(uint64_t)));
  for (int src = 0; src < n; ++src) gshmem_uint64_atomic_add(&total[src], s.counters[src], 0);
  uint64_t* sent = static_cast<uint64_t*>(gshmem_calloc(size_t(n), sizeof(uint64_t)));
  gshmem_uint64_atomic_add(&sent[me], adds_sent.load(), 0);
  gshmem_barrier_all();
  if (me == 0) {
    for (int src = 0; src < n; ++src) EXPECT_EQ(total[src], sent[src]) << "adds from PE " << src;
  }
  gshmem_barrier_all();
  gshmem_free(sent);
  gshmem_free(total);
  gshmem_free(s.signals);
  gshmem_free(s.counters);
  gshmem_free(s.slots);
}
