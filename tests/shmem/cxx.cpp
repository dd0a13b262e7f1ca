// shmem.h from C++ (built with oshc++): the C names, and the overloads that stand in for the C11
// generic interfaces (including the deprecated generic names, the untyped long routines and the
// team collectives).
#include <complex>
#include <cstdio>

#include "check.h"

static long target[4];
static int counter;
static double dvalue;
static unsigned long bits;
static long word;

int main() {
  shmem_init();
  int me = shmem_my_pe(), npes = shmem_n_pes();
  int right = (me + 1) % npes, left = (me + npes - 1) % npes;
  long src[4] = {me + 0L, me + 1L, me + 2L, me + 3L};
  shmem_put(target, src, 2, right);
  shmem_put(SHMEM_CTX_DEFAULT, target + 2, src + 2, 1, right);
  shmem_p(target + 3, src[3], right);
  shmem_atomic_add(&counter, 1, 0);
  shmem_atomic_inc(SHMEM_CTX_DEFAULT, &counter, 0);
  shmem_fadd(&counter, 1, 0);  // deprecated generic name
  shmem_atomic_set(&dvalue, 0.5, right);
  shmem_atomic_fetch_or(&bits, 1ul << me, 0);
  shmem_barrier_all();
  for (int i = 0; i < 4; ++i) CHECK_EQ(target[i], left + i);
  CHECK_EQ(shmem_g(&target[1], right), me + 1);
  if (me == 0) CHECK_EQ(shmem_atomic_fetch(&counter, 0), 3 * npes);
  CHECK(shmem_atomic_fetch(&dvalue, right) == 0.5);
  CHECK_EQ(shmem_atomic_fetch(&bits, 0), (1ul << npes) - 1);
  long got[4] = {};
  shmem_get(got, target, 4, right);
  for (int i = 0; i < 4; ++i) CHECK_EQ(got[i], me + i);
  shmem_barrier_all();
  shmem_long_p(&word, 1, right);
  shmem_wait_until(&word, SHMEM_CMP_EQ, 1L);  // the untyped long routine, as an overload
  shmem_wait(&word, 0L);
  CHECK_EQ(shmem_test(&word, SHMEM_CMP_EQ, 1L), 1);
  shmem_barrier_all();  // the right neighbour has seen its word before it changes
  CHECK_EQ(shmem_swap(&word, 2L, right), 1);
  shmem_barrier_all();
  // Team collectives by overload; the complex reductions take std::complex in C++.
  static long sums[2];
  static std::complex<double> zs[2];
  long mine[2] = {me + 1L, 2};
  std::complex<double> z[2] = {{1.0 * me, 1.0}, {2.0, 0.0}};
  CHECK_EQ(shmem_sum_reduce(SHMEM_TEAM_WORLD, sums, mine, 2), 0);
  CHECK_EQ(sums[0], npes * (npes + 1) / 2);
  CHECK_EQ(shmem_complexd_sum_reduce(SHMEM_TEAM_WORLD, zs, z, 2), 0);
  CHECK(zs[0] == std::complex<double>(npes * (npes - 1) / 2.0, 1.0 * npes));
  CHECK_EQ(shmem_broadcast(SHMEM_TEAM_WORLD, sums, mine, 2, npes - 1), 0);
  CHECK_EQ(sums[0], npes);
  // ...and the C99 complex types too (the GNU extension in C++), typed, generic and active-set.
  static float _Complex cf[2], f[2];
  static double _Complex cd[2], d[2], work[SHMEM_REDUCE_MIN_WRKDATA_SIZE];
  static long psync[SHMEM_REDUCE_SYNC_SIZE];
  for (long& w : psync) w = SHMEM_SYNC_VALUE;
  __real__ f[0] = 1.0f * me, __imag__ f[0] = 2.0f, __real__ f[1] = 1.0f, __imag__ f[1] = 0.0f;
  __real__ d[0] = 1.0, __imag__ d[0] = 1.0 * me, __real__ d[1] = 2.0, __imag__ d[1] = 0.0;
  shmem_barrier_all();
  CHECK_EQ(shmem_complexf_sum_reduce(SHMEM_TEAM_WORLD, cf, f, 2), 0);
  CHECK(__real__ cf[0] == npes * (npes - 1) / 2.0f && __imag__ cf[0] == 2.0f * npes);
  CHECK_EQ(shmem_prod_reduce(SHMEM_TEAM_WORLD, cd, d, 2), 0);
  CHECK_EQ(__real__ cd[1], 1 << npes);
  shmem_complexd_sum_to_all(cd, d, 2, 0, 0, npes, work, psync);
  CHECK(__real__ cd[0] == npes && __imag__ cd[0] == npes * (npes - 1) / 2.0);
  // shmem_sync in its team form.
  CHECK_EQ(shmem_sync(SHMEM_TEAM_WORLD), 0);
  if (me == 0) std::printf("cxx: %d PEs OK\n", npes);
  shmem_finalize();
  return 0;
}
