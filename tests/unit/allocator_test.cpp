#include <gtest/gtest.h>

#include <random>
#include <vector>

#include "host/heap/allocator.hpp"

using gshmem::OffsetAllocator;

TEST(Allocator, FirstFitAlignedAndCoalescing) {
  OffsetAllocator a(1 << 20);
  auto x = a.allocate(100, 64);
  auto y = a.allocate(100, 64);
  ASSERT_TRUE(x && y);
  EXPECT_EQ(*x, 0u);
  EXPECT_EQ(*y, 128u);
  EXPECT_EQ(a.block_size(*x), 128u);
  auto z = a.allocate(10, 4096);
  ASSERT_TRUE(z);
  EXPECT_EQ(*z % 4096, 0u);
  EXPECT_TRUE(a.release(*y));
  EXPECT_FALSE(a.release(*y)) << "double free is detected";
  EXPECT_FALSE(a.release(12345)) << "not a block start";
  EXPECT_TRUE(a.release(*x));
  EXPECT_TRUE(a.release(*z));
  EXPECT_EQ(a.used(), 0u);
  EXPECT_EQ(a.largest_free(), 1u << 20) << "free space coalesces back into one block";
}

TEST(Allocator, ExhaustionAndZero) {
  OffsetAllocator a(4096);
  EXPECT_FALSE(a.allocate(0, 64));
  EXPECT_FALSE(a.allocate(8192, 64));
  auto all = a.allocate(4096, 64);
  ASSERT_TRUE(all);
  EXPECT_FALSE(a.allocate(64, 64));
}

TEST(Allocator, ResizeInPlace) {
  OffsetAllocator a(1 << 16);
  auto x = a.allocate(64, 64);
  auto y = a.allocate(64, 64);
  ASSERT_TRUE(x && y);
  EXPECT_FALSE(a.resize(*x, 256)) << "the next block is in the way";
  EXPECT_TRUE(a.resize(*y, 1024));
  EXPECT_EQ(a.block_size(*y), 1024u);
  EXPECT_TRUE(a.resize(*y, 64));
  EXPECT_EQ(a.block_size(*y), 64u);
  auto z = a.allocate(128, 64);
  ASSERT_TRUE(z);
  EXPECT_EQ(*z, *y + 64) << "the shrunk tail is free again";
}

TEST(Allocator, SameSequenceSameOffsets) {
  // Symmetry rests on this: two instances fed the same calls agree exactly.
  OffsetAllocator a(1 << 24), b(1 << 24);
  std::mt19937 rng(7);
  std::vector<uint64_t> live;
  for (int i = 0; i < 2000; ++i) {
    if (!live.empty() && rng() % 3 == 0) {
      size_t k = rng() % live.size();
      EXPECT_EQ(a.release(live[k]), b.release(live[k]));
      live.erase(live.begin() + long(k));
    } else {
      uint64_t bytes = 1 + rng() % 20000, align = 1ull << (rng() % 13);
      auto x = a.allocate(bytes, align), y = b.allocate(bytes, align);
      ASSERT_EQ(x.has_value(), y.has_value());
      if (x) {
        EXPECT_EQ(*x, *y);
        EXPECT_EQ(*x % std::max<uint64_t>(align, 64), 0u);
        live.push_back(*x);
      }
    }
  }
}
