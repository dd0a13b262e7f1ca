/* SHMEM_THREAD_MULTIPLE: several threads of every PE issue puts, atomics and quiets at once
 * (through the same channel when the peer is on another virtual node). Totals and every
 * thread's own slots must come out exact. */
#include <pthread.h>

#include "check.h"

#define THREADS 4
#define ITERS 200

static int me, npes, right;
static long total;                  /* on PE 0 */
static long slots[THREADS * ITERS]; /* written by the left neighbour's threads */

static void* worker(void* arg) {
  int t = (int)(intptr_t)arg;
  shmem_ctx_t ctx;
  CHECK_EQ(shmem_ctx_create(SHMEM_CTX_PRIVATE, &ctx), 0);
  for (int i = 0; i < ITERS; ++i) {
    shmem_long_atomic_add(&total, 1, 0);
    shmem_ctx_long_p(ctx, &slots[t * ITERS + i], me * 100000 + t * 1000 + i, right);
    if (i % 50 == 0) shmem_ctx_quiet(ctx);
    (void)shmem_long_atomic_fetch_add(&total, 1, 0);
  }
  shmem_ctx_quiet(ctx);
  shmem_ctx_destroy(ctx);
  return NULL;
}

int main(void) {
  int provided = -1;
  CHECK_EQ(shmem_init_thread(SHMEM_THREAD_MULTIPLE, &provided), 0);
  CHECK_EQ(provided, SHMEM_THREAD_MULTIPLE);
  me = shmem_my_pe();
  npes = shmem_n_pes();
  right = (me + 1) % npes;
  int left = (me + npes - 1) % npes;
  pthread_t th[THREADS];
  for (int t = 0; t < THREADS; ++t)
    CHECK_EQ(pthread_create(&th[t], NULL, worker, (void*)(intptr_t)t), 0);
  for (int t = 0; t < THREADS; ++t) pthread_join(th[t], NULL);
  shmem_barrier_all();
  if (me == 0) CHECK_EQ(total, 2L * THREADS * ITERS * npes);
  for (int t = 0; t < THREADS; ++t) {
    for (int i = 0; i < ITERS; ++i) CHECK_EQ(slots[t * ITERS + i], left * 100000 + t * 1000 + i);
  }
  if (me == 0) printf("threads: %d PEs OK\n", npes);
  shmem_finalize();
  return 0;
}
