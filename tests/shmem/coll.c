/* Team collectives through the OpenSHMEM API, on the world team and on the even PEs: broadcast
 * (the root's dest too), collect with a different size on every member, fcollect, alltoall and
 * alltoalls, each typed (every standard RMA type) and in its mem form; every reduction of every
 * type it takes (complex included), in place too; and the C11 generic names. Sources are
 * globals, dests globals or a heap block.
 *
 *   coll [--few]   --few: int, long double, uint64, double, the complex types and the mem forms */
#include <complex.h>
#include <string.h>

#include "check.h"

#define N 6
#define MAXPES 16

static int me, npes;

/* Movement, typed: member j's source holds TAG(j, k, salt) at k. */
#define DEF_MOVE(NAME, T, A)                                                     \
  static T mv_src_##NAME[MAXPES * N * 2], mv_dst_##NAME[MAXPES * N * 2];         \
  static void move_##NAME(shmem_team_t team) {                                   \
    int n = shmem_team_n_pes(team), i = shmem_team_my_pe(team);                  \
    T* src = mv_src_##NAME;                                                      \
    T* dst = mv_dst_##NAME;                                                      \
    for (int k = 0; k < MAXPES * N * 2; ++k) {                                   \
      src[k] = (T)TAG(i, k, 1);                                                  \
      dst[k] = (T)0;                                                             \
    }                                                                            \
    shmem_team_sync(team);                                                       \
    CHECK_EQ(shmem_##NAME##_broadcast(team, dst, src, N, n - 1), 0);             \
    for (int k = 0; k < N; ++k) CHECK_EQ(dst[k], TAG(n - 1, k, 1));              \
    CHECK_EQ(shmem_##NAME##_collect(team, dst, src, (size_t)i + 1), 0);          \
    for (int j = 0, at = 0; j < n; at += j + 1, ++j) {                           \
      for (int k = 0; k <= j; ++k) CHECK_EQ(dst[at + k], TAG(j, k, 1));          \
    }                                                                            \
    CHECK_EQ(shmem_##NAME##_fcollect(team, dst, src, N), 0);                     \
    for (int j = 0; j < n; ++j) {                                                \
      for (int k = 0; k < N; ++k) CHECK_EQ(dst[j * N + k], TAG(j, k, 1));        \
    }                                                                            \
    CHECK_EQ(shmem_##NAME##_alltoall(team, dst, src, N), 0);                     \
    for (int j = 0; j < n; ++j) {                                                \
      for (int k = 0; k < N; ++k) CHECK_EQ(dst[j * N + k], TAG(j, i* N + k, 1)); \
    }                                                                            \
    for (int k = 0; k < MAXPES * N * 2; ++k) dst[k] = (T)0;                      \
    shmem_team_sync(team);                                                       \
    /* alltoalls over 2 elements per block, dest stride 2, source stride 3 */    \
    CHECK_EQ(shmem_##NAME##_alltoalls(team, dst, src, 2, 3, 2), 0);              \
    for (int j = 0; j < n; ++j) {                                                \
      for (int k = 0; k < 2; ++k) {                                              \
        CHECK_EQ(dst[2 * (j * 2 + k)], TAG(j, 3 * (i * 2 + k), 1));              \
        CHECK_EQ(dst[2 * (j * 2 + k) + 1], 0);                                   \
      }                                                                          \
    }                                                                            \
    shmem_team_sync(team);                                                       \
  }
GSHMEM_COMPAT_RMA_TYPES(DEF_MOVE, )

/* The mem forms, into a heap block (allocated by the whole world: allocation is collective). */
static char mem_src[MAXPES * 64];
static char* mem_dst;
static void move_mem(shmem_team_t team) {
  int n = shmem_team_n_pes(team), i = shmem_team_my_pe(team);
  char* dst = mem_dst;
  memset(dst, 0, MAXPES * 64);
  for (int k = 0; k < MAXPES * 64; ++k) mem_src[k] = (char)TAG(i, k, 2);
  shmem_team_sync(team);
  CHECK_EQ(shmem_broadcastmem(team, dst, mem_src, 33, 0), 0);
  for (int k = 0; k < 33; ++k) CHECK_EQ(dst[k], TAG(0, k, 2));
  CHECK_EQ(shmem_collectmem(team, dst, mem_src, (size_t)(3 * i)), 0);
  for (int j = 0, at = 0; j < n; at += 3 * j, ++j) {
    for (int k = 0; k < 3 * j; ++k) CHECK_EQ(dst[at + k], TAG(j, k, 2));
  }
  CHECK_EQ(shmem_fcollectmem(team, dst, mem_src, 7), 0);
  for (int j = 0; j < n; ++j) {
    for (int k = 0; k < 7; ++k) CHECK_EQ(dst[j * 7 + k], TAG(j, k, 2));
  }
  CHECK_EQ(shmem_alltoallmem(team, dst, mem_src, 5), 0);
  for (int j = 0; j < n; ++j) {
    for (int k = 0; k < 5; ++k) CHECK_EQ(dst[j * 5 + k], TAG(j, i * 5 + k, 2));
  }
  CHECK_EQ(shmem_alltoallsmem(team, dst, mem_src, 1, 2, 3), 0);
  for (int j = 0; j < n; ++j) {
    for (int k = 0; k < 3; ++k) CHECK_EQ(dst[j * 3 + k], TAG(j, 2 * (i * 3 + k), 2));
  }
  shmem_team_sync(team);
}

/* Reductions: member j holds j + 1 + (k % 2) at k (1 + (k % 2) for prod, to stay small), and
 * bits_of(j) for the bitwise ones: bit j % 6, and bit 6 everywhere (all fit in 8 bits). */
static long bits_of(int j) {
  return (1L << (j % 6)) | 64;
}
#define DEF_RED_DATA(NAME, T, A) static T red_src_##NAME[N], red_dst_##NAME[N];
GSHMEM_COMPAT_REDUCE_ARITH(DEF_RED_DATA, )
#define DEF_RED_BITS(NAME, T, A)                                                     \
  static void bitwise_##NAME(shmem_team_t team) {                                    \
    int n = shmem_team_n_pes(team), i = shmem_team_my_pe(team);                      \
    long and_all = 0xff, or_all = 0, xor_all = 0;                                    \
    for (int j = 0; j < n; ++j) {                                                    \
      and_all &= bits_of(j);                                                         \
      or_all |= bits_of(j);                                                          \
      xor_all ^= bits_of(j);                                                         \
    }                                                                                \
    for (int k = 0; k < N; ++k) red_src_##NAME[k] = (T)bits_of(i);                   \
    CHECK_EQ(shmem_##NAME##_and_reduce(team, red_dst_##NAME, red_src_##NAME, N), 0); \
    CHECK_EQ(red_dst_##NAME[N - 1], and_all);                                        \
    CHECK_EQ(shmem_##NAME##_or_reduce(team, red_dst_##NAME, red_src_##NAME, N), 0);  \
    CHECK_EQ(red_dst_##NAME[0], or_all);                                             \
    CHECK_EQ(shmem_##NAME##_xor_reduce(team, red_src_##NAME, red_src_##NAME, N), 0); \
    CHECK_EQ(red_src_##NAME[2], xor_all);                                            \
  }
GSHMEM_COMPAT_REDUCE_BITWISE(DEF_RED_BITS, )
#define DEF_RED_MINMAX(NAME, T, A)                                                        \
  static void minmax_##NAME(shmem_team_t team) {                                          \
    int n = shmem_team_n_pes(team), i = shmem_team_my_pe(team);                           \
    for (int k = 0; k < N; ++k) red_src_##NAME[k] = (T)(i + 1 + k % 2);                   \
    CHECK_EQ(shmem_##NAME##_max_reduce(team, red_dst_##NAME, red_src_##NAME, N), 0);      \
    for (int k = 0; k < N; ++k) CHECK_EQ(red_dst_##NAME[k], n + k % 2);                   \
    CHECK_EQ(shmem_##NAME##_min_reduce(team, red_dst_##NAME, red_src_##NAME, N), 0);      \
    for (int k = 0; k < N; ++k) CHECK_EQ(red_dst_##NAME[k], 1 + k % 2);                   \
    CHECK_EQ(shmem_##NAME##_sum_reduce(team, red_dst_##NAME, red_src_##NAME, N), 0);      \
    for (int k = 0; k < N; ++k) CHECK_EQ(red_dst_##NAME[k], n*(n + 1) / 2 + n * (k % 2)); \
    for (int k = 0; k < N; ++k) red_src_##NAME[k] = (T)(1 + k % 2);                       \
    CHECK_EQ(shmem_##NAME##_prod_reduce(team, red_src_##NAME, red_src_##NAME, N), 0);     \
    for (int k = 0; k < N; ++k) CHECK_EQ(red_src_##NAME[k], (T)(k % 2 ? 1L << n : 1));    \
  }
GSHMEM_COMPAT_REDUCE_MINMAX(DEF_RED_MINMAX, )

static void complex_sums(shmem_team_t team) {
  int n = shmem_team_n_pes(team), i = shmem_team_my_pe(team);
  for (int k = 0; k < N; ++k) {
    red_src_complexd[k] = (i + 1) + 2.0 * _Complex_I;
    red_src_complexf[k] = 1.0f * _Complex_I;
  }
  CHECK_EQ(shmem_complexd_sum_reduce(team, red_dst_complexd, red_src_complexd, N), 0);
  CHECK(red_dst_complexd[N - 1] == n * (n + 1) / 2.0 + 2.0 * n * _Complex_I);
  CHECK_EQ(shmem_complexf_prod_reduce(team, red_dst_complexf, red_src_complexf, N), 0);
  float _Complex want = 1;
  for (int j = 0; j < n; ++j) want *= 1.0f * _Complex_I;
  CHECK(red_dst_complexf[0] == want);
  CHECK_EQ(shmem_complexf_sum_reduce(team, red_dst_complexf, red_src_complexf, N), 0);
  CHECK(red_dst_complexf[1] == n * 1.0f * _Complex_I);
  for (int k = 0; k < N; ++k) red_src_complexd[k] = 2;
  CHECK_EQ(shmem_complexd_prod_reduce(team, red_dst_complexd, red_src_complexd, N), 0);
  CHECK(red_dst_complexd[0] == (double)(1L << n));
}

/* The generic names. */
static long gen_src[MAXPES * N], gen_dst[MAXPES * N];
static double gen_d[N];
static void generic_forms(shmem_team_t team) {
  int n = shmem_team_n_pes(team), i = shmem_team_my_pe(team);
  for (int k = 0; k < MAXPES * N; ++k) gen_src[k] = TAG(i, k, 3);
  shmem_team_sync(team);
  CHECK_EQ(shmem_broadcast(team, gen_dst, gen_src, N, 0), 0);
  CHECK_EQ(gen_dst[N - 1], TAG(0, N - 1, 3));
  CHECK_EQ(shmem_collect(team, gen_dst, gen_src, 1), 0);
  CHECK_EQ(gen_dst[n - 1], TAG(n - 1, 0, 3));
  CHECK_EQ(shmem_fcollect(team, gen_dst, gen_src, 2), 0);
  CHECK_EQ(gen_dst[2 * n - 1], TAG(n - 1, 1, 3));
  CHECK_EQ(shmem_alltoall(team, gen_dst, gen_src, 1), 0);
  CHECK_EQ(gen_dst[n - 1], TAG(n - 1, i, 3));
  CHECK_EQ(shmem_alltoalls(team, gen_dst, gen_src, 1, 1, 1), 0);
  CHECK_EQ(gen_dst[0], TAG(0, i, 3));
  CHECK_EQ(shmem_max_reduce(team, gen_dst, gen_src, N), 0);
  CHECK_EQ(shmem_or_reduce(team, (unsigned long*)gen_dst, (unsigned long*)gen_src, N), 0);
  for (int k = 0; k < N; ++k) gen_d[k] = 0.5;
  CHECK_EQ(shmem_sum_reduce(team, gen_d, gen_d, N), 0);
  CHECK(gen_d[3] == 0.5 * n);
}

static int few; /* --few: a handful of types (the network runs are slow on small machines) */

static void all(shmem_team_t team) {
  if (few) {
    move_int(team);
    move_longdouble(team);
    move_mem(team);
    bitwise_uint64(team);
    minmax_double(team);
    complex_sums(team);
    generic_forms(team);
    return;
  }
#define RUN_MOVE(NAME, T, A) move_##NAME(team);
  GSHMEM_COMPAT_RMA_TYPES(RUN_MOVE, )
  move_mem(team);
#define RUN_BITS(NAME, T, A) bitwise_##NAME(team);
  GSHMEM_COMPAT_REDUCE_BITWISE(RUN_BITS, )
#define RUN_MINMAX(NAME, T, A) minmax_##NAME(team);
  GSHMEM_COMPAT_REDUCE_MINMAX(RUN_MINMAX, )
  complex_sums(team);
  generic_forms(team);
}

int main(int argc, char** argv) {
  shmem_init();
  few = argc > 1 && strcmp(argv[1], "--few") == 0;
  me = shmem_my_pe();
  npes = shmem_n_pes();
  CHECK(npes <= MAXPES);
  mem_dst = shmem_malloc(MAXPES * 64);
  all(SHMEM_TEAM_WORLD);
  shmem_team_t evens;
  CHECK_EQ(shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 2, (npes + 1) / 2, NULL, 0, &evens), 0);
  if (evens != SHMEM_TEAM_INVALID) {
    all(evens);
    shmem_team_destroy(evens);
  }
  /* A team the PE is not in: the routines return non-zero and touch nothing. */
  CHECK(shmem_int_sum_reduce(SHMEM_TEAM_INVALID, red_dst_int, red_src_int, N) != 0);
  shmem_barrier_all();
  shmem_free(mem_dst);
  if (me == 0) printf("coll: %d PEs OK\n", npes);
  shmem_finalize();
  return 0;
}
