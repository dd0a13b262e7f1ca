/* The deprecated names OpenSHMEM 1.5 still lists, written as an old program would: start_pes
 * and no shmem_finalize, _my_pe/_num_pes, shmalloc and friends, the 1.3 atomics (typed, the
 * untyped long shmem_swap, and the generic names), shmem_TYPE_wait and shmem_wait, the cache
 * calls and the _SHMEM_ constants. */
#include <string.h>

#include "check.h"

#if _SHMEM_MAJOR_VERSION != 1 || _SHMEM_CMP_EQ != SHMEM_CMP_EQ || _SHMEM_SYNC_VALUE != 0
#error "the _SHMEM_ constants must equal the current ones"
#endif
static long psync_sizes[] = {_SHMEM_BCAST_SYNC_SIZE,         _SHMEM_COLLECT_SYNC_SIZE,
                             _SHMEM_REDUCE_SYNC_SIZE,        _SHMEM_BARRIER_SYNC_SIZE,
                             _SHMEM_REDUCE_MIN_WRKDATA_SIZE, SHMEM_ALLTOALL_SYNC_SIZE,
                             SHMEM_ALLTOALLS_SYNC_SIZE,      SHMEM_SYNC_SIZE};

static int me, npes, right, left;

#define DEF_OLD_AMO(NAME, T, A)                                                           \
  static T old_##NAME[4];                                                                 \
  static void old_amo_##NAME(void) {                                                      \
    for (int k = 0; k < 10; ++k) {                                                        \
      shmem_##NAME##_add(&old_##NAME[0], (T)2, 0);                                        \
      shmem_##NAME##_inc(&old_##NAME[1], 0);                                              \
      (void)shmem_##NAME##_fadd(&old_##NAME[2], (T)3, 0);                                 \
      (void)shmem_##NAME##_finc(&old_##NAME[3], 0);                                       \
    }                                                                                     \
    shmem_barrier_all();                                                                  \
    if (me == 0) {                                                                        \
      CHECK_EQ(old_##NAME[0], 20 * npes);                                                 \
      CHECK_EQ(old_##NAME[1], 10 * npes);                                                 \
      CHECK_EQ(old_##NAME[2], 30 * npes);                                                 \
      CHECK_EQ(old_##NAME[3], 10 * npes);                                                 \
    }                                                                                     \
    shmem_barrier_all();                                                                  \
    if (me == 0) {                                                                        \
      CHECK_EQ(shmem_##NAME##_cswap(&old_##NAME[1], (T)(10 * npes), (T)5, 0), 10 * npes); \
      CHECK_EQ(shmem_##NAME##_cswap(&old_##NAME[1], (T)(10 * npes), (T)6, 0), 5);         \
    }                                                                                     \
    shmem_barrier_all();                                                                  \
  }
GSHMEM_COMPAT_LEGACY_AMO(DEF_OLD_AMO, )

#define DEF_OLD_AMO_EXT(NAME, T, A)                                              \
  static T old_ext_##NAME;                                                       \
  static void old_amo_ext_##NAME(void) {                                         \
    shmem_##NAME##_set(&old_ext_##NAME, (T)(me + 1), right);                     \
    shmem_barrier_all();                                                         \
    CHECK_EQ(old_ext_##NAME, left + 1);                                          \
    CHECK_EQ(shmem_##NAME##_fetch(&old_ext_##NAME, right), me + 1);              \
    shmem_barrier_all();                                                         \
    CHECK_EQ(shmem_##NAME##_swap(&old_ext_##NAME, (T)(me + 50), right), me + 1); \
    shmem_barrier_all();                                                         \
    CHECK_EQ(old_ext_##NAME, left + 50);                                         \
    shmem_barrier_all();                                                         \
  }
GSHMEM_COMPAT_LEGACY_AMO_EXTENDED(DEF_OLD_AMO_EXT, )

/* shmem_TYPE_wait: the left neighbour changes the value the PE waits on. */
#define DEF_OLD_WAIT(NAME, T, A)                        \
  static T wait_##NAME = 7;                             \
  static void old_wait_##NAME(void) {                   \
    shmem_##NAME##_p(&wait_##NAME, (T)(me + 8), right); \
    shmem_##NAME##_wait(&wait_##NAME, (T)7);            \
    CHECK_EQ(wait_##NAME, left + 8);                    \
    shmem_barrier_all();                                \
  }
GSHMEM_COMPAT_LEGACY_WAIT(DEF_OLD_WAIT, )

long untyped = 3;
long generic_long;
static int generic_int;
static double generic_double;
static void untyped_and_generic(void) {
  /* The untyped long routines (the parentheses call the functions, not the C11 macros). */
  shmem_barrier_all();
  CHECK_EQ((shmem_swap)(&untyped, me + 10, right), 3);
  shmem_barrier_all();
  CHECK_EQ(untyped, left + 10);
  shmem_barrier_all();
  shmem_long_p(&untyped, 1, right);
  (shmem_wait)(&untyped, left + 10);
  (shmem_wait_until)(&untyped, SHMEM_CMP_EQ, 1);
  shmem_barrier_all();
  /* The deprecated generic names. */
  shmem_add(&generic_long, 2L, 0);
  shmem_inc(&generic_int, 0);
  CHECK(shmem_fadd(&generic_long, 1L, 0) >= 0);
  CHECK(shmem_finc(&generic_int, 0) >= 0);
  shmem_set(&generic_double, 0.5, right);
  shmem_barrier_all();
  if (me == 0) {
    CHECK_EQ(shmem_fetch(&generic_long, 0), 3 * npes);
    CHECK_EQ(shmem_cswap(&generic_int, 2 * npes, 0, 0), 2 * npes);
  }
  CHECK(shmem_fetch(&generic_double, right) == 0.5);
  shmem_barrier_all();
  CHECK(shmem_swap(&generic_double, 1.5, right) == 0.5);
  shmem_int_p(&generic_int, 1, right);
  shmem_wait(&generic_int, 0);
  shmem_barrier_all();
}

int main(void) {
  start_pes(0);
  me = _my_pe();
  npes = _num_pes();
  CHECK_EQ(me, shmem_my_pe());
  CHECK_EQ(npes, shmem_n_pes());
  right = (me + 1) % npes;
  left = (me + npes - 1) % npes;
  for (size_t i = 0; i < sizeof psync_sizes / sizeof psync_sizes[0]; ++i) {
    CHECK(psync_sizes[i] >= 1);
  }

  long* a = shmalloc(16 * sizeof(long));
  CHECK(a != NULL);
  for (int i = 0; i < 16; ++i) a[i] = me * 100 + i;
  a = shrealloc(a, 1024 * sizeof(long));
  CHECK(a != NULL);
  for (int i = 0; i < 16; ++i) CHECK_EQ(a[i], me * 100 + i); /* realloc keeps the contents */
  long* b = shmemalign(4096, 64);
  CHECK(b != NULL && ((uintptr_t)b % 4096) == 0);
  shmem_long_p(b, me, right);
  shmem_barrier_all();
  CHECK_EQ(*b, left);
  shmem_barrier_all();
  shfree(b);
  shfree(a);

#define RUN_OLD_AMO(NAME, T, A) old_amo_##NAME();
  GSHMEM_COMPAT_LEGACY_AMO(RUN_OLD_AMO, )
#define RUN_OLD_AMO_EXT(NAME, T, A) old_amo_ext_##NAME();
  GSHMEM_COMPAT_LEGACY_AMO_EXTENDED(RUN_OLD_AMO_EXT, )
#define RUN_OLD_WAIT(NAME, T, A) old_wait_##NAME();
  GSHMEM_COMPAT_LEGACY_WAIT(RUN_OLD_WAIT, )
  untyped_and_generic();

  shmem_clear_cache_inv();
  shmem_set_cache_inv();
  shmem_clear_cache_line_inv(&untyped);
  shmem_set_cache_line_inv(&untyped);
  shmem_udcflush();
  shmem_udcflush_line(&untyped);

  shmem_barrier_all();
  if (me == 0) printf("legacy: %d PEs OK\n", npes);
  return 0; /* no shmem_finalize: programs written for start_pes do not call it */
}
