/* OpenSHMEM 1.5 team collectives. Collective over the team: every member calls with the same
 * arguments (collect: its own nelems). dest and source are symmetric; nelems counts elements
 * (bytes for the mem forms). Reductions may work in place (dest == source). Each returns 0, or
 * non-zero for an invalid team or a failure already reported on stderr.
 *
 * broadcast: the root's source lands in every member's dest, the root's own too.
 * collect:   the members' sources, concatenated in team order, in every dest (sizes may differ).
 * fcollect:  as collect with the same nelems everywhere.
 * alltoall:  block j of member i's source lands as block i of member j's dest.
 * alltoalls: as alltoall over elements dst (dest) and sst (source) apart.
 */
#ifndef GSHMEM_COMPAT_SHMEM_COLL_H
#define GSHMEM_COMPAT_SHMEM_COLL_H

#include <stddef.h>

#include "constants.h"
#include "typelist.h"

#ifdef __cplusplus
extern "C" {
#endif

#define GSHMEM_COMPAT_DECL_COLL(NAME, T, A)                                                \
  int shmem_##NAME##_broadcast(shmem_team_t team, T* dest, const T* source, size_t nelems, \
                               int PE_root);                                               \
  int shmem_##NAME##_collect(shmem_team_t team, T* dest, const T* source, size_t nelems);  \
  int shmem_##NAME##_fcollect(shmem_team_t team, T* dest, const T* source, size_t nelems); \
  int shmem_##NAME##_alltoall(shmem_team_t team, T* dest, const T* source, size_t nelems); \
  int shmem_##NAME##_alltoalls(shmem_team_t team, T* dest, const T* source, ptrdiff_t dst, \
                               ptrdiff_t sst, size_t nelems);
GSHMEM_COMPAT_RMA_TYPES(GSHMEM_COMPAT_DECL_COLL, )
#undef GSHMEM_COMPAT_DECL_COLL

int shmem_broadcastmem(shmem_team_t team, void* dest, const void* source, size_t nelems,
                       int PE_root);
int shmem_collectmem(shmem_team_t team, void* dest, const void* source, size_t nelems);
int shmem_fcollectmem(shmem_team_t team, void* dest, const void* source, size_t nelems);
int shmem_alltoallmem(shmem_team_t team, void* dest, const void* source, size_t nelems);
int shmem_alltoallsmem(shmem_team_t team, void* dest, const void* source, ptrdiff_t dst,
                       ptrdiff_t sst, size_t nelems);

/* shmem_TYPE_OP_reduce: dest[i] = OP over the members of source[i], i < nreduce. */
#define GSHMEM_COMPAT_DECL_REDUCE(NAME, T, OP) \
  int shmem_##NAME##_##OP##_reduce(shmem_team_t team, T* dest, const T* source, size_t nreduce);
#define GSHMEM_COMPAT_DECL_REDUCE_BITWISE(OP, A) \
  GSHMEM_COMPAT_REDUCE_BITWISE(GSHMEM_COMPAT_DECL_REDUCE, OP)
#define GSHMEM_COMPAT_DECL_REDUCE_MINMAX(OP, A) \
  GSHMEM_COMPAT_REDUCE_MINMAX(GSHMEM_COMPAT_DECL_REDUCE, OP)
#define GSHMEM_COMPAT_DECL_REDUCE_ARITH(OP, A) \
  GSHMEM_COMPAT_REDUCE_ARITH(GSHMEM_COMPAT_DECL_REDUCE, OP)
GSHMEM_COMPAT_OPS_BITWISE(GSHMEM_COMPAT_DECL_REDUCE_BITWISE, )
GSHMEM_COMPAT_OPS_MINMAX(GSHMEM_COMPAT_DECL_REDUCE_MINMAX, )
GSHMEM_COMPAT_OPS_ARITH(GSHMEM_COMPAT_DECL_REDUCE_ARITH, )
#undef GSHMEM_COMPAT_DECL_REDUCE_BITWISE
#undef GSHMEM_COMPAT_DECL_REDUCE_MINMAX
#undef GSHMEM_COMPAT_DECL_REDUCE_ARITH
#undef GSHMEM_COMPAT_DECL_REDUCE

#ifdef __cplusplus
}
#endif

#endif /* GSHMEM_COMPAT_SHMEM_COLL_H */
