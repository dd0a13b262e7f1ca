/* Plain C types and constants shared by the C API, the C++ API and device code. */
#ifndef GSHMEM_TYPES_H
#define GSHMEM_TYPES_H

#include <stddef.h>
#include <stdint.h>

#define GSHMEM_VENDOR_STRING "gshmem"
#define GSHMEM_MAJOR_VERSION 0
#define GSHMEM_MINOR_VERSION 1
#define GSHMEM_PATCH_VERSION 0

/* Status codes returned by host calls that have a return value. */
enum gshmem_status {
  GSHMEM_SUCCESS = 0,
  GSHMEM_ERROR_INVALID_ARGUMENT = 1,
  GSHMEM_ERROR_OUT_OF_MEMORY = 2,
  GSHMEM_ERROR_NOT_INITIALIZED = 3,
  GSHMEM_ERROR_BOOTSTRAP = 4,
  GSHMEM_ERROR_TRANSPORT = 5,
  GSHMEM_ERROR_TIMEOUT = 6,
  GSHMEM_ERROR_ABORTED = 7,
  GSHMEM_ERROR_INTERNAL = 8,
  GSHMEM_ERROR_CAPACITY = 9
};

/* Comparison operators of the wait/test family. */
enum gshmem_cmp {
  GSHMEM_CMP_EQ = 0,
  GSHMEM_CMP_NE = 1,
  GSHMEM_CMP_GT = 2,
  GSHMEM_CMP_LE = 3,
  GSHMEM_CMP_LT = 4,
  GSHMEM_CMP_GE = 5
};

/* Signal update operations of put-with-signal and signal_op. */
enum gshmem_signal_op { GSHMEM_SIGNAL_SET = 0, GSHMEM_SIGNAL_ADD = 1 };

/* Teams are small integer handles; the predefined ones exist from init to finalize. */
typedef int32_t gshmem_team_t;
#define GSHMEM_TEAM_INVALID ((gshmem_team_t)-1)
#define GSHMEM_TEAM_WORLD ((gshmem_team_t)0)
#define GSHMEM_TEAM_SHARED ((gshmem_team_t)1) /* PEs whose heaps are mapped here */
#define GSHMEM_TEAM_NODE ((gshmem_team_t)2)   /* PEs on the same (virtual) node */
/* One PE per node: those whose index on their node is this PE's (NVSHMEM's
 * NVSHMEMX_TEAM_SAME_MYPE_NODE), in PE order. */
#define GSHMEM_TEAM_SAME_MYPE_NODE ((gshmem_team_t)3)
#define GSHMEM_MAX_TEAMS 64

typedef struct {
  int num_contexts;
} gshmem_team_config_t;
#define GSHMEM_TEAM_NUM_CONTEXTS (1L << 0)

/* The unique id of the TCP rendezvous bootstrap (torchrun-style launches). Rank 0 makes it with
 * gshmemx_get_uniqueid and hands it to the other ranks out of band. */
#define GSHMEM_UNIQUEID_BYTES 128
typedef struct {
  char internal[GSHMEM_UNIQUEID_BYTES];
} gshmemx_uniqueid_t;

typedef struct {
  int rank;
  int nranks;
  gshmemx_uniqueid_t uid;
} gshmemx_uniqueid_args_t;

typedef struct {
  gshmemx_uniqueid_args_t uid_args;
  int has_uid_args;
  /* GSHMEMX_INIT_WITH_MPI_COMM: a pointer to the MPI_Comm whose ranks become the PEs (any
   * communicator; MPI is already initialised by the program, and gshmem finds its functions in
   * the process, so libgshmem itself does not depend on MPI). */
  void* mpi_comm;
} gshmemx_init_attr_t;

#define GSHMEMX_INIT_DEFAULT 0
#define GSHMEMX_INIT_WITH_UNIQUEID 1
#define GSHMEMX_INIT_WITH_MPI_COMM 2

/* How bad input on a call without a return value is handled. */
enum gshmemx_error_mode {
  GSHMEMX_ERROR_ABORT = 0, /* print the message and end the job (default) */
  GSHMEMX_ERROR_THROW = 1  /* throw gshmem::Error (C++ callers only) */
};

/* Where the symmetric heap lives (gshmemx_heap_kind). */
enum gshmemx_heap_kind {
  GSHMEMX_HEAP_NONE = 0,  /* not initialised */
  GSHMEMX_HEAP_HOST = 1,  /* host memory: CPU PEs, host API only */
  GSHMEMX_HEAP_DEVICE = 2 /* GPU memory: kernels and the host API */
};

/* Grid and block sizes for gshmemx_collective_launch; the same layout as CUDA's dim3. */
typedef struct {
  unsigned int x, y, z;
} gshmemx_dim3_t;

#endif /* GSHMEM_TYPES_H */
