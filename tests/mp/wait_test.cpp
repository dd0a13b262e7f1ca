// Point-to-point synchronisation for every type of GSHMEM_FOR_WAIT_TYPES (generated from the
// X-macro list): wait_until and test with every comparison, the _all/_any/_some and _vector forms
// with status masks, masks that exclude everything, and peers that set the variables after
// random small delays.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "gshmem/gshmem.h"
#include "tests/common/mp_util.hpp"

using namespace gshmem_test;

namespace {

template <class T>
struct WaitOps {
  const char* name;
  void (*p)(T*, T, int);
  void (*wait_until)(T*, int, T);
  void (*wait_until_all)(T*, size_t, const int*, int, T);
  size_t (*wait_until_any)(T*, size_t, const int*, int, T);
  size_t (*wait_until_some)(T*, size_t, size_t*, const int*, int, T);
  void (*wait_until_all_vector)(T*, size_t, const int*, int, T*);
  size_t (*wait_until_any_vector)(T*, size_t, const int*, int, T*);
  size_t (*wait_until_some_vector)(T*, size_t, size_t*, const int*, int, T*);
  int (*test)(T*, int, T);
  int (*test_all)(T*, size_t, const int*, int, T);
  size_t (*test_any)(T*, size_t, const int*, int, T);
  size_t (*test_some)(T*, size_t, size_t*, const int*, int, T);
  int (*test_all_vector)(T*, size_t, const int*, int, T*);
  size_t (*test_any_vector)(T*, size_t, const int*, int, T*);
  size_t (*test_some_vector)(T*, size_t, size_t*, const int*, int, T*);
};

// Local checks: every comparison of test, and the forms that look at several variables, on
// values this PE sets itself.
template <class T>
void check_local(const WaitOps<T>& o) {
  SCOPED_TRACE(std::string("local tests of gshmem_") + o.name);
  T* v = static_cast<T*>(gshmem_calloc(4, sizeof(T)));
  EXPECT_NE(v, nullptr);
  if (!v) return;
  v[0] = T(5);
  struct Case {
    int cmp;
    T value;
    int want;
  } cases[] = {{GSHMEM_CMP_EQ, T(5), 1}, {GSHMEM_CMP_EQ, T(6), 0}, {GSHMEM_CMP_NE, T(6), 1},
               {GSHMEM_CMP_NE, T(5), 0}, {GSHMEM_CMP_GT, T(4), 1}, {GSHMEM_CMP_GT, T(5), 0},
               {GSHMEM_CMP_LE, T(5), 1}, {GSHMEM_CMP_LE, T(4), 0}, {GSHMEM_CMP_LT, T(6), 1},
               {GSHMEM_CMP_LT, T(5), 0}, {GSHMEM_CMP_GE, T(5), 1}, {GSHMEM_CMP_GE, T(6), 0}};
  for (const Case& c : cases) {
    EXPECT_EQ(o.test(&v[0], c.cmp, c.value), c.want) << "5 cmp " << c.cmp << " " << +c.value;
  }
  // Signed types: negative values compare as negative.
  if (T(-1) < T(0)) {
    v[0] = T(-3);
    EXPECT_EQ(o.test(&v[0], GSHMEM_CMP_LT, T(0)), 1);
    EXPECT_EQ(o.test(&v[0], GSHMEM_CMP_GT, T(-4)), 1);
  }
  // v = {1, 2, 3, 4}
  for (int i = 0; i < 4; ++i) v[i] = T(i + 1);
  int none[4] = {0, 0, 0, 0}, skip_01[4] = {1, 1, 0, 0}, all_out[4] = {1, 1, 1, 1};
  size_t idx[4] = {99, 99, 99, 99};
  EXPECT_EQ(o.test_all(v, 4, none, GSHMEM_CMP_GE, T(1)), 1);
  EXPECT_EQ(o.test_all(v, 4, nullptr, GSHMEM_CMP_GE, T(2)), 0);
  EXPECT_EQ(o.test_all(v, 4, skip_01, GSHMEM_CMP_GE, T(3)), 1) << "masked elements do not count";
  EXPECT_EQ(o.test_any(v, 4, none, GSHMEM_CMP_EQ, T(3)), 2u);
  EXPECT_EQ(o.test_any(v, 4, skip_01, GSHMEM_CMP_LE, T(2)), SIZE_MAX) << "only masked ones hold";
  EXPECT_EQ(o.test_any(v, 4, nullptr, GSHMEM_CMP_GT, T(9)), SIZE_MAX);
  EXPECT_EQ(o.test_some(v, 4, idx, nullptr, GSHMEM_CMP_GE, T(2)), 3u);
  EXPECT_EQ(idx[0], 1u);
  EXPECT_EQ(idx[1], 2u);
  EXPECT_EQ(idx[2], 3u);
  EXPECT_EQ(o.test_some(v, 4, idx, skip_01, GSHMEM_CMP_NE, T(3)), 1u);
  EXPECT_EQ(idx[0], 3u);
  T want[4] = {T(1), T(0), T(3), T(0)};
  EXPECT_EQ(o.test_all_vector(v, 4, nullptr, GSHMEM_CMP_GE, want), 1);
  EXPECT_EQ(o.test_all_vector(v, 4, nullptr, GSHMEM_CMP_EQ, want), 0);
  EXPECT_EQ(o.test_any_vector(v, 4, none, GSHMEM_CMP_EQ, want), 0u);
  EXPECT_EQ(o.test_any_vector(v, 4, skip_01, GSHMEM_CMP_EQ, want), 2u);
  EXPECT_EQ(o.test_some_vector(v, 4, idx, nullptr, GSHMEM_CMP_EQ, want), 2u);
  EXPECT_EQ(idx[0], 0u);
  EXPECT_EQ(idx[1], 2u);
  // Everything excluded: all holds vacuously, any finds nothing (SIZE_MAX), some finds 0, and
  // the waits return at once instead of waiting for nothing.
  EXPECT_EQ(o.test_all(v, 4, all_out, GSHMEM_CMP_EQ, T(9)), 1);
  EXPECT_EQ(o.test_any(v, 4, all_out, GSHMEM_CMP_GE, T(0)), SIZE_MAX);
  EXPECT_EQ(o.test_some(v, 4, idx, all_out, GSHMEM_CMP_GE, T(0)), 0u);
  EXPECT_EQ(o.test_all_vector(v, 4, all_out, GSHMEM_CMP_EQ, want), 1);
  EXPECT_EQ(o.test_any_vector(v, 4, all_out, GSHMEM_CMP_GE, want), SIZE_MAX);
  EXPECT_EQ(o.test_some_vector(v, 4, idx, all_out, GSHMEM_CMP_GE, want), 0u);
  o.wait_until_all(v, 4, all_out, GSHMEM_CMP_EQ, T(9));
  EXPECT_EQ(o.wait_until_any(v, 4, all_out, GSHMEM_CMP_EQ, T(9)), SIZE_MAX);
  EXPECT_EQ(o.wait_until_some(v, 4, idx, all_out, GSHMEM_CMP_EQ, T(9)), 0u);
  o.wait_until_all_vector(v, 4, all_out, GSHMEM_CMP_EQ, want);
  EXPECT_EQ(o.wait_until_any_vector(v, 4, all_out, GSHMEM_CMP_GT, want), SIZE_MAX);
  EXPECT_EQ(o.wait_until_some_vector(v, 4, idx, all_out, GSHMEM_CMP_GT, want), 0u);
  // Zero elements behave like everything excluded.
  EXPECT_EQ(o.test_all(v, 0, nullptr, GSHMEM_CMP_EQ, T(9)), 1);
  EXPECT_EQ(o.wait_until_any(v, 0, nullptr, GSHMEM_CMP_EQ, T(9)), SIZE_MAX);
  EXPECT_EQ(o.wait_until_some(v, 0, idx, nullptr, GSHMEM_CMP_EQ, T(9)), 0u);
  // Conditions that already hold return at once.
  o.wait_until(&v[3], GSHMEM_CMP_EQ, T(4));
  o.wait_until_all(v, 4, nullptr, GSHMEM_CMP_LE, T(4));
  gshmem_barrier_all();
  gshmem_free(v);
}

// One phase: every PE sets its element on every other PE (in random order, after random short
// delays) to `value`; the PE waits with `wait` and then checks what it can.
template <class T, class Wait>
void phase(const WaitOps<T>& o, T* ivars, T value, uint64_t& rng, const char* what, Wait wait) {
  SCOPED_TRACE(std::string("gshmem_") + o.name + "_" + what);
  int me = gshmem_my_pe(), n = gshmem_n_pes();
  std::vector<int> order;
  for (int t = 0; t < n; ++t) {
    if (t != me) order.push_back(t);
  }
  for (size_t i = order.size(); i > 1; --i) std::swap(order[i - 1], order[splitmix64(rng) % i]);
  for (int t : order) {
    jitter(rng, 300);
    o.p(&ivars[me], value, t);
    gshmem_quiet();
  }
  wait();
  gshmem_barrier_all();
}

template <class T>
void check_remote(const WaitOps<T>& o) {
  SCOPED_TRACE(seed_note());
  int me = gshmem_my_pe(), n = gshmem_n_pes();
  const size_t un = size_t(n);
  T* ivars = static_cast<T*>(gshmem_calloc(un, sizeof(T)));
  EXPECT_NE(ivars, nullptr);
  if (!ivars) return;
  uint64_t rng = key(job_seed(), o.name, me);
  std::vector<int> status(un, 0);
  status[size_t(me)] = 1;  // nobody sets this PE's own element
  std::vector<size_t> idx(un);
  gshmem_barrier_all();

  phase(o, ivars, T(1), rng, "wait_until", [&] {
    for (int s = 0; s < n; ++s) {
      if (s != me) o.wait_until(&ivars[s], GSHMEM_CMP_EQ, T(1));
    }
    for (int s = 0; s < n; ++s) EXPECT_EQ(ivars[s], s == me ? T(0) : T(1)) << "from PE " << s;
  });
  phase(o, ivars, T(2), rng, "wait_until_all", [&] {
    o.wait_until_all(ivars, un, status.data(), GSHMEM_CMP_GE, T(2));
    for (int s = 0; s < n; ++s) {
      if (s != me) {
        EXPECT_EQ(ivars[s], T(2)) << "from PE " << s;
      }
    }
  });
  phase(o, ivars, T(3), rng, "wait_until_any", [&] {
    // Collect every sender through _any, excluding the ones already seen.
    std::vector<int> mask = status;
    for (int k = 0; k < n - 1; ++k) {
      size_t i = o.wait_until_any(ivars, un, mask.data(), GSHMEM_CMP_EQ, T(3));
      EXPECT_LT(i, un);
      if (i >= un) break;
      EXPECT_EQ(mask[i], 0) << "an excluded element was returned";
      EXPECT_EQ(ivars[i], T(3));
      mask[i] = 1;
    }
    EXPECT_EQ(o.wait_until_any(ivars, un, mask.data(), GSHMEM_CMP_EQ, T(3)), SIZE_MAX);
  });
  phase(o, ivars, T(4), rng, "wait_until_some", [&] {
    std::vector<int> mask = status;
    int seen = 0;
    while (seen < n - 1) {
      size_t k = o.wait_until_some(ivars, un, idx.data(), mask.data(), GSHMEM_CMP_EQ, T(4));
      EXPECT_GE(k, 1u);
      if (k == 0) break;
      for (size_t j = 0; j < k; ++j) {
        EXPECT_EQ(mask[idx[j]], 0) << "an excluded element was returned";
        EXPECT_EQ(ivars[idx[j]], T(4));
        mask[idx[j]] = 1;
        ++seen;
      }
    }
  });
  // Vector forms: element s must reach 5 + (s % 3); every PE sets its value to that.
  std::vector<T> want(un);
  for (int s = 0; s < n; ++s) want[size_t(s)] = T(5 + s % 3);
  auto vector_phase = [&](const char* what, auto wait) {
    SCOPED_TRACE(std::string("gshmem_") + o.name + "_" + what);
    std::vector<int> order;
    for (int t = 0; t < n; ++t) {
      if (t != me) order.push_back(t);
    }
    for (int t : order) {
      jitter(rng, 300);
      o.p(&ivars[me], want[size_t(me)], t);
      gshmem_quiet();
    }
    wait();
    gshmem_barrier_all();
    for (int s = 0; s < n; ++s) ivars[s] = T(0);
    gshmem_barrier_all();
  };
  vector_phase("wait_until_all_vector", [&] {
    o.wait_until_all_vector(ivars, un, status.data(), GSHMEM_CMP_EQ, want.data());
    EXPECT_EQ(o.test_all_vector(ivars, un, status.data(), GSHMEM_CMP_EQ, want.data()), 1);
  });
  vector_phase("wait_until_any_vector", [&] {
    std::vector<int> mask = status;
    for (int k = 0; k < n - 1; ++k) {
      size_t i = o.wait_until_any_vector(ivars, un, mask.data(), GSHMEM_CMP_EQ, want.data());
      EXPECT_LT(i, un);
      if (i >= un) break;
      EXPECT_EQ(mask[i], 0);
      EXPECT_EQ(ivars[i], want[i]);
      mask[i] = 1;
    }
  });
  vector_phase("wait_until_some_vector", [&] {
    std::vector<int> mask = status;
    int seen = 0;
    while (seen < n - 1) {
      size_t k =
          o.wait_until_some_vector(ivars, un, idx.data(), mask.data(), GSHMEM_CMP_GE, want.data());
      EXPECT_GE(k, 1u);
      if (k == 0) break;
      for (size_t j = 0; j < k; ++j) {
        EXPECT_EQ(mask[idx[j]], 0);
        mask[idx[j]] = 1;
        ++seen;
      }
    }
    // Everything has arrived: the test forms agree.
    EXPECT_EQ(o.test_some_vector(ivars, un, idx.data(), status.data(), GSHMEM_CMP_EQ, want.data()),
              un - 1);
    EXPECT_EQ(o.test_any_vector(ivars, un, status.data(), GSHMEM_CMP_NE, want.data()), SIZE_MAX);
  });
  gshmem_free(ivars);
}

template <class T>
void run_wait(const WaitOps<T>& o) {
  check_local(o);
  check_remote(o);
}

}  // namespace

#define GSHMEM_TEST_WAIT(NAME, T)                                                               \
  TEST(Wait, NAME) {                                                                            \
    run_wait(WaitOps<T>{                                                                        \
        #NAME, gshmem_##NAME##_p, gshmem_##NAME##_wait_until, gshmem_##NAME##_wait_until_all,   \
        gshmem_##NAME##_wait_until_any, gshmem_##NAME##_wait_until_some,                        \
        gshmem_##NAME##_wait_until_all_vector, gshmem_##NAME##_wait_until_any_vector,           \
        gshmem_##NAME##_wait_until_some_vector, gshmem_##NAME##_test, gshmem_##NAME##_test_all, \
        gshmem_##NAME##_test_any, gshmem_##NAME##_test_some, gshmem_##NAME##_test_all_vector,   \
        gshmem_##NAME##_test_any_vector, gshmem_##NAME##_test_some_vector});                    \
  }
GSHMEM_FOR_WAIT_TYPES(GSHMEM_TEST_WAIT)
#undef GSHMEM_TEST_WAIT
