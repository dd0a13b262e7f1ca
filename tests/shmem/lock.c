/* Distributed locks: every PE increments a counter on PE 0 with a plain get and put (not an
 * atomic) inside shmem_set_lock/shmem_clear_lock, so any two holders at once, or a put that the
 * release did not complete, lose an increment. An atomic "holder" word also catches overlap
 * directly. Then the same with shmem_test_lock polling, with the lock in the heap, in a global
 * and in a function-local static. Every lock ends at 0 on every PE, its initial value.
 *
 *   lock [ITERATIONS]   per PE and lock (default 30) */
#include <stdlib.h>

#include "check.h"

static int me, npes;
static long iterations = 30;
long global_lock;
static long counter; /* on PE 0 */
static int holder;   /* on PE 0: 1 + the PE inside a critical section, 0 when none */

static void critical_section(void) {
  CHECK_EQ(shmem_int_atomic_swap(&holder, me + 1, 0), 0);
  long v = shmem_long_g(&counter, 0);
  shmem_long_p(&counter, v + 1, 0);
  CHECK_EQ(shmem_int_atomic_swap(&holder, 0, 0), me + 1);
}

static void with_lock(long* lock, int use_test_lock) {
  long before = shmem_long_g(&counter, 0);
  shmem_barrier_all();
  long polls = 0;
  for (long i = 0; i < iterations; ++i) {
    if (use_test_lock) {
      while (shmem_test_lock(lock) != 0) ++polls;
    } else {
      shmem_set_lock(lock);
    }
    critical_section();
    shmem_clear_lock(lock);
  }
  shmem_barrier_all();
  CHECK_EQ(shmem_long_g(&counter, 0), before + iterations * npes);
  CHECK_EQ(*lock, 0);
  (void)polls;
  shmem_barrier_all();
}

int main(int argc, char** argv) {
  shmem_init();
  me = shmem_my_pe();
  npes = shmem_n_pes();
  if (argc > 1) iterations = atol(argv[1]);
  static long static_lock;
  long* heap_lock = shmem_calloc(1, sizeof(long));
  with_lock(&global_lock, 0);
  with_lock(heap_lock, 0);
  with_lock(&static_lock, 1);
  with_lock(heap_lock, 1);
  /* test_lock on a held lock fails at once, on every other PE. */
  if (me == 0) shmem_set_lock(&global_lock);
  shmem_barrier_all();
  if (me != 0) CHECK_EQ(shmem_test_lock(&global_lock), 1);
  shmem_barrier_all();
  if (me == 0) shmem_clear_lock(&global_lock);
  shmem_barrier_all();
  CHECK_EQ(global_lock, 0);
  shmem_free(heap_lock);
  if (me == 0) printf("lock: %d PEs OK\n", npes);
  shmem_finalize();
  return 0;
}
