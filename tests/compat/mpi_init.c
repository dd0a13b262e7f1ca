/* Start-up over an MPI communicator that is not MPI_COMM_WORLD: the world's ranks split into
 * the even and the odd ones, and each half starts its own gshmem job over its communicator
 * (gshmemx_init_attr with GSHMEMX_INIT_WITH_MPI_COMM, or NVSHMEM's nvshmemx_init_attr with
 * NVSHMEMX_INIT_WITH_MPI_COMM when built as the NVSHMEM variant, or NVSHMEM's unique-id
 * start-up with the id handed out over the communicator: USE_UNIQUEID). Every PE adds to PE 0's
 * counter and checks its PE number and the job size against the communicator's. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#ifdef USE_NVSHMEM
#include <nvshmem.h>
#include <nvshmemx.h>
#define PE_OF nvshmem_my_pe
#define NPES_OF nvshmem_n_pes
#else
#include <gshmem/gshmem.h>
#define PE_OF gshmem_my_pe
#define NPES_OF gshmem_n_pes
#endif

static void fail(const char* what, long got, long want) {
  fprintf(stderr, "mpi_init: %s: got %ld, want %ld\n", what, got, want);
  MPI_Abort(MPI_COMM_WORLD, 1);
}

int main(int argc, char** argv) {
  int world_rank, world_size, rank, size;
  MPI_Comm half;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &world_rank);
  MPI_Comm_size(MPI_COMM_WORLD, &world_size);
  MPI_Comm_split(MPI_COMM_WORLD, world_rank % 2, world_rank, &half);
  MPI_Comm_rank(half, &rank);
  MPI_Comm_size(half, &size);
#if defined(USE_NVSHMEM) && defined(USE_UNIQUEID)
  /* NVSHMEM's unique-id start-up: rank 0 of each half makes the id, MPI hands it out. */
  nvshmemx_init_attr_t attr = NVSHMEMX_INIT_ATTR_INITIALIZER;
  nvshmemx_uniqueid_t id = NVSHMEMX_UNIQUEID_INITIALIZER;
  if (rank == 0 && nvshmemx_get_uniqueid(&id) != 0) fail("nvshmemx_get_uniqueid", 1, 0);
  MPI_Bcast(&id, sizeof id, MPI_BYTE, 0, half);
  nvshmemx_set_attr_uniqueid_args(rank, size, &id, &attr);
  if (nvshmemx_init_attr(NVSHMEMX_INIT_WITH_UNIQUEID, &attr) != NVSHMEMX_SUCCESS)
    fail("nvshmemx_init_attr", 1, 0);
#elif defined(USE_NVSHMEM)
  nvshmemx_init_attr_t attr = NVSHMEMX_INIT_ATTR_INITIALIZER;
  attr.mpi_comm = &half;
  if (nvshmemx_init_attr(NVSHMEMX_INIT_WITH_MPI_COMM, &attr) != NVSHMEMX_SUCCESS)
    fail("nvshmemx_init_attr", 1, 0);
#endif
#ifdef USE_NVSHMEM
  long* counter = (long*)nvshmem_calloc(1, sizeof(long));
  nvshmem_barrier_all();
  nvshmem_long_atomic_add(counter, rank + 1, 0);
  nvshmem_barrier_all();
#else
  gshmemx_init_attr_t attr = {0};
  attr.mpi_comm = &half;
  if (gshmemx_init_attr(GSHMEMX_INIT_WITH_MPI_COMM, &attr) != 0) fail("gshmemx_init_attr", 1, 0);
  long* counter = (long*)gshmem_calloc(1, sizeof(long));
  gshmem_barrier_all();
  gshmem_long_atomic_add(counter, rank + 1, 0);
  gshmem_barrier_all();
#endif
  if (PE_OF() != rank) fail("my_pe", PE_OF(), rank);
  if (NPES_OF() != size) fail("n_pes", NPES_OF(), size);
  if (rank == 0 && *counter != (long)size * (size + 1) / 2)
    fail("sum", *counter, size * (size + 1) / 2);
  MPI_Barrier(MPI_COMM_WORLD);
  if (world_rank == 0) printf("mpi_init: %d ranks in 2 jobs of %d PEs OK\n", world_size, size);
#ifdef USE_NVSHMEM
  nvshmem_free(counter);
  nvshmem_finalize();
#else
  gshmem_free(counter);
  gshmem_finalize();
#endif
  MPI_Comm_free(&half);
  MPI_Finalize();
  return 0;
}
