// Signals: putmem_signal(_nbi) with SET and ADD, signal_op, signal_fetch, signal_wait_until's
// return value, and put-with-signal under contention: whenever a receiver observes a signal
// value, the data that signal covers must be complete.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "gshmem/gshmem.h"
#include "tests/common/mp_util.hpp"

using namespace gshmem_test;

namespace {

using PutSignalFn = void (*)(void*, const void*, size_t, uint64_t*, uint64_t, int, int);

void check_putmem_signal(const char* what, PutSignalFn fn, int op, size_t bytes) {
  SCOPED_TRACE(std::string(what) + (op == GSHMEM_SIGNAL_ADD ? " ADD " : " SET ") +
               std::to_string(bytes) + " bytes; " + seed_note());
  int me = gshmem_my_pe(), n = gshmem_n_pes();
  const size_t stride = bytes + 16;
  auto* dst = static_cast<unsigned char*>(gshmem_malloc(size_t(n) * stride));
  auto* sig = static_cast<uint64_t*>(gshmem_calloc(size_t(n), sizeof(uint64_t)));
  EXPECT_TRUE(dst && sig);
  if (!dst || !sig) return;
  poison(dst, size_t(n) * stride);
  gshmem_barrier_all();
  // Three rounds to every PE; ADD accumulates, SET leaves the last value. The receiver waits
  // for the final value only, then the data of the last round must be in place.
  std::vector<std::vector<unsigned char>> sent;
  const int rounds = 3;
  for (int r = 0; r < rounds; ++r) {
    for (int t = 0; t < n; ++t) {
      sent.push_back(make_data<unsigned char>(bytes, key(job_seed(), what, op, bytes, me, t, r)));
      uint64_t value = op == GSHMEM_SIGNAL_ADD ? uint64_t(me + 1) : uint64_t(r + 1) * 100 + me;
      fn(dst + size_t(me) * stride, sent.back().data(), bytes, &sig[me], value, op, t);
    }
    gshmem_quiet();  // rounds overwrite one slot and one signal: the last must land last
  }
  for (int s = 0; s < n; ++s) {
    uint64_t want =
        op == GSHMEM_SIGNAL_ADD ? uint64_t(s + 1) * rounds : uint64_t(rounds) * 100 + uint64_t(s);
    EXPECT_EQ(gshmem_signal_wait_until(&sig[s], GSHMEM_CMP_EQ, want), want);
    EXPECT_EQ(gshmem_signal_fetch(&sig[s]), want);
    std::vector<unsigned char> data =
        make_data<unsigned char>(bytes, key(job_seed(), what, op, bytes, s, me, rounds - 1));
    EXPECT_TRUE(same_bytes(dst + size_t(s) * stride, data.data(), bytes)) << "from PE " << s;
    EXPECT_TRUE(all_poison(dst + size_t(s) * stride + bytes, 16)) << "after data from PE " << s;
  }
  gshmem_barrier_all();
  gshmem_free(sig);
  gshmem_free(dst);
}

}  // namespace

TEST(Signal, PutmemSignalSetAndAdd) {
  for (size_t bytes : {size_t(0), size_t(1), size_t(13), size_t(4096), size_t(100003)}) {
    for (int op : {GSHMEM_SIGNAL_SET, GSHMEM_SIGNAL_ADD}) {
      check_putmem_signal("gshmem_putmem_signal", gshmem_putmem_signal, op, bytes);
      check_putmem_signal("gshmem_putmem_signal_nbi", gshmem_putmem_signal_nbi, op, bytes);
    }
  }
}

TEST(Signal, SignalOpFetchAndWaitReturn) {
  int me = gshmem_my_pe(), n = gshmem_n_pes();
  auto* sig = static_cast<uint64_t*>(gshmem_calloc(size_t(n) + 1, sizeof(uint64_t)));
  ASSERT_NE(sig, nullptr);
  uint64_t* total = &sig[n];
  gshmem_barrier_all();
  for (int t = 0; t < n; ++t) {
    gshmem_signal_op(&sig[me], 5, GSHMEM_SIGNAL_SET, t);
    gshmem_signal_op(&sig[me], uint64_t(me) + 10, GSHMEM_SIGNAL_ADD, t);
    gshmem_signal_op(total, 1, GSHMEM_SIGNAL_ADD, t);
  }
  // Waits return the value that satisfied them, which may exceed the one asked for.
  uint64_t seen = gshmem_signal_wait_until(total, GSHMEM_CMP_EQ, uint64_t(n));
  EXPECT_EQ(seen, uint64_t(n));
  for (int s = 0; s < n; ++s) {
    uint64_t want = 5 + uint64_t(s) + 10;
    EXPECT_EQ(gshmem_signal_wait_until(&sig[s], GSHMEM_CMP_GE, 15), want) << "signal of PE " << s;
    EXPECT_EQ(gshmem_signal_wait_until(&sig[s], GSHMEM_CMP_NE, 0), want);
    EXPECT_EQ(gshmem_signal_wait_until(&sig[s], GSHMEM_CMP_GT, 14), want);
    EXPECT_EQ(gshmem_signal_wait_until(&sig[s], GSHMEM_CMP_LE, want), want);
    EXPECT_EQ(gshmem_signal_wait_until(&sig[s], GSHMEM_CMP_LT, want + 1), want);
    EXPECT_EQ(gshmem_signal_fetch(&sig[s]), want);
  }
  gshmem_barrier_all();
  gshmem_free(sig);
}

// Every PE but the receiver streams rounds of a block to the receiver, each followed by a signal
// carrying the round number; the receiver checks, whenever it sees a signal value k, that the
// blocks of every round up to k are complete. Blocks go to a ring of kDepth slots per sender; a
// sender reuses a slot only after the receiver acknowledged the round that last used it.
// Half the rounds use putmem_signal with SET, half putmem_signal_nbi with ADD.
TEST(Signal, DataVisibleWheneverSignalIs) {
  SCOPED_TRACE(seed_note());
  int me = gshmem_my_pe(), n = gshmem_n_pes();
  constexpr size_t kWords = 2048, kDepth = 4;
  const uint64_t rounds = uint64_t(scaled(1600, 100));
  // Every PE is a receiver in turn, so each sees contention from all the others.
  auto* slots =
      static_cast<uint64_t*>(gshmem_malloc(size_t(n) * kDepth * kWords * sizeof(uint64_t)));
  auto* sig = static_cast<uint64_t*>(gshmem_calloc(size_t(n), sizeof(uint64_t)));
  auto* ack = static_cast<uint64_t*>(gshmem_calloc(1, sizeof(uint64_t)));
  ASSERT_TRUE(slots && sig && ack);
  auto word = [](int sender, uint64_t round, size_t i) {
    return (uint64_t(sender) << 56) | (round << 24) | i;
  };
  std::vector<std::vector<uint64_t>> src(kDepth, std::vector<uint64_t>(kWords));

  for (int receiver = 0; receiver < n; ++receiver) {
    SCOPED_TRACE("receiver PE " + std::to_string(receiver));
    for (int s = 0; s < n; ++s) sig[s] = 0;
    *ack = 0;
    gshmem_barrier_all();
    if (me != receiver) {
      for (uint64_t k = 1; k <= rounds; ++k) {
        size_t slot = k % kDepth;
        if (k > kDepth) gshmem_uint64_wait_until(ack, GSHMEM_CMP_GE, k - kDepth);
        gshmem_quiet();  // an earlier nbi may still read src[slot]
        for (size_t i = 0; i < kWords; ++i) src[slot][i] = word(me, k, i);
        uint64_t* dst = slots + (size_t(me) * kDepth + slot) * kWords;
        if (k <= rounds / 2) {
          gshmem_putmem_signal(dst, src[slot].data(), kWords * 8, &sig[me], k, GSHMEM_SIGNAL_SET,
                               receiver);
        } else {
          gshmem_putmem_signal_nbi(dst, src[slot].data(), kWords * 8, &sig[me], 1,
                                   GSHMEM_SIGNAL_ADD, receiver);
        }
      }
      gshmem_quiet();
    } else {
      std::vector<uint64_t> seen(size_t(n), 0);
      std::vector<int> status(size_t(n), 0);
      status[size_t(me)] = 1;  // not a sender
      const size_t senders = size_t(n - 1);
      size_t done = 0;
      uint64_t bad = 0, checks = 0;
      while (done < senders) {
        // Alternate the two ways of waiting: signal_wait_until on one sender, or any of them.
        size_t s = gshmem_uint64_wait_until_any_vector(sig, size_t(n), status.data(), GSHMEM_CMP_GT,
                                                       seen.data());
        if (s == SIZE_MAX) break;
        uint64_t k = gshmem_signal_wait_until(&sig[s], GSHMEM_CMP_GT, seen[s]);
        for (uint64_t r = seen[s] + 1; r <= k; ++r) {
          const volatile uint64_t* block = slots + (s * kDepth + r % kDepth) * kWords;
          ++checks;
          for (size_t i = 0; i < kWords; ++i) {
            uint64_t got = block[i];
            if (got != word(int(s), r, i)) {
              if (bad++ < 3) {
                ADD_FAILURE() << "signal from PE " << s << " says round " << k << " but word " << i
                              << " of round " << r << " holds 0x" << std::hex << got
                              << ", expected 0x" << word(int(s), r, i);
              }
              break;
            }
          }
        }
        seen[s] = k;
        gshmem_uint64_atomic_set(ack, k, int(s));  // slots of rounds <= k may be reused
        if (k >= rounds) {
          status[s] = 1;
          ++done;
        }
      }
      EXPECT_EQ(bad, 0u) << "rounds whose data was incomplete when their signal was visible";
      EXPECT_EQ(checks, rounds * senders);
    }
    gshmem_barrier_all();
  }
  gshmem_free(ack);
  gshmem_free(sig);
  gshmem_free(slots);
}
