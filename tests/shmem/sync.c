/* Point-to-point synchronisation through the OpenSHMEM API: wait_until and test with their
 * _all/_any/_some and _vector forms for every sync type (status masks included), the C11
 * generic names, fence ordering (a flag written after a fence never overtakes the data), and
 * sync_all. Each PE is woken by its left neighbour.
 *
 *   sync [--few]   --few: the wait/test families for int and uint64 only (network runs) */
#include <string.h>

#include "check.h"

#define N 6

static int me, npes, right, left;

/* ivars[0] is masked out by status and never written; the left neighbour writes i + 1 into
 * ivars[i] for the others. */
#define DEF_WAIT(NAME, T, A)                                                              \
  static T ivars_##NAME[N];                                                               \
  static void wait_##NAME(void) {                                                         \
    T* v = ivars_##NAME;                                                                  \
    int status[N] = {1, 0, 0, 0, 0, 0};                                                   \
    T want[N];                                                                            \
    size_t idx[N];                                                                        \
    for (int i = 0; i < N; ++i) want[i] = (T)(i + 1);                                     \
    /* Nothing written yet: every test says so. */                                        \
    CHECK_EQ(shmem_##NAME##_test(&v[1], SHMEM_CMP_NE, (T)0), 0);                          \
    CHECK_EQ(shmem_##NAME##_test_all(v, N, status, SHMEM_CMP_GT, (T)0), 0);               \
    CHECK(shmem_##NAME##_test_any(v, N, status, SHMEM_CMP_GT, (T)0) == SIZE_MAX);         \
    CHECK_EQ(shmem_##NAME##_test_some(v, N, idx, status, SHMEM_CMP_GT, (T)0), 0);         \
    CHECK_EQ(shmem_##NAME##_test_all_vector(v, N, status, SHMEM_CMP_EQ, want), 0);        \
    CHECK(shmem_##NAME##_test_any_vector(v, N, status, SHMEM_CMP_EQ, want) == SIZE_MAX);  \
    CHECK_EQ(shmem_##NAME##_test_some_vector(v, N, idx, status, SHMEM_CMP_EQ, want), 0);  \
    /* Every element masked: any/some return at once. */                                  \
    int none[N] = {1, 1, 1, 1, 1, 1};                                                     \
    CHECK(shmem_##NAME##_wait_until_any(v, N, none, SHMEM_CMP_GT, (T)0) == SIZE_MAX);     \
    CHECK_EQ(shmem_##NAME##_wait_until_some(v, N, idx, none, SHMEM_CMP_GT, (T)0), 0);     \
    shmem_barrier_all();                                                                  \
    for (int i = N - 1; i >= 1; --i) shmem_##NAME##_p(&v[i], (T)(i + 1), right);          \
    size_t any = shmem_##NAME##_wait_until_any(v, N, status, SHMEM_CMP_GT, (T)0);         \
    CHECK(any >= 1 && any < N);                                                           \
    size_t some = shmem_##NAME##_wait_until_some(v, N, idx, status, SHMEM_CMP_GE, (T)1);  \
    CHECK(some >= 1 && some < N);                                                         \
    for (size_t i = 0; i < some; ++i) CHECK(idx[i] >= 1 && idx[i] < N && v[idx[i]] != 0); \
    any = shmem_##NAME##_wait_until_any_vector(v, N, status, SHMEM_CMP_EQ, want);         \
    CHECK(any >= 1 && any < N);                                                           \
    some = shmem_##NAME##_wait_until_some_vector(v, N, idx, status, SHMEM_CMP_EQ, want);  \
    CHECK(some >= 1 && some < N);                                                         \
    shmem_##NAME##_wait_until_all(v, N, status, SHMEM_CMP_GE, (T)1);                      \
    shmem_##NAME##_wait_until_all_vector(v, N, status, SHMEM_CMP_EQ, want);               \
    shmem_##NAME##_wait_until_all(v + 1, N - 1, NULL, SHMEM_CMP_LE, (T)N);                \
    shmem_##NAME##_wait_until(&v[N - 1], SHMEM_CMP_EQ, (T)N);                             \
    shmem_##NAME##_wait_until(&v[1], SHMEM_CMP_LT, (T)3);                                 \
    CHECK_EQ(v[0], 0);                                                                    \
    CHECK_EQ(shmem_##NAME##_test(&v[2], SHMEM_CMP_EQ, (T)3), 1);                          \
    CHECK_EQ(shmem_##NAME##_test_all(v, N, status, SHMEM_CMP_GT, (T)0), 1);               \
    CHECK_EQ(shmem_##NAME##_test_any(v, N, status, SHMEM_CMP_GE, (T)N), N - 1);           \
    CHECK_EQ(shmem_##NAME##_test_some(v, N, idx, status, SHMEM_CMP_GT, (T)0), N - 1);     \
    CHECK_EQ(idx[0], 1);                                                                  \
    CHECK_EQ(shmem_##NAME##_test_all_vector(v, N, status, SHMEM_CMP_EQ, want), 1);        \
    CHECK_EQ(shmem_##NAME##_test_any_vector(v, N, NULL, SHMEM_CMP_EQ, want), 1);          \
    CHECK_EQ(shmem_##NAME##_test_some_vector(v, N, idx, status, SHMEM_CMP_NE, want), 0);  \
    shmem_barrier_all();                                                                  \
    memset(v, 0, sizeof ivars_##NAME);                                                    \
    shmem_barrier_all();                                                                  \
  }
GSHMEM_COMPAT_SYNC_TYPES(DEF_WAIT, )

/* A flag written after shmem_fence arrives after the data written before it. */
static long fence_data[64];
static int fence_flag;
static void fence_order(void) {
  long src[64];
  for (int round = 1; round <= 20; ++round) {
    for (int i = 0; i < 64; ++i) src[i] = TAG(me, i, round);
    shmem_long_put(fence_data, src, 64, right);
    if (round % 2) {
      shmem_fence();
    } else {
      shmem_ctx_fence(SHMEM_CTX_DEFAULT);
    }
    shmem_int_p(&fence_flag, round, right);
    shmem_int_wait_until(&fence_flag, SHMEM_CMP_EQ, round);
    for (int i = 0; i < 64; ++i) CHECK_EQ(fence_data[i], TAG(left, i, round));
    shmem_sync_all(); /* nobody writes the next round before this one is checked */
  }
}

/* The generic names. */
static long gen_ivars[3];
static void generic_forms(void) {
  int status[3] = {0, 0, 1};
  long want[3] = {1, 2, 0};
  size_t idx[3];
  shmem_long_p(&gen_ivars[0], 1, right);
  shmem_long_p(&gen_ivars[1], 2, right);
  shmem_ctx_quiet(SHMEM_CTX_DEFAULT);
  shmem_wait_until_all(gen_ivars, 3, status, SHMEM_CMP_GT, 0L);
  shmem_wait_until(&gen_ivars[1], SHMEM_CMP_EQ, 2L);
  CHECK(shmem_wait_until_any(gen_ivars, 3, status, SHMEM_CMP_EQ, 2L) == 1);
  CHECK_EQ(shmem_wait_until_some(gen_ivars, 3, idx, status, SHMEM_CMP_GT, 0L), 2);
  shmem_wait_until_all_vector(gen_ivars, 3, status, SHMEM_CMP_EQ, want);
  CHECK(shmem_wait_until_any_vector(gen_ivars, 3, status, SHMEM_CMP_EQ, want) == 0);
  CHECK_EQ(shmem_wait_until_some_vector(gen_ivars, 3, idx, status, SHMEM_CMP_EQ, want), 2);
  CHECK_EQ(shmem_test(&gen_ivars[0], SHMEM_CMP_EQ, 1L), 1);
  CHECK_EQ(shmem_test_all(gen_ivars, 3, status, SHMEM_CMP_GT, 0L), 1);
  CHECK(shmem_test_any(gen_ivars, 3, NULL, SHMEM_CMP_EQ, 0L) == 2);
  CHECK_EQ(shmem_test_some(gen_ivars, 3, idx, NULL, SHMEM_CMP_GT, 0L), 2);
  CHECK_EQ(shmem_test_all_vector(gen_ivars, 3, status, SHMEM_CMP_EQ, want), 1);
  CHECK(shmem_test_any_vector(gen_ivars, 3, status, SHMEM_CMP_NE, want) == SIZE_MAX);
  CHECK_EQ(shmem_test_some_vector(gen_ivars, 3, idx, NULL, SHMEM_CMP_EQ, want), 3);
  shmem_barrier_all();
}

int main(int argc, char** argv) {
  shmem_init();
  me = shmem_my_pe();
  npes = shmem_n_pes();
  right = (me + 1) % npes;
  left = (me + npes - 1) % npes;
  if (argc > 1 && strcmp(argv[1], "--few") == 0) {
    wait_int();
    wait_uint64();
  } else {
#define RUN_WAIT(NAME, T, A) wait_##NAME();
    GSHMEM_COMPAT_SYNC_TYPES(RUN_WAIT, )
  }
  fence_order();
  generic_forms();
  if (me == 0) printf("sync: %d PEs OK\n", npes);
  shmem_finalize();
  return 0;
}
