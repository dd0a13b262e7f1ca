/* The OpenSHMEM profiling interface: this program defines shmem_long_p and shmem_barrier_all
 * itself, as a profiling tool would, counting the calls and doing the work through the library's
 * pshmem_ names (pshmem.h); the type-generic shmem_p reaches the program's routine too. And
 * shmem_pcontrol takes every level the specification names. */
#include <pshmem.h>

#include "check.h"

static long puts_seen, barriers_seen;

void shmem_long_p(long* dest, long value, int pe) {
  ++puts_seen;
  pshmem_long_p(dest, value, pe);
}

void shmem_barrier_all(void) {
  ++barriers_seen;
  pshmem_barrier_all();
}

int main(void) {
  shmem_init();
  shmem_pcontrol(1);
  const int me = shmem_my_pe(), n = shmem_n_pes();
  long* slot = (long*)shmem_calloc((size_t)n, sizeof(long));
  CHECK(slot != NULL);
  for (int round = 1; round <= 3; ++round) {
    for (int pe = 0; pe < n; ++pe) shmem_long_p(&slot[me], round * 100 + me, pe);
    shmem_barrier_all();
    for (int pe = 0; pe < n; ++pe) CHECK_EQ(slot[pe], round * 100 + pe);
    shmem_barrier_all();
  }
  CHECK_EQ(puts_seen, 3 * n);
  CHECK_EQ(barriers_seen, 6);
#if defined(__STDC_VERSION__) && __STDC_VERSION__ >= 201112L
  shmem_p(&slot[me], 7L, me);
  CHECK_EQ(puts_seen, 3 * n + 1);
  CHECK_EQ(slot[me], 7);
#endif
  /* The library's own routines under their pshmem_ names. */
  CHECK_EQ(pshmem_my_pe(), me);
  CHECK_EQ(pshmem_n_pes(), n);
  pshmem_sync_all();
  shmem_pcontrol(2);
  shmem_pcontrol(0);
  shmem_pcontrol(7, "a level a tool defines");
  shmem_free(slot);
  shmem_finalize();
  return 0;
}
