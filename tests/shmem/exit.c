/* How a job ends, judged by oshrun's exit status (expect_status.sh checks it):
 *   exit global_exit S   the last PE calls shmem_global_exit(S) while the others wait in a
 *                        barrier: every PE ends, the job's status is S
 *   exit worst           every PE finalizes and returns its own status: the job's is the worst
 *   exit bad_ctx_pe      a team context's RMA names a PE outside the team: the job ends with a
 *                        message naming the routine and the argument
 *   exit bad_active_set  an active set that runs past the last PE, likewise */
#define _POSIX_C_SOURCE 200809L
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "check.h"

static int flag;

int main(int argc, char** argv) {
  shmem_init();
  int me = shmem_my_pe(), npes = shmem_n_pes();
  const char* mode = argc > 1 ? argv[1] : "";
  if (strcmp(mode, "global_exit") == 0) {
    if (me == npes - 1) {
      struct timespec wait = {0, 100 * 1000 * 1000}; /* let the others reach the wait */
      nanosleep(&wait, NULL);
      shmem_global_exit(argc > 2 ? atoi(argv[2]) : 1);
    }
    shmem_int_wait_until(&flag, SHMEM_CMP_NE, 0); /* never set: only global_exit ends this */
  } else if (strcmp(mode, "worst") == 0) {
    shmem_finalize();
    return me == npes - 1 ? 3 : me == 0 ? 1 : 0;
  } else if (strcmp(mode, "bad_ctx_pe") == 0) {
    shmem_ctx_t ctx;
    CHECK_EQ(shmem_team_create_ctx(SHMEM_TEAM_WORLD, 0, &ctx), 0);
    shmem_team_t evens;
    shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 2, (npes + 1) / 2, NULL, 0, &evens);
    if (me == 0) {
      shmem_ctx_t ectx;
      CHECK_EQ(shmem_team_create_ctx(evens, 0, &ectx), 0);
      shmem_ctx_int_p(ectx, &flag, 1, shmem_team_n_pes(evens)); /* one past the last */
    }
    shmem_barrier_all();
  } else if (strcmp(mode, "bad_active_set") == 0) {
    static long pSync[SHMEM_BARRIER_SYNC_SIZE];
    shmem_barrier(0, 0, npes + 1, pSync);
  }
  shmem_finalize();
  return 0;
}
