/* OpenSHMEM 1.5 atomic memory operations, with their shmem_ctx_ forms.
 *
 * Each operation is atomic with respect to every other shmem atomic on the same object from any
 * PE; none orders other operations (use shmem_fence or shmem_quiet). Fetching forms return the
 * value before the operation. The _nbi fetching forms complete before they return (allowed:
 * stronger than the spec asks). On a context made from a team, pe is numbered in that team.
 */
#ifndef GSHMEM_COMPAT_SHMEM_AMO_H
#define GSHMEM_COMPAT_SHMEM_AMO_H

#include "constants.h"
#include "typelist.h"

#ifdef __cplusplus
extern "C" {
#endif

/* fetch, set, swap: the extended AMO types. */
#define GSHMEM_COMPAT_DECL_AMO_EXT(NAME, T, CTX, CTXARG)                                 \
  T shmem_##CTX##NAME##_atomic_fetch(CTXARG() const T* source, int pe);                  \
  void shmem_##CTX##NAME##_atomic_fetch_nbi(CTXARG() T* fetch, const T* source, int pe); \
  void shmem_##CTX##NAME##_atomic_set(CTXARG() T* dest, T value, int pe);                \
  T shmem_##CTX##NAME##_atomic_swap(CTXARG() T* dest, T value, int pe);                  \
  void shmem_##CTX##NAME##_atomic_swap_nbi(CTXARG() T* fetch, T* dest, T value, int pe);

/* The rest of the standard AMO types' operations. */
#define GSHMEM_COMPAT_DECL_AMO_STD(NAME, T, CTX, CTXARG)                                        \
  T shmem_##CTX##NAME##_atomic_compare_swap(CTXARG() T* dest, T cond, T value, int pe);         \
  void shmem_##CTX##NAME##_atomic_compare_swap_nbi(CTXARG() T* fetch, T* dest, T cond, T value, \
                                                   int pe);                                     \
  T shmem_##CTX##NAME##_atomic_fetch_inc(CTXARG() T* dest, int pe);                             \
  void shmem_##CTX##NAME##_atomic_fetch_inc_nbi(CTXARG() T* fetch, T* dest, int pe);            \
  void shmem_##CTX##NAME##_atomic_inc(CTXARG() T* dest, int pe);                                \
  T shmem_##CTX##NAME##_atomic_fetch_add(CTXARG() T* dest, T value, int pe);                    \
  void shmem_##CTX##NAME##_atomic_fetch_add_nbi(CTXARG() T* fetch, T* dest, T value, int pe);   \
  void shmem_##CTX##NAME##_atomic_add(CTXARG() T* dest, T value, int pe);

#define GSHMEM_COMPAT_DECL_AMO_BIT(NAME, T, CTX, CTXARG)                                      \
  T shmem_##CTX##NAME##_atomic_fetch_and(CTXARG() T* dest, T value, int pe);                  \
  void shmem_##CTX##NAME##_atomic_fetch_and_nbi(CTXARG() T* fetch, T* dest, T value, int pe); \
  void shmem_##CTX##NAME##_atomic_and(CTXARG() T* dest, T value, int pe);                     \
  T shmem_##CTX##NAME##_atomic_fetch_or(CTXARG() T* dest, T value, int pe);                   \
  void shmem_##CTX##NAME##_atomic_fetch_or_nbi(CTXARG() T* fetch, T* dest, T value, int pe);  \
  void shmem_##CTX##NAME##_atomic_or(CTXARG() T* dest, T value, int pe);                      \
  T shmem_##CTX##NAME##_atomic_fetch_xor(CTXARG() T* dest, T value, int pe);                  \
  void shmem_##CTX##NAME##_atomic_fetch_xor_nbi(CTXARG() T* fetch, T* dest, T value, int pe); \
  void shmem_##CTX##NAME##_atomic_xor(CTXARG() T* dest, T value, int pe);

#define GSHMEM_COMPAT_DECL_AMO_EXT_BOTH(NAME, T, A)           \
  GSHMEM_COMPAT_DECL_AMO_EXT(NAME, T, , GSHMEM_COMPAT_NO_CTX) \
  GSHMEM_COMPAT_DECL_AMO_EXT(NAME, T, ctx_, GSHMEM_COMPAT_CTX_ARG)
#define GSHMEM_COMPAT_DECL_AMO_STD_BOTH(NAME, T, A)           \
  GSHMEM_COMPAT_DECL_AMO_EXT_BOTH(NAME, T, A)                 \
  GSHMEM_COMPAT_DECL_AMO_STD(NAME, T, , GSHMEM_COMPAT_NO_CTX) \
  GSHMEM_COMPAT_DECL_AMO_STD(NAME, T, ctx_, GSHMEM_COMPAT_CTX_ARG)
#define GSHMEM_COMPAT_DECL_AMO_BIT_BOTH(NAME, T, A)           \
  GSHMEM_COMPAT_DECL_AMO_BIT(NAME, T, , GSHMEM_COMPAT_NO_CTX) \
  GSHMEM_COMPAT_DECL_AMO_BIT(NAME, T, ctx_, GSHMEM_COMPAT_CTX_ARG)
GSHMEM_COMPAT_AMO_TYPES(GSHMEM_COMPAT_DECL_AMO_STD_BOTH, )
GSHMEM_COMPAT_AMO_EXTENDED_ONLY(GSHMEM_COMPAT_DECL_AMO_EXT_BOTH, )
GSHMEM_COMPAT_AMO_BITWISE(GSHMEM_COMPAT_DECL_AMO_BIT_BOTH, )
#undef GSHMEM_COMPAT_DECL_AMO_EXT_BOTH
#undef GSHMEM_COMPAT_DECL_AMO_STD_BOTH
#undef GSHMEM_COMPAT_DECL_AMO_BIT_BOTH
#undef GSHMEM_COMPAT_DECL_AMO_EXT
#undef GSHMEM_COMPAT_DECL_AMO_STD
#undef GSHMEM_COMPAT_DECL_AMO_BIT

#ifdef __cplusplus
}
#endif

#endif /* GSHMEM_COMPAT_SHMEM_AMO_H */
