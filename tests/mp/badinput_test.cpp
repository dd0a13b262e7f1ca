// Bad input in throw mode (gshmemx_set_error_mode(GSHMEMX_ERROR_THROW)): a PE out of range, an
// address outside the symmetric heap, sizes that overflow or run past the heap, bad strides, bad
// comparison operators, bad signal operations, misaligned atomics. Each must throw gshmem::Error
// naming the call and the argument, and must not touch any PE's memory: every PE aims its bad
// calls at its neighbour's buffer, and after a barrier each PE's buffer still has its checksum.
// Calls with a return value (team calls) report through it instead.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "gshmem/gshmem.h"
#include "gshmem/gshmem.hpp"
#include "tests/common/mp_util.hpp"

using namespace gshmem_test;

namespace {

constexpr size_t kBytes = 4096;

struct Victim {
  unsigned char* buf = nullptr;  // symmetric, kBytes, a known pattern on every PE
  uint64_t* sig = nullptr;       // symmetric signal words
  uint64_t sum = 0;
  int me = gshmem_my_pe(), n = gshmem_n_pes();
  int peer = (gshmem_my_pe() + 1) % gshmem_n_pes();

  Victim() {
    buf = static_cast<unsigned char*>(gshmem_malloc(kBytes));
    sig = static_cast<uint64_t*>(gshmem_calloc(4, sizeof(uint64_t)));
    EXPECT_TRUE(buf && sig);
    if (buf) fill(buf, kBytes, key("victim", me));
    if (sig) sig[0] = sig[1] = 77;
    sum = checksum();
    gshmem_barrier_all();
  }
  ~Victim() {
    gshmem_barrier_all();
    EXPECT_EQ(checksum(), sum) << "a failed call changed this PE's symmetric memory";
    gshmem_barrier_all();
    gshmem_free(sig);
    gshmem_free(buf);
  }
  uint64_t checksum() const {
    return (buf ? gshmem_test::checksum(buf, kBytes) : 0) ^
           (sig ? gshmem_test::checksum(sig, 4 * sizeof(uint64_t)) * 3 : 0);
  }
};

}  // namespace

TEST(BadInput, PeOutOfRange) {
  ThrowMode throwing;
  Victim v;
  int n = v.n;
  int* ibuf = reinterpret_cast<int*>(v.buf);
  std::string too_big = "pe=" + std::to_string(n + 5);
  EXPECT_TRUE(throws_error([&] { gshmem_int_p(ibuf, 1, n + 5); }, "gshmem_int_p", "pe", too_big));
  EXPECT_TRUE(throws_error([&] { gshmem_int_p(ibuf, 1, n); }, "gshmem_int_p", "pe",
                           "pe=" + std::to_string(n)));
  EXPECT_TRUE(throws_error([&] { gshmem_int_p(ibuf, 1, -1); }, "gshmem_int_p", "pe", "pe=-1"));
  EXPECT_TRUE(throws_error([&] { (void)gshmem_long_g(reinterpret_cast<long*>(v.buf), -3); },
                           "gshmem_long_g", "pe", "pe=-3"));
  int src[4] = {1, 2, 3, 4};
  EXPECT_TRUE(throws_error([&] { gshmem_int_put(ibuf, src, 4, n + 1); }, "gshmem_int_put", "pe"));
  EXPECT_TRUE(
      throws_error([&] { gshmem_putmem_nbi(v.buf, src, 16, 1 << 30); }, "gshmem_putmem_nbi", "pe"));
  EXPECT_TRUE(throws_error([&] { gshmem_int_get(src, ibuf, 4, n); }, "gshmem_int_get", "pe"));
  EXPECT_TRUE(throws_error([&] { gshmem_iput64(v.buf, src, 1, 1, 2, -2); }, "gshmem_iput64", "pe"));
  EXPECT_TRUE(
      throws_error([&] { gshmem_int_atomic_add(ibuf, 1, n); }, "gshmem_int_atomic_add", "pe"));
  EXPECT_TRUE(throws_error([&] { (void)gshmem_uint64_atomic_fetch_inc(v.sig, n + 2); },
                           "gshmem_uint64_atomic_fetch_inc", "pe"));
  EXPECT_TRUE(throws_error([&] { gshmem_signal_op(v.sig, 1, GSHMEM_SIGNAL_ADD, -1); },
                           "gshmem_signal_op", "pe"));
  EXPECT_TRUE(
      throws_error([&] { gshmem_putmem_signal(v.buf, src, 8, v.sig, 1, GSHMEM_SIGNAL_SET, n); },
                   "gshmem_putmem_signal", "pe"));
  // gshmem_ptr has a return value: NULL.
  EXPECT_EQ(gshmem_ptr(v.buf, n), nullptr);
  EXPECT_EQ(gshmem_ptr(v.buf, -1), nullptr);
}

TEST(BadInput, AddressOutsideTheHeap) {
  ThrowMode throwing;
  Victim v;
  int on_stack[8] = {};
  std::vector<int> on_c_heap(8);
  int src[8] = {};
  EXPECT_TRUE(
      throws_error([&] { gshmem_int_p(on_stack, 1, v.peer); }, "gshmem_int_p", "dest", "dest="));
  EXPECT_TRUE(throws_error([&] { gshmem_int_put(on_c_heap.data(), src, 8, v.peer); },
                           "gshmem_int_put", "dest", "not in the symmetric heap"));
  EXPECT_TRUE(throws_error([&] { gshmem_int_get(src, on_stack, 8, v.peer); }, "gshmem_int_get",
                           "source", "source="));
  EXPECT_TRUE(
      throws_error([&] { (void)gshmem_int_g(on_stack, v.peer); }, "gshmem_int_g", "source"));
  EXPECT_TRUE(
      throws_error([&] { gshmem_putmem(nullptr, src, 4, v.peer); }, "gshmem_putmem", "dest"));
  EXPECT_TRUE(throws_error([&] { gshmem_getmem_nbi(src, nullptr, 4, v.peer); }, "gshmem_getmem_nbi",
                           "source"));
  EXPECT_TRUE(throws_error([&] { gshmem_int_atomic_inc(on_stack, v.peer); },
                           "gshmem_int_atomic_inc", "dest"));
  uint64_t local_sig = 0;
  EXPECT_TRUE(throws_error([&] { gshmem_signal_op(&local_sig, 1, GSHMEM_SIGNAL_SET, v.peer); },
                           "gshmem_signal_op", "sig_addr"));
  // Data inside the heap, signal outside: neither may be written.
  EXPECT_TRUE(throws_error(
      [&] { gshmem_putmem_signal(v.buf, src, 16, &local_sig, 1, GSHMEM_SIGNAL_SET, v.peer); },
      "gshmem_putmem_signal", "sig_addr"));
  EXPECT_TRUE(throws_error(
      [&] { gshmem_int_put_signal_nbi(on_stack, src, 4, v.sig, 1, GSHMEM_SIGNAL_SET, v.peer); },
      "gshmem_int_put_signal_nbi", "dest"));
  // Misaligned atomics are refused, naming the address argument (as the C API names it) and
  // saying what is wrong with it: it is in the heap, but misaligned.
  EXPECT_TRUE(
      throws_error([&] { gshmem_int_atomic_add(reinterpret_cast<int*>(v.buf + 2), 1, v.peer); },
                   "gshmem_int_atomic_add", "dest", "misaligned"));
  EXPECT_TRUE(throws_error(
      [&] { (void)gshmem_uint64_atomic_fetch(reinterpret_cast<uint64_t*>(v.buf + 4), v.peer); },
      "gshmem_uint64_atomic_fetch", "source", "misaligned"));
  EXPECT_TRUE(throws_error([&] { (void)gshmem_int_atomic_fetch(on_stack, v.peer); },
                           "gshmem_int_atomic_fetch", "source", "not in the symmetric heap"));
  EXPECT_EQ(local_sig, 0u);
}

TEST(BadInput, SizesThatOverflowOrRunPastTheHeap) {
  ThrowMode throwing;
  Victim v;
  int src[8] = {};
  int* ibuf = reinterpret_cast<int*>(v.buf);
  // nelems * sizeof(T) overflows 64 bits.
  EXPECT_TRUE(throws_error([&] { gshmem_int_put(ibuf, src, SIZE_MAX / 2, v.peer); },
                           "gshmem_int_put", "size"));
  EXPECT_TRUE(throws_error(
      [&] {
        gshmem_uint64_get(reinterpret_cast<uint64_t*>(src), v.sig, (SIZE_MAX >> 3) + 2, v.peer);
      },
      "gshmem_uint64_get", "size"));
  EXPECT_TRUE(throws_error([&] { gshmem_put128_nbi(v.buf, src, SIZE_MAX / 8, v.peer); },
                           "gshmem_put128_nbi", "size"));
  // Bytes that do not overflow but are larger than the heap, or run past its end.
  EXPECT_TRUE(
      throws_error([&] { gshmem_putmem(v.buf, src, SIZE_MAX, v.peer); }, "gshmem_putmem", "size"));
  EXPECT_TRUE(throws_error([&] { gshmem_putmem(v.buf, src, size_t(1) << 50, v.peer); },
                           "gshmem_putmem", "size"));
  EXPECT_TRUE(throws_error([&] { gshmem_getmem(src, v.buf, size_t(1) << 40, v.peer); },
                           "gshmem_getmem", "size"));
  EXPECT_TRUE(throws_error(
      [&] {
        gshmem_putmem_signal_nbi(v.buf, src, SIZE_MAX - 7, v.sig, 1, GSHMEM_SIGNAL_ADD, v.peer);
      },
      "gshmem_putmem_signal_nbi", "size"));
  // Strided spans that overflow.
  EXPECT_TRUE(throws_error([&] { gshmem_int_iput(ibuf, src, PTRDIFF_MAX, 1, 3, v.peer); },
                           "gshmem_int_iput", "size"));
  EXPECT_TRUE(throws_error([&] { gshmem_int_iget(src, ibuf, 1, 1, SIZE_MAX, v.peer); },
                           "gshmem_int_iget", "size"));
}

TEST(BadInput, BadStrides) {
  ThrowMode throwing;
  Victim v;
  int src[8] = {};
  int* ibuf = reinterpret_cast<int*>(v.buf);
  EXPECT_TRUE(throws_error([&] { gshmem_int_iput(ibuf, src, 0, 1, 4, v.peer); }, "gshmem_int_iput",
                           "stride", "stride=0"));
  EXPECT_TRUE(throws_error([&] { gshmem_int_iput(ibuf, src, 1, -2, 4, v.peer); }, "gshmem_int_iput",
                           "stride", "stride=-2"));
  EXPECT_TRUE(throws_error([&] { gshmem_int_iget(src, ibuf, -1, 1, 4, v.peer); }, "gshmem_int_iget",
                           "stride", "stride=-1"));
  EXPECT_TRUE(
      throws_error([&] { gshmem_iget32(src, ibuf, 1, 0, 4, v.peer); }, "gshmem_iget32", "stride"));
}

TEST(BadInput, BadComparisonOperators) {
  ThrowMode throwing;
  Victim v;
  int* ivar = reinterpret_cast<int*>(v.buf);
  int status[2] = {0, 0};
  size_t idx[2];
  int cmp_values[2] = {0, 0};
  EXPECT_TRUE(throws_error([&] { gshmem_int_wait_until(ivar, 99, 0); }, "gshmem_int_wait_until",
                           "cmp", "cmp=99"));
  EXPECT_TRUE(throws_error([&] { (void)gshmem_int_test(ivar, -1, 0); }, "gshmem_int_test", "cmp",
                           "cmp=-1"));
  EXPECT_TRUE(throws_error(
      [&] { gshmem_long_wait_until_all(reinterpret_cast<long*>(ivar), 2, status, 6, 0); },
      "gshmem_long_wait_until_all", "cmp"));
  EXPECT_TRUE(throws_error([&] { (void)gshmem_int_wait_until_any(ivar, 2, status, 17, 0); },
                           "gshmem_int_wait_until_any", "cmp"));
  EXPECT_TRUE(throws_error(
      [&] { (void)gshmem_int_test_some_vector(ivar, 2, idx, status, 1000, cmp_values); },
      "gshmem_int_test_some_vector", "cmp"));
  EXPECT_TRUE(throws_error([&] { (void)gshmem_signal_wait_until(v.sig, 42, 0); },
                           "gshmem_signal_wait_until", "cmp", "cmp=42"));
}

TEST(BadInput, BadSignalOperations) {
  ThrowMode throwing;
  Victim v;
  int src[4] = {5, 6, 7, 8};
  EXPECT_TRUE(throws_error([&] { gshmem_signal_op(v.sig, 1, 2, v.peer); }, "gshmem_signal_op",
                           "sig_op", "sig_op=2"));
  EXPECT_TRUE(throws_error([&] { gshmem_signal_op(v.sig, 1, -1, v.peer); }, "gshmem_signal_op",
                           "sig_op", "sig_op=-1"));
  // The data of a put-with-signal with a bad operation must not be written either.
  EXPECT_TRUE(throws_error([&] { gshmem_putmem_signal(v.buf, src, 16, v.sig, 1, 7, v.peer); },
                           "gshmem_putmem_signal", "sig_op", "sig_op=7"));
  EXPECT_TRUE(throws_error(
      [&] {
        gshmem_int_put_signal_nbi(reinterpret_cast<int*>(v.buf), src, 4, v.sig, 1, 3, v.peer);
      },
      "gshmem_int_put_signal_nbi", "sig_op"));
}

// Team handles: the team calls have return values and report through them.
TEST(BadInput, BadTeamHandles) {
  ThrowMode throwing;
  Victim v;
  for (gshmem_team_t bad : {GSHMEM_TEAM_INVALID, gshmem_team_t(GSHMEM_MAX_TEAMS), gshmem_team_t(40),
                            gshmem_team_t(-9)}) {
    SCOPED_TRACE("team " + std::to_string(bad));
    testing::internal::CaptureStderr();
    int barrier_rc = gshmem_barrier(bad);
    int sync_rc = gshmem_team_sync(bad);
    std::string err = testing::internal::GetCapturedStderr();
    EXPECT_NE(barrier_rc, 0);
    EXPECT_NE(sync_rc, 0);
    EXPECT_NE(err.find("gshmem_barrier"), std::string::npos) << err;
    EXPECT_NE(err.find("team=" + std::to_string(bad)), std::string::npos) << err;
    gshmem_team_t out = 5;
    // GSHMEM_TEAM_INVALID as the parent means "in no parent": no team, and no error.
    if (bad == GSHMEM_TEAM_INVALID) {
      EXPECT_EQ(gshmem_team_split_strided(bad, 0, 1, 1, nullptr, 0, &out), 0);
    } else {
      EXPECT_NE(gshmem_team_split_strided(bad, 0, 1, 1, nullptr, 0, &out), 0);
    }
    EXPECT_EQ(out, GSHMEM_TEAM_INVALID);
    EXPECT_EQ(gshmem_team_my_pe(bad), -1);
    EXPECT_EQ(gshmem_team_n_pes(bad), -1);
    gshmem_team_config_t config{};
    EXPECT_NE(gshmem_team_get_config(bad, GSHMEM_TEAM_NUM_CONTEXTS, &config), 0);
  }
}

// After all of the above the job is healthy: a normal round of puts works.
TEST(BadInput, JobStillHealthy) {
  int me = gshmem_my_pe(), n = gshmem_n_pes();
  int* slots = static_cast<int*>(gshmem_calloc(size_t(n), sizeof(int)));
  ASSERT_NE(slots, nullptr);
  for (int t = 0; t < n; ++t) gshmem_int_p(&slots[me], me + 1, t);
  gshmem_barrier_all();
  for (int s = 0; s < n; ++s) EXPECT_EQ(slots[s], s + 1);
  gshmem_barrier_all();
  gshmem_free(slots);
}
