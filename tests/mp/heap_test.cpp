// The symmetric heap: malloc/calloc/align/realloc/free give the same offsets on every PE (a put to
// the returned address lands in the peer's copy of the same block), calloc zeroes, realloc keeps
// the contents, align honours the alignment, malloc(0) is NULL, exhaustion is NULL on every PE,
// and bad frees (twice, not from the heap, not a block start) print a message and change nothing.
// Asymmetric calls throw gshmem::Error on every PE in throw mode (the default mode ends the job;
// the launcher tests check that).
//
// Registered with a small heap (GSHMEM_SYMMETRIC_SIZE=32M) so exhaustion is quick.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

#include "gshmem/gshmem.h"
#include "gshmem/gshmem.hpp"
#include "tests/common/mp_util.hpp"

using namespace gshmem_test;

namespace {

constexpr size_t kHeap = 32u << 20;  // matches GSHMEM_SYMMETRIC_SIZE in tests/mp/CMakeLists.txt

// Every PE's value of v, gathered through the heap itself.
std::vector<long> gather(long v) {
  int n = gshmem_n_pes(), me = gshmem_my_pe();
  auto* all = static_cast<long*>(gshmem_calloc(size_t(n), sizeof(long)));
  EXPECT_NE(all, nullptr);
  std::vector<long> out;
  if (!all) return out;
  for (int t = 0; t < n; ++t) gshmem_long_p(&all[me], v, t);
  gshmem_barrier_all();
  out.assign(all, all + n);
  gshmem_barrier_all();
  gshmem_free(all);
  return out;
}

// Offsets of p (relative to ref) on every PE.
std::vector<long> offsets_everywhere(const void* p, const void* ref) {
  return gather(static_cast<const char*>(p) - static_cast<const char*>(ref));
}

// Each PE writes its number into block[me] on every PE (a one-sided test of symmetry: only
// correct when the block is at the same offset everywhere), then checks its own copy.
void expect_symmetric(int* block, const char* what) {
  int n = gshmem_n_pes(), me = gshmem_my_pe();
  for (int t = 0; t < n; ++t) gshmem_int_p(&block[me], 1000 + me, t);
  gshmem_barrier_all();
  for (int s = 0; s < n; ++s) EXPECT_EQ(block[s], 1000 + s) << what << ": slot of PE " << s;
  gshmem_barrier_all();
}

void begin_capture() {
  testing::internal::CaptureStderr();
}
std::string end_capture() {
  return testing::internal::GetCapturedStderr();
}

}  // namespace

TEST(Heap, SameOffsetsOnEveryPe) {
  int n = gshmem_n_pes();
  void* ref = gshmem_malloc(64);
  ASSERT_NE(ref, nullptr);
  std::vector<void*> blocks;
  size_t sizes[] = {1, 100, 4096, 12345, 64, 3};
  for (size_t s : sizes) blocks.push_back(gshmem_malloc(s + size_t(n) * sizeof(int)));
  // Free some in the middle so the next ones fill holes, then allocate more.
  gshmem_free(blocks[1]);
  gshmem_free(blocks[3]);
  blocks[1] = gshmem_malloc(50 + size_t(n) * sizeof(int));
  blocks[3] = gshmem_calloc(100, sizeof(int) + size_t(n));
  blocks.push_back(gshmem_align(4096, size_t(n) * sizeof(int)));
  for (size_t i = 0; i < blocks.size(); ++i) {
    EXPECT_NE(blocks[i], nullptr) << "block " << i;
    if (!blocks[i]) continue;
    std::vector<long> offs = offsets_everywhere(blocks[i], ref);
    for (int s = 1; s < int(offs.size()); ++s) {
      EXPECT_EQ(offs[size_t(s)], offs[0]) << "block " << i << ": PE " << s << " vs PE 0";
    }
    expect_symmetric(static_cast<int*>(blocks[i]), "block");
  }
  // Mapped peers: gshmem_ptr gives the peer's copy at the same offset.
  for (int pe = 0; pe < n; ++pe) {
    char* base = static_cast<char*>(gshmem_ptr(ref, pe));
    char* b0 = static_cast<char*>(gshmem_ptr(blocks[0], pe));
    if (base && b0) {
      EXPECT_EQ(b0 - base, static_cast<char*>(blocks[0]) - static_cast<char*>(ref)) << "PE " << pe;
    }
  }
  for (void* b : blocks) gshmem_free(b);
  gshmem_free(ref);
}

TEST(Heap, MallocZeroIsNull) {
  EXPECT_EQ(gshmem_malloc(0), nullptr);
  EXPECT_EQ(gshmem_calloc(0, 8), nullptr);
  EXPECT_EQ(gshmem_calloc(8, 0), nullptr);
  gshmem_free(nullptr);  // a no-op, like free(NULL)
  // Still in step afterwards.
  void* p = gshmem_malloc(8);
  EXPECT_NE(p, nullptr);
  gshmem_free(p);
}

TEST(Heap, CallocZeroes) {
  const size_t bytes = 64 * 1024;
  auto* dirty = static_cast<unsigned char*>(gshmem_malloc(bytes));
  ASSERT_NE(dirty, nullptr);
  poison(dirty, bytes);
  gshmem_barrier_all();
  gshmem_free(dirty);
  // The same block (first fit) comes back, and must come back zeroed.
  auto* clean = static_cast<unsigned char*>(gshmem_calloc(bytes / 8, 8));
  ASSERT_NE(clean, nullptr);
  EXPECT_EQ(clean, dirty) << "first fit reuses the freed block (makes the zeroing meaningful)";
  size_t nonzero = 0;
  for (size_t i = 0; i < bytes; ++i) nonzero += clean[i] != 0;
  EXPECT_EQ(nonzero, 0u);
  gshmem_barrier_all();  // everyone has looked before anyone writes
  // calloc's zeroing is complete everywhere before anyone can write into the block.
  int n = gshmem_n_pes(), me = gshmem_my_pe();
  for (int t = 0; t < n; ++t) gshmem_putmem(clean + size_t(me) * 8, "ABCDEFGH", 8, t);
  gshmem_barrier_all();
  for (int s = 0; s < n; ++s) {
    EXPECT_EQ(std::string(reinterpret_cast<char*>(clean) + size_t(s) * 8, 8), "ABCDEFGH");
  }
  gshmem_barrier_all();
  gshmem_free(clean);
  // count * size overflowing is refused on every PE.
  begin_capture();
  void* huge = gshmem_calloc(SIZE_MAX / 2, 4);
  std::string err = end_capture();
  EXPECT_EQ(huge, nullptr);
  EXPECT_NE(err.find("gshmem_calloc"), std::string::npos) << err;
}

TEST(Heap, ReallocKeepsContentsAndMoves) {
  SCOPED_TRACE(seed_note());
  int me = gshmem_my_pe();
  const size_t small = 256, big = 256 * 1024;
  auto* a = static_cast<unsigned char*>(gshmem_malloc(small));
  auto* fence_block = gshmem_malloc(64);  // right after a: a cannot grow in place
  ASSERT_TRUE(a && fence_block);
  fill(a, small, key(job_seed(), "realloc", me));
  gshmem_barrier_all();
  auto* b = static_cast<unsigned char*>(gshmem_realloc(a, big));
  ASSERT_NE(b, nullptr);
  EXPECT_NE(b, a) << "the block after it is in use, so realloc must move it";
  std::vector<unsigned char> want = make_data<unsigned char>(small, key(job_seed(), "realloc", me));
  EXPECT_TRUE(same_bytes(b, want.data(), small)) << "contents survive the move";
  expect_symmetric(reinterpret_cast<int*>(b + small), "moved block");
  std::vector<long> offs = offsets_everywhere(b, fence_block);
  for (int s = 1; s < int(offs.size()); ++s) EXPECT_EQ(offs[size_t(s)], offs[0]);
  // Growing in place once the neighbour is gone: same address, contents kept.
  gshmem_free(fence_block);
  auto* c = static_cast<unsigned char*>(gshmem_realloc(b, big * 2));
  ASSERT_NE(c, nullptr);
  EXPECT_TRUE(same_bytes(c, want.data(), small));
  // Shrinking keeps the prefix.
  auto* d = static_cast<unsigned char*>(gshmem_realloc(c, small / 2));
  ASSERT_NE(d, nullptr);
  EXPECT_EQ(d, c) << "shrinking does not move";
  EXPECT_TRUE(same_bytes(d, want.data(), small / 2));
  // realloc(NULL, n) allocates; realloc(p, 0) frees and returns NULL.
  void* e = gshmem_realloc(nullptr, 128);
  EXPECT_NE(e, nullptr);
  EXPECT_EQ(gshmem_realloc(e, 0), nullptr);
  gshmem_free(d);
}

// The address is aligned, not just the offset in the heap: each PE's heap sits wherever mmap put
// it, so alignments above the page size need the heap base aligned too. Up to 1 MiB must succeed;
// above, a 32 MiB heap may refuse (NULL) but must not return a misaligned block.
TEST(Heap, AlignHonoured) {
  std::vector<void*> blocks;
  for (size_t align : {size_t(8), size_t(64), size_t(128), size_t(4096), size_t(65536),
                       size_t(1) << 20, size_t(4) << 20, size_t(16) << 20}) {
    void* p = gshmem_align(align, 100);
    if (align <= (size_t(1) << 20)) {
      EXPECT_NE(p, nullptr) << "alignment " << align;
    }
    if (p) {
      EXPECT_EQ(reinterpret_cast<uintptr_t>(p) % align, 0u) << "alignment " << align;
      blocks.push_back(p);
    }
    // Another small block between, so the next alignment has something to skip.
    blocks.push_back(gshmem_malloc(8));
  }
  for (void* p : blocks) gshmem_free(p);
  begin_capture();
  void* bad = gshmem_align(3, 100);
  void* zero = gshmem_align(0, 100);
  std::string err = end_capture();
  EXPECT_EQ(bad, nullptr) << "alignment 3 is not a power of two";
  EXPECT_EQ(zero, nullptr) << "alignment 0";
  EXPECT_NE(err.find("gshmem_align"), std::string::npos) << err;
}

TEST(Heap, ExhaustionIsNullOnEveryPe) {
  begin_capture();
  void* too_big = gshmem_malloc(kHeap + 1);
  void* way_too_big = gshmem_malloc(SIZE_MAX);
  std::string err = end_capture();
  EXPECT_EQ(too_big, nullptr);
  EXPECT_EQ(way_too_big, nullptr);
  EXPECT_NE(err.find("gshmem_malloc"), std::string::npos) << err;
  // Fill the heap in 1 MiB steps: every PE gets NULL at the same step. (gshmem keeps some of the
  // heap for itself, so the count is below 32.)
  std::vector<void*> blocks;
  begin_capture();
  for (int i = 0; i < 64; ++i) {
    void* p = gshmem_malloc(1u << 20);
    if (!p) break;
    blocks.push_back(p);
  }
  err = end_capture();
  EXPECT_GT(blocks.size(), 8u);
  EXPECT_LT(blocks.size(), 32u) << "a 32 MiB heap holds fewer than 32 blocks of 1 MiB";
  EXPECT_NE(err.find("exhausted"), std::string::npos) << err;
  std::vector<long> counts = gather(long(blocks.size()));
  for (long c : counts) EXPECT_EQ(c, long(blocks.size())) << "PEs ran out at different points";
  // Freeing makes room again.
  for (void* p : blocks) gshmem_free(p);
  void* p = gshmem_malloc(8u << 20);
  EXPECT_NE(p, nullptr);
  gshmem_free(p);
}

// Bad frees: a message naming gshmem_free, and nothing changes (a live block keeps its contents,
// the allocator hands out exactly what it would have).
TEST(Heap, BadFreeChangesNothing) {
  int me = gshmem_my_pe();
  auto* keep = static_cast<int*>(gshmem_malloc(1024));
  auto* victim = static_cast<int*>(gshmem_malloc(1024));
  ASSERT_TRUE(keep && victim);
  for (int i = 0; i < 256; ++i) keep[i] = i * 3 + me;
  gshmem_free(victim);

  int local = 0;
  std::vector<char> on_the_c_heap(64);
  struct Case {
    void* ptr;
    const char* why;
  } cases[] = {{victim, "freed twice"},
               {&local, "a stack address"},
               {on_the_c_heap.data(), "a malloc'd (not gshmem) address"},
               {keep + 4, "inside a block, not its start"}};
  for (const Case& c : cases) {
    begin_capture();
    gshmem_free(c.ptr);
    std::string err = end_capture();
    EXPECT_NE(err.find("gshmem_free"), std::string::npos) << c.why << ": " << err;
  }
  for (int i = 0; i < 256; ++i) {
    if (keep[i] != i * 3 + me) {
      ADD_FAILURE() << "a live block changed at element " << i;
      break;
    }
  }
  // First fit gives victim's block again: it is free exactly once.
  auto* again = static_cast<int*>(gshmem_malloc(1024));
  auto* next = static_cast<int*>(gshmem_malloc(1024));
  EXPECT_EQ(again, victim);
  EXPECT_NE(next, victim) << "the block was freed twice and handed out twice";
  EXPECT_NE(next, keep);
  gshmem_free(next);
  gshmem_free(again);
  gshmem_free(keep);
}

// Throw mode: a call that differs between PEs throws gshmem::Error on every PE, naming the call,
// and changes nothing, so the PEs can go on.
TEST(Heap, AsymmetricCallsThrowEverywhere) {
  int me = gshmem_my_pe(), n = gshmem_n_pes();
  if (n < 2) GTEST_SKIP() << "needs two PEs to disagree";
  ThrowMode throwing;
  void* before = gshmem_malloc(64);
  ASSERT_NE(before, nullptr);
  EXPECT_TRUE(
      throws_error([&] { gshmem_malloc(me == 0 ? 128 : 256); }, "gshmem_malloc", "", "asymmetric"));
  EXPECT_TRUE(throws_error([&] { gshmem_align(me == 1 ? 4096 : 128, 64); }, "gshmem_align", "",
                           "asymmetric"));
  // Different calls at the same point: the message names the call of the PE reporting it.
  void* kept = gshmem_malloc(64);
  ASSERT_NE(kept, nullptr);
  if (me == 0) {
    EXPECT_TRUE(throws_error([&] { gshmem_free(kept); }, "gshmem_free", "", "asymmetric"));
  } else {
    EXPECT_TRUE(throws_error([&] { gshmem_malloc(64); }, "gshmem_malloc", "", "asymmetric"));
  }
  // Nothing was allocated or freed: the next symmetric call gets the next block on every PE.
  void* after = gshmem_malloc(64);
  EXPECT_NE(after, nullptr);
  std::vector<long> offs = offsets_everywhere(after, before);
  for (long o : offs) EXPECT_EQ(o, offs.empty() ? 0 : offs[0]);
  EXPECT_EQ(static_cast<char*>(after) - static_cast<char*>(kept), 64)
      << "the failed calls left the allocator as it was";
  auto* fresh = static_cast<int*>(gshmem_malloc(size_t(n) * sizeof(int)));
  EXPECT_NE(fresh, nullptr);
  if (fresh) expect_symmetric(fresh, "after the failed calls");
  gshmem_free(fresh);
  gshmem_free(after);
  gshmem_free(kept);
  gshmem_free(before);
}

// Heap calls are collective (every PE agrees through the bootstrap), so their cost depends on the
// bootstrap; it must not grow with the number of calls made before. Compares the cheapest of 100
// malloc+free pairs early in the run with the cheapest of 100 pairs 400 heap calls later (the
// minimum, not the mean, so a loaded machine does not make the test flaky).
TEST(Heap, CollectiveCallsDoNotSlowDownOverTime) {
  auto cheapest_pair_ms = [] {
    double best = 1e9;
    for (int i = 0; i < 100; ++i) {
      auto start = std::chrono::steady_clock::now();
      void* p = gshmem_malloc(64);
      gshmem_free(p);
      best = std::min(
          best, std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
                    .count());
    }
    return best;
  };
  double first = cheapest_pair_ms();
  cheapest_pair_ms();
  double later = cheapest_pair_ms();
  EXPECT_LT(later, 3 * first + 2) << "a malloc+free pair took at least " << first
                                  << " ms at first and at least " << later
                                  << " ms 400 heap calls later";
}
