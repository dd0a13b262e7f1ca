/* OpenSHMEM 1.5 constants and handle types. The comparison and signal values equal gshmem's own
 * (GSHMEM_CMP_*, GSHMEM_SIGNAL_*), so they pass through unchanged; the library checks that.
 */
#ifndef GSHMEM_COMPAT_SHMEM_CONSTANTS_H
#define GSHMEM_COMPAT_SHMEM_CONSTANTS_H

#include <stddef.h>
#include <stdint.h>

#define SHMEM_MAJOR_VERSION 1
#define SHMEM_MINOR_VERSION 5
#define SHMEM_MAX_NAME_LEN 256
#define SHMEM_VENDOR_STRING "gshmem"

#define SHMEM_THREAD_SINGLE 0
#define SHMEM_THREAD_FUNNELED 1
#define SHMEM_THREAD_SERIALIZED 2
#define SHMEM_THREAD_MULTIPLE 3

#define SHMEM_CMP_EQ 0
#define SHMEM_CMP_NE 1
#define SHMEM_CMP_GT 2
#define SHMEM_CMP_LE 3
#define SHMEM_CMP_LT 4
#define SHMEM_CMP_GE 5

#define SHMEM_SIGNAL_SET 0
#define SHMEM_SIGNAL_ADD 1

/* Hints of shmem_malloc_with_hints: accepted; every allocation already serves both uses. */
#define SHMEM_MALLOC_ATOMICS_REMOTE (1L << 0)
#define SHMEM_MALLOC_SIGNAL_REMOTE (1L << 1)

/* Options of shmem_ctx_create: accepted; gshmem has one channel per PE, which every context
 * shares, and it is safe for concurrent use from any thread. */
#define SHMEM_CTX_SERIALIZED (1L << 0)
#define SHMEM_CTX_PRIVATE (1L << 1)
#define SHMEM_CTX_NOSTORE (1L << 2)

/* Teams are handles; each names one of gshmem's team slots (handle = slot + 1, so the invalid
 * team is the null handle). Constant expressions, so they may initialise static variables. */
typedef struct gshmem_compat_team* shmem_team_t;
#define SHMEM_TEAM_INVALID ((shmem_team_t)(uintptr_t)0)
#define SHMEM_TEAM_WORLD ((shmem_team_t)(uintptr_t)1)
#define SHMEM_TEAM_SHARED ((shmem_team_t)(uintptr_t)2)

typedef struct {
  int num_contexts;
} shmem_team_config_t;
#define SHMEM_TEAM_NUM_CONTEXTS (1L << 0)

/* Contexts are pointers to a small object (the team they were made from, the options). */
typedef struct gshmem_compat_ctx* shmem_ctx_t;
#ifdef __cplusplus
extern "C" {
#endif
extern struct gshmem_compat_ctx gshmem_compat_ctx_default;
#ifdef __cplusplus
}
#endif
#define SHMEM_CTX_DEFAULT (&gshmem_compat_ctx_default)
#define SHMEM_CTX_INVALID ((shmem_ctx_t)0)

/* The declaration lists make every routine twice, without and with a leading context argument:
 * they pass one of these two names and the body writes CTXARG(). */
#define GSHMEM_COMPAT_NO_CTX()
#define GSHMEM_COMPAT_CTX_ARG() shmem_ctx_t ctx,

/* pSync arrays of the active-set collectives (shmem_barrier, shmem_broadcast32, ...): barrier,
 * sync and the reductions use words 0..30 (a dissemination barrier has at most 31 rounds), the
 * data-moving routines two more. Every word is a counter that starts and ends at
 * SHMEM_SYNC_VALUE. pWrk is not used; its minimum size is the spec's. */
#define SHMEM_SYNC_VALUE 0L
#define SHMEM_SYNC_SIZE 33
#define SHMEM_BARRIER_SYNC_SIZE 31
#define SHMEM_REDUCE_SYNC_SIZE 31
#define SHMEM_BCAST_SYNC_SIZE SHMEM_SYNC_SIZE
#define SHMEM_COLLECT_SYNC_SIZE SHMEM_SYNC_SIZE
#define SHMEM_ALLTOALL_SYNC_SIZE SHMEM_SYNC_SIZE
#define SHMEM_ALLTOALLS_SYNC_SIZE SHMEM_SYNC_SIZE
#define SHMEM_REDUCE_MIN_WRKDATA_SIZE 1

#endif /* GSHMEM_COMPAT_SHMEM_CONSTANTS_H */
