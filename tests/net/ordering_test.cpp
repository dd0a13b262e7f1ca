// The ordering contracts on a network that completes operations in any order. Run across
// virtual nodes (gshmemrun --ppn 1) with GSHMEM_FABRIC_INJECT=reorder,delay, which holds back
// fabric operations and completions and releases them shuffled: any reliance on arrival order
// shows up as a violation. Each case runs many rounds; every round counts violations, and the
// test demands zero.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstring>
#include <vector>

#include "gshmem/gshmem.h"

namespace {

constexpr int kRounds = 60;
constexpr size_t kWords = 512;  // 4 KiB of payload per round: several fabric writes when chunked

int me() {
  return gshmem_my_pe();
}
int npes() {
  return gshmem_n_pes();
}

// Round r's payload from PE `from`: every word says who wrote it and when.
uint64_t word(int from, int round, size_t i) {
  return (uint64_t(from) << 48) ^ (uint64_t(round) << 24) ^ i;
}

// Whether round r's payload from PE `from` is all in `data`, read with plain loads as a PE that
// computes would. Every word: one write need not land in address order (the first and the last
// word arrived while 8 between them had not, in a run across network namespaces).
bool landed(uint64_t* data, int from, int round) {
  for (size_t i = 0; i < kWords; ++i) {
    if (std::atomic_ref<uint64_t>(data[i]).load(std::memory_order_acquire) !=
        word(from, round, i)) {
      return false;
    }
  }
  return true;
}

// Each PE sends to the next one and receives from the previous one.
int right() {
  return (me() + 1) % npes();
}
int left() {
  return (me() + npes() - 1) % npes();
}

}  // namespace

TEST(Ordering, PutWithSignalNeverOvertakesItsData) {
  auto* data = static_cast<uint64_t*>(gshmem_calloc(kWords, sizeof(uint64_t)));
  auto* sig = static_cast<uint64_t*>(gshmem_calloc(1, sizeof(uint64_t)));
  std::vector<uint64_t> src(kWords);
  int violations = 0;
  for (int r = 1; r <= kRounds; ++r) {
    for (size_t i = 0; i < kWords; ++i) src[i] = word(me(), r, i);
    gshmem_putmem_signal_nbi(data, src.data(), kWords * 8, sig, 1, GSHMEM_SIGNAL_ADD, right());
    gshmem_signal_wait_until(sig, GSHMEM_CMP_GE, uint64_t(r));
    for (size_t i = 0; i < kWords; ++i) violations += data[i] != word(left(), r, i);
    gshmem_quiet();
    gshmem_sync_all();  // nobody overwrites `data` before its reader has checked it
  }
  EXPECT_EQ(violations, 0);
  gshmem_free(sig);
  gshmem_free(data);
}

TEST(Ordering, FenceOrdersPutsToOnePe) {
  auto* data = static_cast<uint64_t*>(gshmem_calloc(kWords, sizeof(uint64_t)));
  auto* flag = static_cast<uint64_t*>(gshmem_calloc(1, sizeof(uint64_t)));
  std::vector<uint64_t> src(kWords);
  int violations = 0;
  for (int r = 1; r <= kRounds; ++r) {
    for (size_t i = 0; i < kWords; ++i) src[i] = word(me(), r, i);
    gshmem_putmem_nbi(data, src.data(), kWords * 8, right());
    gshmem_fence();
    gshmem_uint64_p(flag, uint64_t(r), right());
    gshmem_uint64_wait_until(flag, GSHMEM_CMP_EQ, uint64_t(r));
    for (size_t i = 0; i < kWords; ++i) violations += data[i] != word(left(), r, i);
    gshmem_quiet();
    gshmem_sync_all();
  }
  EXPECT_EQ(violations, 0);
  gshmem_free(flag);
  gshmem_free(data);
}

TEST(Ordering, QuietCompletesBeforeTheFlag) {
  auto* data = static_cast<uint64_t*>(gshmem_calloc(kWords, sizeof(uint64_t)));
  auto* flag = static_cast<uint64_t*>(gshmem_calloc(1, sizeof(uint64_t)));
  std::vector<uint64_t> src(kWords);
  int violations = 0;
  for (int r = 1; r <= kRounds; ++r) {
    for (size_t i = 0; i < kWords; ++i) src[i] = word(me(), r, i);
    // Many small puts: each is its own fabric operation, free to land in any order.
    for (size_t i = 0; i < kWords; i += 64)
      gshmem_putmem_nbi(data + i, src.data() + i, 64 * 8, right());
    gshmem_quiet();
    gshmem_uint64_atomic_set(flag, uint64_t(r), right());
    gshmem_uint64_wait_until(flag, GSHMEM_CMP_EQ, uint64_t(r));
    for (size_t i = 0; i < kWords; ++i) violations += data[i] != word(left(), r, i);
    gshmem_quiet();
    gshmem_sync_all();
  }
  EXPECT_EQ(violations, 0);
  gshmem_free(flag);
  gshmem_free(data);
}

TEST(Ordering, AtomicsStayAtomicAndFetchesAreConsistent) {
  auto* counter = static_cast<uint64_t*>(gshmem_calloc(1, sizeof(uint64_t)));
  auto* lock = static_cast<uint64_t*>(gshmem_calloc(1, sizeof(uint64_t)));
  auto* guarded = static_cast<uint64_t*>(gshmem_calloc(1, sizeof(uint64_t)));
  constexpr int kAdds = 200;
  int violations = 0;
  std::vector<uint64_t> seen;
  // Every PE increments the counter on PE 0; the fetched values must all be distinct.
  for (int i = 0; i < kAdds; ++i) seen.push_back(gshmem_uint64_atomic_fetch_inc(counter, 0));
  for (size_t i = 1; i < seen.size(); ++i) violations += seen[i] <= seen[i - 1];
  // A spin lock on PE 0 built from compare_swap guards a non-atomic read-modify-write over the
  // network: the total is exact only if acquire/release ordering holds with fences.
  for (int i = 0; i < 20; ++i) {
    while (gshmem_uint64_atomic_compare_swap(lock, 0, uint64_t(me() + 1), 0) != 0) {
    }
    uint64_t v = gshmem_uint64_g(guarded, 0);
    gshmem_uint64_p(guarded, v + 1, 0);
    gshmem_quiet();
    gshmem_uint64_atomic_set(lock, 0, 0);
  }
  gshmem_barrier_all();
  if (me() == 0) {
    EXPECT_EQ(*counter, uint64_t(kAdds) * uint64_t(npes()));
    EXPECT_EQ(*guarded, uint64_t(20) * uint64_t(npes()));
  }
  EXPECT_EQ(violations, 0);
  gshmem_barrier_all();
  gshmem_free(guarded);
  gshmem_free(lock);
  gshmem_free(counter);
}

TEST(Ordering, GetSeesCompletedPuts) {
  auto* data = static_cast<uint64_t*>(gshmem_calloc(kWords, sizeof(uint64_t)));
  std::vector<uint64_t> src(kWords), back(kWords);
  int violations = 0;
  for (int r = 1; r <= kRounds / 5; ++r) {
    for (size_t i = 0; i < kWords; ++i) src[i] = word(me(), r, i);
    gshmem_putmem(data, src.data(), kWords * 8, right());
    gshmem_quiet();
    gshmem_getmem(back.data(), data, kWords * 8, right());
    violations += std::memcmp(back.data(), src.data(), kWords * 8) != 0;
    gshmem_barrier_all();
  }
  EXPECT_EQ(violations, 0);
  gshmem_free(data);
}

// Background progress: the target computes, outside every gshmem call, while a peer puts to it
// and waits in quiet. On providers whose targets must progress (tcp;ofi_rxm), only the target's
// proxy thread can complete the put then, whether it sleeps on the network (GSHMEM_PROXY_IDLE=
// sleep), polls it (poll) or looks between naps (nap). The target watches its own memory with plain
// loads, for at most 30 s: a proxy that never progresses fails the test instead of hanging it.
TEST(Progress, PutsCompleteWhileTheTargetComputes) {
  auto* data = static_cast<uint64_t*>(gshmem_calloc(kWords, sizeof(uint64_t)));
  const int writer = 0, target = npes() - 1;
  std::vector<uint64_t> src(kWords);
  int missed = 0;
  for (int r = 1; r <= 10; ++r) {
    gshmem_barrier_all();
    if (me() == writer) {
      for (size_t i = 0; i < kWords; ++i) src[i] = word(me(), r, i);
      gshmem_putmem(data, src.data(), kWords * 8, target);
      gshmem_quiet();
    } else if (me() == target) {
      const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(30);
      while (!landed(data, writer, r) && std::chrono::steady_clock::now() < give_up) {
      }
      for (size_t i = 0; i < kWords; ++i) missed += data[i] != word(writer, r, i);
    }
  }
  EXPECT_EQ(missed, 0) << "PE " << me() << ": the put never completed while this PE computed";
  gshmem_barrier_all();
  gshmem_free(data);
}

// The same while the target computes and posts now and then: a non-blocking put to the writer
// every 1.5 ms, until the put lands or for at most 30 s (a window of 60 posts, 90 ms, was too short
// where the proxy thread waits for a core: under the sanitizer beside another job on 2 cores, the
// sleeping proxy's put once took longer). A post reads no completion, and posts must not count as a
// waiter that keeps the proxy away (a waiter's drive does). Both providers here also progress a
// little inside a post, so this passed before that rule too; it checks that the put completes
// while the target posts, in every mode.
TEST(Progress, PutsCompleteWhileTheTargetOnlyPosts) {
  auto* data = static_cast<uint64_t*>(gshmem_calloc(kWords, sizeof(uint64_t)));
  auto* sink = static_cast<uint64_t*>(gshmem_calloc(2, sizeof(uint64_t)));
  const int writer = 0, target = npes() - 1;
  std::vector<uint64_t> src(kWords);
  int missed = 0;
  gshmem_barrier_all();
  if (me() == writer) {
    for (size_t i = 0; i < kWords; ++i) src[i] = word(me(), 1, i);
    gshmem_putmem(data, src.data(), kWords * 8, target);
    gshmem_quiet();
  } else if (me() == target) {
    const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(30);
    while (!landed(data, writer, 1) && std::chrono::steady_clock::now() < give_up) {
      gshmem_putmem_nbi(sink, &sink[1], sizeof(uint64_t), writer);
      const auto until = std::chrono::steady_clock::now() + std::chrono::microseconds(1500);
      while (std::chrono::steady_clock::now() < until) {
      }
    }
    for (size_t i = 0; i < kWords; ++i) missed += data[i] != word(writer, 1, i);
  }
  EXPECT_EQ(missed, 0) << "PE " << me() << ": the put never completed while this PE posted";
  gshmem_barrier_all();
  gshmem_free(sink);
  gshmem_free(data);
}
