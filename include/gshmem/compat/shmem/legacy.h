/* Names the OpenSHMEM 1.5 specification deprecates but still lists, because much existing code
 * and many benchmarks use them: the old setup and allocation names, the old atomics, the
 * shmem_TYPE_wait family, the active-set collectives with pSync/pWrk, and the _SHMEM_ constants.
 *
 * Active-set collectives: the PEs PE_start + i * 2^logPE_stride, i < PE_size, call them (only
 * those), each with the same arguments and the same symmetric pSync of the routine's
 * SHMEM_*_SYNC_SIZE longs, all SHMEM_SYNC_VALUE before the first PE enters; pSync is
 * SHMEM_SYNC_VALUE again when the routine returns. As the spec says, a pSync may serve the next
 * call once no member still uses it; a barrier in between ensures that, also a shmem_barrier on
 * the same pSync (each word takes one kind of signal only). PE_root is an index in the active
 * set. The legacy broadcast leaves the root's dest alone (the 1.5 team broadcast does not).
 */
#ifndef GSHMEM_COMPAT_SHMEM_LEGACY_H
#define GSHMEM_COMPAT_SHMEM_LEGACY_H

#include <stddef.h>

#include "constants.h"
#include "typelist.h"

#define _SHMEM_MAJOR_VERSION SHMEM_MAJOR_VERSION
#define _SHMEM_MINOR_VERSION SHMEM_MINOR_VERSION
#define _SHMEM_MAX_NAME_LEN SHMEM_MAX_NAME_LEN
#define _SHMEM_VENDOR_STRING SHMEM_VENDOR_STRING
#define _SHMEM_CMP_EQ SHMEM_CMP_EQ
#define _SHMEM_CMP_NE SHMEM_CMP_NE
#define _SHMEM_CMP_GT SHMEM_CMP_GT
#define _SHMEM_CMP_LE SHMEM_CMP_LE
#define _SHMEM_CMP_LT SHMEM_CMP_LT
#define _SHMEM_CMP_GE SHMEM_CMP_GE
#define _SHMEM_SYNC_VALUE SHMEM_SYNC_VALUE
#define _SHMEM_SYNC_SIZE SHMEM_SYNC_SIZE
#define _SHMEM_BARRIER_SYNC_SIZE SHMEM_BARRIER_SYNC_SIZE
#define _SHMEM_BCAST_SYNC_SIZE SHMEM_BCAST_SYNC_SIZE
#define _SHMEM_COLLECT_SYNC_SIZE SHMEM_COLLECT_SYNC_SIZE
#define _SHMEM_REDUCE_SYNC_SIZE SHMEM_REDUCE_SYNC_SIZE
#define _SHMEM_ALLTOALL_SYNC_SIZE SHMEM_ALLTOALL_SYNC_SIZE
#define _SHMEM_ALLTOALLS_SYNC_SIZE SHMEM_ALLTOALLS_SYNC_SIZE
#define _SHMEM_REDUCE_MIN_WRKDATA_SIZE SHMEM_REDUCE_MIN_WRKDATA_SIZE

#ifdef __cplusplus
extern "C" {
#endif

/* Setup and allocation: start_pes is shmem_init (npes is ignored, as the spec allows). */
void start_pes(int npes);
int _my_pe(void);
int _num_pes(void);
void* shmalloc(size_t size);
void shfree(void* ptr);
void* shrealloc(void* ptr, size_t size);
void* shmemalign(size_t alignment, size_t size);

/* The 1.3 atomics: the shmem_TYPE_atomic_* routines under their old names. */
#define GSHMEM_COMPAT_DECL_LEGACY_AMO(NAME, T, A)    \
  T shmem_##NAME##_fadd(T* dest, T value, int pe);   \
  T shmem_##NAME##_finc(T* dest, int pe);            \
  void shmem_##NAME##_add(T* dest, T value, int pe); \
  void shmem_##NAME##_inc(T* dest, int pe);          \
  T shmem_##NAME##_cswap(T* dest, T cond, T value, int pe);
#define GSHMEM_COMPAT_DECL_LEGACY_AMO_EXTENDED(NAME, T, A) \
  T shmem_##NAME##_swap(T* dest, T value, int pe);         \
  T shmem_##NAME##_fetch(const T* source, int pe);         \
  void shmem_##NAME##_set(T* dest, T value, int pe);
GSHMEM_COMPAT_LEGACY_AMO(GSHMEM_COMPAT_DECL_LEGACY_AMO, )
GSHMEM_COMPAT_LEGACY_AMO_EXTENDED(GSHMEM_COMPAT_DECL_LEGACY_AMO_EXTENDED, )
#undef GSHMEM_COMPAT_DECL_LEGACY_AMO
#undef GSHMEM_COMPAT_DECL_LEGACY_AMO_EXTENDED

/* shmem_TYPE_wait(ivar, value): waits while *ivar == value. The untyped long forms predate the
 * typed ones; in C11 the generic macros of the same names take their place at call sites (the
 * parentheses keep them from expanding here), in C++ the overloads of shmem/generic.h. */
#define GSHMEM_COMPAT_DECL_LEGACY_WAIT(NAME, T, A) void shmem_##NAME##_wait(T* ivar, T cmp_value);
GSHMEM_COMPAT_LEGACY_WAIT(GSHMEM_COMPAT_DECL_LEGACY_WAIT, )
#undef GSHMEM_COMPAT_DECL_LEGACY_WAIT
#if !defined(__cplusplus) || defined(GSHMEM_COMPAT_BUILDING)
void(shmem_wait)(long* ivar, long cmp_value);
void(shmem_wait_until)(long* ivar, int cmp, long cmp_value);
long(shmem_swap)(long* dest, long value, int pe);
#endif

/* Cache management: no-ops on every machine gshmem runs on (coherent memory). */
void shmem_clear_cache_inv(void);
void shmem_set_cache_inv(void);
void shmem_clear_cache_line_inv(void* dest);
void shmem_set_cache_line_inv(void* dest);
void shmem_udcflush(void);
void shmem_udcflush_line(void* dest);

/* Active-set synchronisation: barrier is quiet, then sync; sync only synchronises. */
void shmem_barrier(int PE_start, int logPE_stride, int PE_size, long* pSync);
void shmem_sync(int PE_start, int logPE_stride, int PE_size, long* pSync);

/* Active-set data movement over 32- or 64-bit elements. */
#define GSHMEM_COMPAT_DECL_ACTIVE_SET(BITS)                                                \
  void shmem_broadcast##BITS(void* dest, const void* source, size_t nelems, int PE_root,   \
                             int PE_start, int logPE_stride, int PE_size, long* pSync);    \
  void shmem_collect##BITS(void* dest, const void* source, size_t nelems, int PE_start,    \
                           int logPE_stride, int PE_size, long* pSync);                    \
  void shmem_fcollect##BITS(void* dest, const void* source, size_t nelems, int PE_start,   \
                            int logPE_stride, int PE_size, long* pSync);                   \
  void shmem_alltoall##BITS(void* dest, const void* source, size_t nelems, int PE_start,   \
                            int logPE_stride, int PE_size, long* pSync);                   \
  void shmem_alltoalls##BITS(void* dest, const void* source, ptrdiff_t dst, ptrdiff_t sst, \
                             size_t nelems, int PE_start, int logPE_stride, int PE_size,   \
                             long* pSync);
GSHMEM_COMPAT_DECL_ACTIVE_SET(32)
GSHMEM_COMPAT_DECL_ACTIVE_SET(64)
#undef GSHMEM_COMPAT_DECL_ACTIVE_SET

/* Active-set reductions: dest[i] = OP over the active set of source[i], i < nreduce. dest and
 * source may be the same array. pWrk is accepted and not used. */
#define GSHMEM_COMPAT_DECL_TO_ALL(NAME, T, OP)                                           \
  void shmem_##NAME##_##OP##_to_all(T* dest, const T* source, int nreduce, int PE_start, \
                                    int logPE_stride, int PE_size, T* pWrk, long* pSync);
#define GSHMEM_COMPAT_DECL_TO_ALL_BITWISE(OP, A) \
  GSHMEM_COMPAT_TO_ALL_BITWISE(GSHMEM_COMPAT_DECL_TO_ALL, OP)
#define GSHMEM_COMPAT_DECL_TO_ALL_MINMAX(OP, A) \
  GSHMEM_COMPAT_TO_ALL_MINMAX(GSHMEM_COMPAT_DECL_TO_ALL, OP)
#define GSHMEM_COMPAT_DECL_TO_ALL_ARITH(OP, A) \
  GSHMEM_COMPAT_TO_ALL_ARITH(GSHMEM_COMPAT_DECL_TO_ALL, OP)
GSHMEM_COMPAT_OPS_BITWISE(GSHMEM_COMPAT_DECL_TO_ALL_BITWISE, )
GSHMEM_COMPAT_OPS_MINMAX(GSHMEM_COMPAT_DECL_TO_ALL_MINMAX, )
GSHMEM_COMPAT_OPS_ARITH(GSHMEM_COMPAT_DECL_TO_ALL_ARITH, )
#undef GSHMEM_COMPAT_DECL_TO_ALL_BITWISE
#undef GSHMEM_COMPAT_DECL_TO_ALL_MINMAX
#undef GSHMEM_COMPAT_DECL_TO_ALL_ARITH
#undef GSHMEM_COMPAT_DECL_TO_ALL

#ifdef __cplusplus
}
#endif

#endif /* GSHMEM_COMPAT_SHMEM_LEGACY_H */
