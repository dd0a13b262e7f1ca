/* gshmem collectives, NCCL-style host API.
 *
 * Collective over the team: every member calls with the same count, dtype, op and root, and
 * makes the team's calls in the same order.
 *
 * `stream` is a cudaStream_t passed as void*.
 *   GPU heap: the call enqueues one kernel on `stream` and returns; it is complete when the
 *     stream reaches it (stream-ordered; may be captured in a CUDA graph, each replay being a new
 *     call). stream == NULL: the kernel runs on the legacy default stream and the call returns
 *     once dst holds the result. Buffers must be reachable by the PE's GPU (device, managed or
 *     mapped pinned memory). The collectives of one PE share scratch: they must not run
 *     concurrently (enqueue them on one stream, or order the streams). GSHMEM_LONGDOUBLE is not
 *     available.
 *   Host heap (CPU PEs): pass NULL (any other stream is refused); the call blocks and returns
 *     with the result in dst.
 *
 * Buffers may be anywhere in this PE's memory (symmetric or not); symmetric buffers let some
 * algorithms skip a copy. dst == src means in place. Counts are elements of dtype.
 * Returns GSHMEM_SUCCESS or a gshmem_status (after printing which argument was wrong). A
 * stream-ordered call's kernel that cannot finish (a member that never joins, a job abort) traps
 * after GSHMEM_TIMEOUT with a message naming the call: a CUDA error at the next synchronisation.
 */
#ifndef GSHMEM_COLLECTIVES_H
#define GSHMEM_COLLECTIVES_H

#include <stddef.h>

#include "gshmem/types.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum {
  GSHMEM_FLOAT = 0,
  GSHMEM_DOUBLE,
  GSHMEM_HALF,
  GSHMEM_BFLOAT16,
  GSHMEM_INT8,
  GSHMEM_UINT8,
  GSHMEM_INT16,
  GSHMEM_UINT16,
  GSHMEM_INT32,
  GSHMEM_UINT32,
  GSHMEM_INT64,
  GSHMEM_UINT64,
  GSHMEM_LONGDOUBLE, /* host only */
  GSHMEM_COMPLEXF,   /* float _Complex; sum and prod only */
  GSHMEM_COMPLEXD,   /* double _Complex; sum and prod only */
  GSHMEM_DATATYPE_COUNT
} gshmem_datatype_t;

typedef enum {
  GSHMEM_SUM = 0,
  GSHMEM_PROD,
  GSHMEM_MIN,
  GSHMEM_MAX,
  GSHMEM_AVG,  /* floating types only */
  GSHMEM_BAND, /* integer types only */
  GSHMEM_BOR,
  GSHMEM_BXOR,
  GSHMEM_REDOP_COUNT
} gshmem_redop_t;

/* dst[i] = op over members of src[i], i < count, on every member. */
int gshmem_allreduce(gshmem_team_t team, void* dst, const void* src, size_t count,
                     gshmem_datatype_t dtype, gshmem_redop_t op, void* stream);
/* As allreduce, with the result only on root (a team PE index); dst is not touched elsewhere. */
int gshmem_reduce(gshmem_team_t team, void* dst, const void* src, size_t count,
                  gshmem_datatype_t dtype, gshmem_redop_t op, int root, void* stream);
/* dst holds count elements from every member, in team order (dst has n*count elements). */
int gshmem_allgather(gshmem_team_t team, void* dst, const void* src, size_t count,
                     gshmem_datatype_t dtype, void* stream);
/* src has n*count elements; member i gets in dst the reduction of block i (count elements). */
int gshmem_reducescatter(gshmem_team_t team, void* dst, const void* src, size_t count,
                         gshmem_datatype_t dtype, gshmem_redop_t op, void* stream);
/* root's src (count elements) lands in every member's dst (root's own dst too). */
int gshmem_broadcast(gshmem_team_t team, void* dst, const void* src, size_t count,
                     gshmem_datatype_t dtype, int root, void* stream);
/* Block j of member i's src (count elements) lands as block i of member j's dst. */
int gshmem_alltoall(gshmem_team_t team, void* dst, const void* src, size_t count,
                    gshmem_datatype_t dtype, void* stream);

size_t gshmem_datatype_size(gshmem_datatype_t dtype);

#ifdef __cplusplus
}
#endif

#endif /* GSHMEM_COLLECTIVES_H */
