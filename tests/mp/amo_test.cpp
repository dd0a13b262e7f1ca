// Atomics: every wrapper of GSHMEM_FOR_AMO_TYPES, _BITWISE_TYPES and _EXTENDED_TYPES (generated
// from the X-macro lists) with value checks, then the storm: every PE hammers a counter on every
// PE with fetch_add/add/inc/fetch_inc and the totals must come out exact, and a compare_swap lock
// that guards plain get/put increments.
#include <gtest/gtest.h>

#include <sched.h>

#include <string>
#include <vector>

#include "gshmem/gshmem.h"
#include "tests/common/mp_util.hpp"

using namespace gshmem_test;

namespace {

template <class T>
struct ExtendedOps {
  const char* name;
  T (*fetch)(const T*, int);
  void (*set)(T*, T, int);
  T (*swap)(T*, T, int);
};

template <class T>
struct AmoOps {
  ExtendedOps<T> ext;
  T (*compare_swap)(T*, T, T, int);
  T (*fetch_inc)(T*, int);
  void (*inc)(T*, int);
  T (*fetch_add)(T*, T, int);
  void (*add)(T*, T, int);
};

template <class T>
struct BitwiseOps {
  const char* name;
  T (*fetch_and)(T*, T, int);
  void (*and_)(T*, T, int);
  T (*fetch_or)(T*, T, int);
  void (*or_)(T*, T, int);
  T (*fetch_xor)(T*, T, int);
  void (*xor_)(T*, T, int);
  void (*set)(T*, T, int);  // not a bitwise op; from the standard family, to seed the value
  T (*fetch)(const T*, int);
};

// Values that use the high bits of the type too (sign bit for signed types).
template <class T>
T val(uint64_t k) {
  T v;
  fill(&v, 1, k);
  return v;
}

// Each PE works on its own cell of every target, so fetched values are deterministic.
template <class T>
void check_extended(const ExtendedOps<T>& ops) {
  SCOPED_TRACE(std::string("gshmem_") + ops.name + "_atomic_fetch/set/swap; " + seed_note());
  int me = gshmem_my_pe(), n = gshmem_n_pes();
  T* cells = static_cast<T*>(gshmem_calloc(size_t(n), sizeof(T)));
  EXPECT_NE(cells, nullptr);
  if (!cells) return;
  for (int t = 0; t < n; ++t) {
    T a = val<T>(key(job_seed(), ops.name, me, t, 1)),
      b = val<T>(key(job_seed(), ops.name, me, t, 2));
    EXPECT_EQ(ops.fetch(&cells[me], t), T(0)) << "fresh calloc'd cell on PE " << t;
    ops.set(&cells[me], a, t);
    EXPECT_EQ(ops.fetch(&cells[me], t), a) << "fetch after set on PE " << t;
    EXPECT_EQ(ops.swap(&cells[me], b, t), a) << "swap returns the old value on PE " << t;
    EXPECT_EQ(ops.fetch(&cells[me], t), b) << "fetch after swap on PE " << t;
  }
  gshmem_barrier_all();
  for (int s = 0; s < n; ++s) {
    EXPECT_EQ(cells[s], val<T>(key(job_seed(), ops.name, s, me, 2))) << "cell of PE " << s;
  }
  gshmem_barrier_all();
  gshmem_free(cells);
}

template <class T>
void check_standard(const AmoOps<T>& ops) {
  check_extended(ops.ext);
  const char* name = ops.ext.name;
  SCOPED_TRACE(std::string("gshmem_") + name + "_atomic_compare_swap/inc/add; " + seed_note());
  int me = gshmem_my_pe(), n = gshmem_n_pes();
  T* cells = static_cast<T*>(gshmem_calloc(size_t(n), sizeof(T)));
  EXPECT_NE(cells, nullptr);
  if (!cells) return;
  for (int t = 0; t < n; ++t) {
    T* c = &cells[me];
    // Small enough that the adds below stay in range for signed types.
    T a = T(val<T>(key(job_seed(), name, me, t)) % T(1000000));
    T d = T(3 + me);
    ops.ext.set(c, a, t);
    EXPECT_EQ(ops.compare_swap(c, T(a + 1), T(7), t), a) << "failed compare_swap on PE " << t;
    EXPECT_EQ(ops.ext.fetch(c, t), a) << "a failed compare_swap must not write, PE " << t;
    EXPECT_EQ(ops.compare_swap(c, a, T(a + 5), t), a) << "compare_swap on PE " << t;
    EXPECT_EQ(ops.ext.fetch(c, t), T(a + 5)) << "after compare_swap on PE " << t;
    EXPECT_EQ(ops.fetch_inc(c, t), T(a + 5)) << "fetch_inc on PE " << t;
    ops.inc(c, t);
    EXPECT_EQ(ops.fetch_add(c, d, t), T(a + 7)) << "fetch_add on PE " << t;
    ops.add(c, d, t);
    EXPECT_EQ(ops.ext.fetch(c, t), T(a + 7 + d + d)) << "after add on PE " << t;
  }
  gshmem_barrier_all();
  for (int s = 0; s < n; ++s) {
    T a = T(val<T>(key(job_seed(), name, s, me)) % T(1000000));
    EXPECT_EQ(cells[s], T(a + 7 + T(3 + s) + T(3 + s))) << "cell of PE " << s;
  }
  gshmem_barrier_all();
  gshmem_free(cells);
}

template <class T>
void check_bitwise(const BitwiseOps<T>& ops) {
  SCOPED_TRACE(std::string("gshmem_") + ops.name + "_atomic bitwise; " + seed_note());
  int me = gshmem_my_pe(), n = gshmem_n_pes();
  T* cells = static_cast<T*>(gshmem_calloc(size_t(n), sizeof(T)));
  EXPECT_NE(cells, nullptr);
  if (!cells) return;
  auto expect_final = [&](int s, int t) {
    T v = val<T>(key(job_seed(), ops.name, s, t, 0));
    T m1 = val<T>(key(job_seed(), ops.name, s, t, 1)),
      m2 = val<T>(key(job_seed(), ops.name, s, t, 2));
    T m3 = val<T>(key(job_seed(), ops.name, s, t, 3)),
      m4 = val<T>(key(job_seed(), ops.name, s, t, 4));
    T m5 = val<T>(key(job_seed(), ops.name, s, t, 5)),
      m6 = val<T>(key(job_seed(), ops.name, s, t, 6));
    return T(T(T(T(T(T(v & m1) & m2) | m3) | m4) ^ m5) ^ m6);
  };
  for (int t = 0; t < n; ++t) {
    T* c = &cells[me];
    T v = val<T>(key(job_seed(), ops.name, me, t, 0));
    T m[7];
    for (int i = 1; i < 7; ++i) m[i] = val<T>(key(job_seed(), ops.name, me, t, i));
    ops.set(c, v, t);
    EXPECT_EQ(ops.fetch_and(c, m[1], t), v) << "fetch_and on PE " << t;
    v = T(v & m[1]);
    ops.and_(c, m[2], t);
    v = T(v & m[2]);
    EXPECT_EQ(ops.fetch_or(c, m[3], t), v) << "fetch_or on PE " << t;
    v = T(v | m[3]);
    ops.or_(c, m[4], t);
    v = T(v | m[4]);
    EXPECT_EQ(ops.fetch_xor(c, m[5], t), v) << "fetch_xor on PE " << t;
    v = T(v ^ m[5]);
    ops.xor_(c, m[6], t);
    v = T(v ^ m[6]);
    EXPECT_EQ(ops.fetch(c, t), v) << "after xor on PE " << t;
  }
  gshmem_barrier_all();
  for (int s = 0; s < n; ++s) EXPECT_EQ(cells[s], expect_final(s, me)) << "cell of PE " << s;
  gshmem_barrier_all();
  gshmem_free(cells);
}

}  // namespace

#define GSHMEM_TEST_EXT_OPS(NAME, T)                                                             \
  ExtendedOps<T> {                                                                               \
#NAME, gshmem_##NAME##_atomic_fetch, gshmem_##NAME##_atomic_set, gshmem_##NAME##_atomic_swap \
  }

#define GSHMEM_TEST_AMO(NAME, T)                                                                \
  TEST(AmoStandard, NAME) {                                                                     \
    check_standard(AmoOps<T>{GSHMEM_TEST_EXT_OPS(NAME, T), gshmem_##NAME##_atomic_compare_swap, \
                             gshmem_##NAME##_atomic_fetch_inc, gshmem_##NAME##_atomic_inc,      \
                             gshmem_##NAME##_atomic_fetch_add, gshmem_##NAME##_atomic_add});    \
  }
GSHMEM_FOR_AMO_TYPES(GSHMEM_TEST_AMO)
#undef GSHMEM_TEST_AMO

#define GSHMEM_TEST_AMO_BITWISE(NAME, T)                                                     \
  TEST(AmoBitwise, NAME) {                                                                   \
    check_bitwise(BitwiseOps<T>{#NAME, gshmem_##NAME##_atomic_fetch_and,                     \
                                gshmem_##NAME##_atomic_and, gshmem_##NAME##_atomic_fetch_or, \
                                gshmem_##NAME##_atomic_or, gshmem_##NAME##_atomic_fetch_xor, \
                                gshmem_##NAME##_atomic_xor, gshmem_##NAME##_atomic_set,      \
                                gshmem_##NAME##_atomic_fetch});                              \
  }
GSHMEM_FOR_AMO_BITWISE_TYPES(GSHMEM_TEST_AMO_BITWISE)
#undef GSHMEM_TEST_AMO_BITWISE

#define GSHMEM_TEST_AMO_EXTENDED(NAME, T)         \
  TEST(AmoExtended, NAME) {                       \
    check_extended(GSHMEM_TEST_EXT_OPS(NAME, T)); \
  }
GSHMEM_FOR_AMO_EXTENDED_TYPES(GSHMEM_TEST_AMO_EXTENDED)
#undef GSHMEM_TEST_AMO_EXTENDED

// ---- The storm
// -----------------------------------------------------------------------------------

namespace {

template <class T>
void storm(const char* name, T (*fetch_add)(T*, T, int), void (*add)(T*, T, int),
           void (*inc)(T*, int), T (*fetch_inc)(T*, int)) {
  SCOPED_TRACE(std::string("storm on gshmem_") + name + "; " + seed_note());
  int me = gshmem_my_pe(), n = gshmem_n_pes();
  T* counter = static_cast<T*>(gshmem_calloc(1, sizeof(T)));
  EXPECT_NE(counter, nullptr);
  if (!counter) return;
  const int rounds = scaled(100000, 2000);
  std::vector<T> last(size_t(n), T(0));
  bool monotonic = true;
  gshmem_barrier_all();
  // Targets interleaved so every counter sees every PE at once; each round adds 1 + 2 + 1 + 1.
  for (int r = 0; r < rounds; ++r) {
    for (int i = 0; i < n; ++i) {
      int t = (me + i) % n;
      T before = fetch_add(counter, T(1), t);
      add(counter, T(2), t);
      inc(counter, t);
      T before_inc = fetch_inc(counter, t);
      // This PE's own operations on t are ordered: what it fetches only grows.
      if (before < last[size_t(t)] || before_inc < T(before + 3)) monotonic = false;
      last[size_t(t)] = T(before_inc + 1);
    }
  }
  gshmem_barrier_all();
  EXPECT_TRUE(monotonic) << "a fetched value went backwards";
  EXPECT_EQ(uint64_t(*counter), uint64_t(rounds) * uint64_t(n) * 5u)
      << "every PE added 5 per round, " << rounds << " rounds, " << n << " PEs";
  gshmem_barrier_all();
  gshmem_free(counter);
}

}  // namespace

TEST(AmoStorm, Uint64) {
  storm<uint64_t>("uint64", gshmem_uint64_atomic_fetch_add, gshmem_uint64_atomic_add,
                  gshmem_uint64_atomic_inc, gshmem_uint64_atomic_fetch_inc);
}

TEST(AmoStorm, Int) {
  storm<int>("int", gshmem_int_atomic_fetch_add, gshmem_int_atomic_add, gshmem_int_atomic_inc,
             gshmem_int_atomic_fetch_inc);
}

// A spin lock per PE built on compare_swap guards a non-atomic read-modify-write (g, then p).
// Lost updates would show as a short total.
TEST(AmoStorm, CompareSwapLock) {
  SCOPED_TRACE(seed_note());
  int me = gshmem_my_pe(), n = gshmem_n_pes();
  auto* lock = static_cast<long*>(gshmem_calloc(1, sizeof(long)));
  auto* count = static_cast<long*>(gshmem_calloc(1, sizeof(long)));
  ASSERT_TRUE(lock && count);
  const int per_target = scaled(4000, 100);
  gshmem_barrier_all();
  bool held_ok = true;
  for (int r = 0; r < per_target; ++r) {
    for (int i = 0; i < n; ++i) {
      int t = (me + i) % n;
      while (gshmem_long_atomic_compare_swap(lock, 0, me + 1, t) != 0) sched_yield();
      gshmem_fence();  // nothing below may be seen before the lock is ours
      long v = gshmem_long_g(count, t);
      gshmem_long_p(count, v + 1, t);
      gshmem_quiet();  // the increment is complete before the lock is released
      if (gshmem_long_atomic_swap(lock, 0, t) != me + 1) held_ok = false;
    }
  }
  gshmem_barrier_all();
  EXPECT_TRUE(held_ok) << "the lock word changed while this PE held the lock";
  EXPECT_EQ(*count, long(per_target) * n);
  EXPECT_EQ(*lock, 0);
  gshmem_barrier_all();
  gshmem_free(count);
  gshmem_free(lock);
}
