/* The type-generic interfaces of OpenSHMEM 1.5: shmem_put(dest, source, nelems, pe) picks
 * shmem_long_put from dest's type, shmem_put(ctx, dest, ...) the shmem_ctx_ form.
 *
 * C11: _Generic selections over the *_GENERIC type lists. An argument of a type no list names
 * selects gshmem_compat_no_such_type, whose call then fails to compile ("too many arguments").
 * C++: inline overloads over the same lists (the library's own sources, which define the C
 * names, do not need them and define GSHMEM_COMPAT_BUILDING).
 * Also the deprecated generic names: shmem_fadd, shmem_finc, shmem_add, shmem_inc, shmem_cswap,
 * shmem_swap, shmem_fetch, shmem_set, shmem_wait; and shmem_sync in both its forms, the team one
 * (shmem_sync(team)) and the deprecated active-set one (four arguments).
 */
#ifndef GSHMEM_COMPAT_SHMEM_GENERIC_H
#define GSHMEM_COMPAT_SHMEM_GENERIC_H

#include "amo.h"
#include "coll.h"
#include "constants.h"
#include "legacy.h"
#include "rma.h"
#include "sync.h"
#include "typelist.h"

#if !defined(__cplusplus) && defined(__STDC_VERSION__) && __STDC_VERSION__ >= 201112L

void gshmem_compat_no_such_type(void);

#define GSHMEM_COMPAT_ARG0(a, ...) a
#define GSHMEM_COMPAT_ARG1(a, b, ...) b

/* Associations T*: shmem_NAME_OP (and const T* for routines whose dispatching argument is a
 * source). */
#define GSHMEM_COMPAT_ASSOC(NAME, T, OP) T* : shmem_##NAME##_##OP,
#define GSHMEM_COMPAT_ASSOC_CONST(NAME, T, OP) \
  T* : shmem_##NAME##_##OP, const T* : shmem_##NAME##_##OP,
#define GSHMEM_COMPAT_ASSOC_CTX(NAME, T, OP) T* : shmem_ctx_##NAME##_##OP,
#define GSHMEM_COMPAT_ASSOC_CTX_CONST(NAME, T, OP) \
  T* : shmem_ctx_##NAME##_##OP, const T* : shmem_ctx_##NAME##_##OP,

#define GSHMEM_COMPAT_SELECT(ASSOC, LIST, OP, ARG) \
  _Generic((ARG), LIST(ASSOC, OP) default : gshmem_compat_no_such_type)

/* A routine with a shmem_ctx_ form: a shmem_ctx_t first argument selects that form by the type
 * of the second argument, anything else the plain form by the type of the first. Both branches
 * must compile whichever is taken, hence the defaults. C is empty or _CONST. */
/* clang-format off */
#define GSHMEM_COMPAT_CTX_GENERIC(LIST, OP, C, ...)                                            \
  _Generic(GSHMEM_COMPAT_ARG0(__VA_ARGS__, 0),                                                  \
    shmem_ctx_t: GSHMEM_COMPAT_SELECT(GSHMEM_COMPAT_ASSOC_CTX##C, LIST, OP,                     \
                                      GSHMEM_COMPAT_ARG1(__VA_ARGS__, 0)),                      \
    default: GSHMEM_COMPAT_SELECT(GSHMEM_COMPAT_ASSOC##C, LIST, OP,                             \
                                  GSHMEM_COMPAT_ARG0(__VA_ARGS__, 0)))(__VA_ARGS__)
/* clang-format on */

/* RMA and signals. */
#define shmem_put(...) GSHMEM_COMPAT_CTX_GENERIC(GSHMEM_COMPAT_RMA_GENERIC, put, , __VA_ARGS__)
#define shmem_put_nbi(...) \
  GSHMEM_COMPAT_CTX_GENERIC(GSHMEM_COMPAT_RMA_GENERIC, put_nbi, , __VA_ARGS__)
#define shmem_get(...) GSHMEM_COMPAT_CTX_GENERIC(GSHMEM_COMPAT_RMA_GENERIC, get, , __VA_ARGS__)
#define shmem_get_nbi(...) \
  GSHMEM_COMPAT_CTX_GENERIC(GSHMEM_COMPAT_RMA_GENERIC, get_nbi, , __VA_ARGS__)
#define shmem_p(...) GSHMEM_COMPAT_CTX_GENERIC(GSHMEM_COMPAT_RMA_GENERIC, p, , __VA_ARGS__)
#define shmem_g(...) GSHMEM_COMPAT_CTX_GENERIC(GSHMEM_COMPAT_RMA_GENERIC, g, _CONST, __VA_ARGS__)
#define shmem_iput(...) GSHMEM_COMPAT_CTX_GENERIC(GSHMEM_COMPAT_RMA_GENERIC, iput, , __VA_ARGS__)
#define shmem_iget(...) GSHMEM_COMPAT_CTX_GENERIC(GSHMEM_COMPAT_RMA_GENERIC, iget, , __VA_ARGS__)
#define shmem_put_signal(...) \
  GSHMEM_COMPAT_CTX_GENERIC(GSHMEM_COMPAT_RMA_GENERIC, put_signal, , __VA_ARGS__)
#define shmem_put_signal_nbi(...) \
  GSHMEM_COMPAT_CTX_GENERIC(GSHMEM_COMPAT_RMA_GENERIC, put_signal_nbi, , __VA_ARGS__)

/* Atomics: the _nbi forms select by their first (fetch) pointer. */
#define shmem_atomic_fetch(...) \
  GSHMEM_COMPAT_CTX_GENERIC(GSHMEM_COMPAT_AMO_EXTENDED_GENERIC, atomic_fetch, _CONST, __VA_ARGS__)
#define shmem_atomic_fetch_nbi(...) \
  GSHMEM_COMPAT_CTX_GENERIC(GSHMEM_COMPAT_AMO_EXTENDED_GENERIC, atomic_fetch_nbi, , __VA_ARGS__)
#define shmem_atomic_set(...) \
  GSHMEM_COMPAT_CTX_GENERIC(GSHMEM_COMPAT_AMO_EXTENDED_GENERIC, atomic_set, , __VA_ARGS__)
#define shmem_atomic_swap(...) \
  GSHMEM_COMPAT_CTX_GENERIC(GSHMEM_COMPAT_AMO_EXTENDED_GENERIC, atomic_swap, , __VA_ARGS__)
#define shmem_atomic_swap_nbi(...) \
  GSHMEM_COMPAT_CTX_GENERIC(GSHMEM_COMPAT_AMO_EXTENDED_GENERIC, atomic_swap_nbi, , __VA_ARGS__)
#define shmem_atomic_compare_swap(...) \
  GSHMEM_COMPAT_CTX_GENERIC(GSHMEM_COMPAT_AMO_GENERIC, atomic_compare_swap, , __VA_ARGS__)
#define shmem_atomic_compare_swap_nbi(...) \
  GSHMEM_COMPAT_CTX_GENERIC(GSHMEM_COMPAT_AMO_GENERIC, atomic_compare_swap_nbi, , __VA_ARGS__)
#define shmem_atomic_fetch_inc(...) \
  GSHMEM_COMPAT_CTX_GENERIC(GSHMEM_COMPAT_AMO_GENERIC, atomic_fetch_inc, , __VA_ARGS__)
#define shmem_atomic_fetch_inc_nbi(...) \
  GSHMEM_COMPAT_CTX_GENERIC(GSHMEM_COMPAT_AMO_GENERIC, atomic_fetch_inc_nbi, , __VA_ARGS__)
#define shmem_atomic_inc(...) \
  GSHMEM_COMPAT_CTX_GENERIC(GSHMEM_COMPAT_AMO_GENERIC, atomic_inc, , __VA_ARGS__)
#define shmem_atomic_fetch_add(...) \
  GSHMEM_COMPAT_CTX_GENERIC(GSHMEM_COMPAT_AMO_GENERIC, atomic_fetch_add, , __VA_ARGS__)
#define shmem_atomic_fetch_add_nbi(...) \
  GSHMEM_COMPAT_CTX_GENERIC(GSHMEM_COMPAT_AMO_GENERIC, atomic_fetch_add_nbi, , __VA_ARGS__)
#define shmem_atomic_add(...) \
  GSHMEM_COMPAT_CTX_GENERIC(GSHMEM_COMPAT_AMO_GENERIC, atomic_add, , __VA_ARGS__)
#define shmem_atomic_fetch_and(...) \
  GSHMEM_COMPAT_CTX_GENERIC(GSHMEM_COMPAT_AMO_BITWISE_GENERIC, atomic_fetch_and, , __VA_ARGS__)
#define shmem_atomic_fetch_and_nbi(...) \
  GSHMEM_COMPAT_CTX_GENERIC(GSHMEM_COMPAT_AMO_BITWISE_GENERIC, atomic_fetch_and_nbi, , __VA_ARGS__)
#define shmem_atomic_and(...) \
  GSHMEM_COMPAT_CTX_GENERIC(GSHMEM_COMPAT_AMO_BITWISE_GENERIC, atomic_and, , __VA_ARGS__)
#define shmem_atomic_fetch_or(...) \
  GSHMEM_COMPAT_CTX_GENERIC(GSHMEM_COMPAT_AMO_BITWISE_GENERIC, atomic_fetch_or, , __VA_ARGS__)
#define shmem_atomic_fetch_or_nbi(...) \
  GSHMEM_COMPAT_CTX_GENERIC(GSHMEM_COMPAT_AMO_BITWISE_GENERIC, atomic_fetch_or_nbi, , __VA_ARGS__)
#define shmem_atomic_or(...) \
  GSHMEM_COMPAT_CTX_GENERIC(GSHMEM_COMPAT_AMO_BITWISE_GENERIC, atomic_or, , __VA_ARGS__)
#define shmem_atomic_fetch_xor(...) \
  GSHMEM_COMPAT_CTX_GENERIC(GSHMEM_COMPAT_AMO_BITWISE_GENERIC, atomic_fetch_xor, , __VA_ARGS__)
#define shmem_atomic_fetch_xor_nbi(...) \
  GSHMEM_COMPAT_CTX_GENERIC(GSHMEM_COMPAT_AMO_BITWISE_GENERIC, atomic_fetch_xor_nbi, , __VA_ARGS__)
#define shmem_atomic_xor(...) \
  GSHMEM_COMPAT_CTX_GENERIC(GSHMEM_COMPAT_AMO_BITWISE_GENERIC, atomic_xor, , __VA_ARGS__)

/* Point-to-point synchronisation: selected by ivar(s). */
#define GSHMEM_COMPAT_SYNC_SELECT(OP, IVAR) \
  GSHMEM_COMPAT_SELECT(GSHMEM_COMPAT_ASSOC, GSHMEM_COMPAT_SYNC_GENERIC, OP, IVAR)
#define shmem_wait_until(ivar, ...) GSHMEM_COMPAT_SYNC_SELECT(wait_until, ivar)(ivar, __VA_ARGS__)
#define shmem_wait_until_all(ivars, ...) \
  GSHMEM_COMPAT_SYNC_SELECT(wait_until_all, ivars)(ivars, __VA_ARGS__)
#define shmem_wait_until_any(ivars, ...) \
  GSHMEM_COMPAT_SYNC_SELECT(wait_until_any, ivars)(ivars, __VA_ARGS__)
#define shmem_wait_until_some(ivars, ...) \
  GSHMEM_COMPAT_SYNC_SELECT(wait_until_some, ivars)(ivars, __VA_ARGS__)
#define shmem_wait_until_all_vector(ivars, ...) \
  GSHMEM_COMPAT_SYNC_SELECT(wait_until_all_vector, ivars)(ivars, __VA_ARGS__)
#define shmem_wait_until_any_vector(ivars, ...) \
  GSHMEM_COMPAT_SYNC_SELECT(wait_until_any_vector, ivars)(ivars, __VA_ARGS__)
#define shmem_wait_until_some_vector(ivars, ...) \
  GSHMEM_COMPAT_SYNC_SELECT(wait_until_some_vector, ivars)(ivars, __VA_ARGS__)
#define shmem_test(ivar, ...) GSHMEM_COMPAT_SYNC_SELECT(test, ivar)(ivar, __VA_ARGS__)
#define shmem_test_all(ivars, ...) GSHMEM_COMPAT_SYNC_SELECT(test_all, ivars)(ivars, __VA_ARGS__)
#define shmem_test_any(ivars, ...) GSHMEM_COMPAT_SYNC_SELECT(test_any, ivars)(ivars, __VA_ARGS__)
#define shmem_test_some(ivars, ...) GSHMEM_COMPAT_SYNC_SELECT(test_some, ivars)(ivars, __VA_ARGS__)
#define shmem_test_all_vector(ivars, ...) \
  GSHMEM_COMPAT_SYNC_SELECT(test_all_vector, ivars)(ivars, __VA_ARGS__)
#define shmem_test_any_vector(ivars, ...) \
  GSHMEM_COMPAT_SYNC_SELECT(test_any_vector, ivars)(ivars, __VA_ARGS__)
#define shmem_test_some_vector(ivars, ...) \
  GSHMEM_COMPAT_SYNC_SELECT(test_some_vector, ivars)(ivars, __VA_ARGS__)

/* Team collectives: selected by dest. */
#define GSHMEM_COMPAT_COLL_SELECT(LIST, OP, DEST) \
  GSHMEM_COMPAT_SELECT(GSHMEM_COMPAT_ASSOC, LIST, OP, DEST)
#define shmem_broadcast(team, dest, ...) \
  GSHMEM_COMPAT_COLL_SELECT(GSHMEM_COMPAT_RMA_GENERIC, broadcast, dest)(team, dest, __VA_ARGS__)
#define shmem_collect(team, dest, ...) \
  GSHMEM_COMPAT_COLL_SELECT(GSHMEM_COMPAT_RMA_GENERIC, collect, dest)(team, dest, __VA_ARGS__)
#define shmem_fcollect(team, dest, ...) \
  GSHMEM_COMPAT_COLL_SELECT(GSHMEM_COMPAT_RMA_GENERIC, fcollect, dest)(team, dest, __VA_ARGS__)
#define shmem_alltoall(team, dest, ...) \
  GSHMEM_COMPAT_COLL_SELECT(GSHMEM_COMPAT_RMA_GENERIC, alltoall, dest)(team, dest, __VA_ARGS__)
#define shmem_alltoalls(team, dest, ...) \
  GSHMEM_COMPAT_COLL_SELECT(GSHMEM_COMPAT_RMA_GENERIC, alltoalls, dest)(team, dest, __VA_ARGS__)
#define shmem_and_reduce(team, dest, ...)                                           \
  GSHMEM_COMPAT_COLL_SELECT(GSHMEM_COMPAT_REDUCE_BITWISE_GENERIC, and_reduce, dest) \
  (team, dest, __VA_ARGS__)
#define shmem_or_reduce(team, dest, ...)                                           \
  GSHMEM_COMPAT_COLL_SELECT(GSHMEM_COMPAT_REDUCE_BITWISE_GENERIC, or_reduce, dest) \
  (team, dest, __VA_ARGS__)
#define shmem_xor_reduce(team, dest, ...)                                           \
  GSHMEM_COMPAT_COLL_SELECT(GSHMEM_COMPAT_REDUCE_BITWISE_GENERIC, xor_reduce, dest) \
  (team, dest, __VA_ARGS__)
#define shmem_max_reduce(team, dest, ...)                                          \
  GSHMEM_COMPAT_COLL_SELECT(GSHMEM_COMPAT_REDUCE_MINMAX_GENERIC, max_reduce, dest) \
  (team, dest, __VA_ARGS__)
#define shmem_min_reduce(team, dest, ...)                                          \
  GSHMEM_COMPAT_COLL_SELECT(GSHMEM_COMPAT_REDUCE_MINMAX_GENERIC, min_reduce, dest) \
  (team, dest, __VA_ARGS__)
#define shmem_sum_reduce(team, dest, ...)                                         \
  GSHMEM_COMPAT_COLL_SELECT(GSHMEM_COMPAT_REDUCE_ARITH_GENERIC, sum_reduce, dest) \
  (team, dest, __VA_ARGS__)
#define shmem_prod_reduce(team, dest, ...)                                         \
  GSHMEM_COMPAT_COLL_SELECT(GSHMEM_COMPAT_REDUCE_ARITH_GENERIC, prod_reduce, dest) \
  (team, dest, __VA_ARGS__)

/* Deprecated generic names (1.3): the atomics above under their old names, and shmem_wait. */
#define shmem_fadd(dest, value, pe) shmem_atomic_fetch_add(dest, value, pe)
#define shmem_finc(dest, pe) shmem_atomic_fetch_inc(dest, pe)
#define shmem_add(dest, value, pe) shmem_atomic_add(dest, value, pe)
#define shmem_inc(dest, pe) shmem_atomic_inc(dest, pe)
#define shmem_cswap(dest, cond, value, pe) shmem_atomic_compare_swap(dest, cond, value, pe)
#define shmem_swap(dest, value, pe) shmem_atomic_swap(dest, value, pe)
#define shmem_fetch(source, pe) shmem_atomic_fetch(source, pe)
#define shmem_set(dest, value, pe) shmem_atomic_set(dest, value, pe)
#define shmem_wait(ivar, cmp_value) shmem_wait_until(ivar, SHMEM_CMP_NE, cmp_value)

/* shmem_sync: the team form shmem_sync(team) (returns int) beside the deprecated active-set form
 * shmem_sync(PE_start, logPE_stride, PE_size, pSync), told apart by the number of arguments. */
#define GSHMEM_COMPAT_PICK_SYNC(a1, a2, a3, a4, NAME, ...) NAME
#define shmem_sync(...)                                                        \
  GSHMEM_COMPAT_PICK_SYNC(__VA_ARGS__, shmem_sync, gshmem_compat_no_such_type, \
                          gshmem_compat_no_such_type, shmem_team_sync, 0)      \
  (__VA_ARGS__)

#elif defined(__cplusplus) && !defined(GSHMEM_COMPAT_BUILDING)

/* shmem_sync(team), the team form, beside the deprecated active-set shmem_sync (C linkage). */
inline int shmem_sync(shmem_team_t team) {
  return shmem_team_sync(team);
}

/* Overloads, generated from the same lists, twice per type: CTX is empty or ctx_, and CTXP() and
 * CTXA() write nothing or the leading context parameter and argument. */
#define GSHMEM_COMPAT_CXX_RMA(NAME, T, CTX, CTXP, CTXA)                                          \
  inline void shmem_put(CTXP() T* d, const T* s, size_t n, int pe) {                             \
    shmem_##CTX##NAME##_put(CTXA() d, s, n, pe);                                                 \
  }                                                                                              \
  inline void shmem_put_nbi(CTXP() T* d, const T* s, size_t n, int pe) {                         \
    shmem_##CTX##NAME##_put_nbi(CTXA() d, s, n, pe);                                             \
  }                                                                                              \
  inline void shmem_get(CTXP() T* d, const T* s, size_t n, int pe) {                             \
    shmem_##CTX##NAME##_get(CTXA() d, s, n, pe);                                                 \
  }                                                                                              \
  inline void shmem_get_nbi(CTXP() T* d, const T* s, size_t n, int pe) {                         \
    shmem_##CTX##NAME##_get_nbi(CTXA() d, s, n, pe);                                             \
  }                                                                                              \
  inline void shmem_p(CTXP() T* d, T v, int pe) {                                                \
    shmem_##CTX##NAME##_p(CTXA() d, v, pe);                                                      \
  }                                                                                              \
  inline T shmem_g(CTXP() const T* s, int pe) {                                                  \
    return shmem_##CTX##NAME##_g(CTXA() s, pe);                                                  \
  }                                                                                              \
  inline void shmem_iput(CTXP() T* d, const T* s, ptrdiff_t dst, ptrdiff_t sst, size_t n,        \
                         int pe) {                                                               \
    shmem_##CTX##NAME##_iput(CTXA() d, s, dst, sst, n, pe);                                      \
  }                                                                                              \
  inline void shmem_iget(CTXP() T* d, const T* s, ptrdiff_t dst, ptrdiff_t sst, size_t n,        \
                         int pe) {                                                               \
    shmem_##CTX##NAME##_iget(CTXA() d, s, dst, sst, n, pe);                                      \
  }                                                                                              \
  inline void shmem_put_signal(CTXP() T* d, const T* s, size_t n, uint64_t* sig, uint64_t v,     \
                               int op, int pe) {                                                 \
    shmem_##CTX##NAME##_put_signal(CTXA() d, s, n, sig, v, op, pe);                              \
  }                                                                                              \
  inline void shmem_put_signal_nbi(CTXP() T* d, const T* s, size_t n, uint64_t* sig, uint64_t v, \
                                   int op, int pe) {                                             \
    shmem_##CTX##NAME##_put_signal_nbi(CTXA() d, s, n, sig, v, op, pe);                          \
  }

#define GSHMEM_COMPAT_CXX_AMO_EXT(NAME, T, CTX, CTXP, CTXA)             \
  inline T shmem_atomic_fetch(CTXP() const T* s, int pe) {              \
    return shmem_##CTX##NAME##_atomic_fetch(CTXA() s, pe);              \
  }                                                                     \
  inline void shmem_atomic_fetch_nbi(CTXP() T* f, const T* s, int pe) { \
    shmem_##CTX##NAME##_atomic_fetch_nbi(CTXA() f, s, pe);              \
  }                                                                     \
  inline void shmem_atomic_set(CTXP() T* d, T v, int pe) {              \
    shmem_##CTX##NAME##_atomic_set(CTXA() d, v, pe);                    \
  }                                                                     \
  inline T shmem_atomic_swap(CTXP() T* d, T v, int pe) {                \
    return shmem_##CTX##NAME##_atomic_swap(CTXA() d, v, pe);            \
  }                                                                     \
  inline void shmem_atomic_swap_nbi(CTXP() T* f, T* d, T v, int pe) {   \
    shmem_##CTX##NAME##_atomic_swap_nbi(CTXA() f, d, v, pe);            \
  }

#define GSHMEM_COMPAT_CXX_AMO_STD(NAME, T, CTX, CTXP, CTXA)                        \
  inline T shmem_atomic_compare_swap(CTXP() T* d, T c, T v, int pe) {              \
    return shmem_##CTX##NAME##_atomic_compare_swap(CTXA() d, c, v, pe);            \
  }                                                                                \
  inline void shmem_atomic_compare_swap_nbi(CTXP() T* f, T* d, T c, T v, int pe) { \
    shmem_##CTX##NAME##_atomic_compare_swap_nbi(CTXA() f, d, c, v, pe);            \
  }                                                                                \
  inline T shmem_atomic_fetch_inc(CTXP() T* d, int pe) {                           \
    return shmem_##CTX##NAME##_atomic_fetch_inc(CTXA() d, pe);                     \
  }                                                                                \
  inline void shmem_atomic_fetch_inc_nbi(CTXP() T* f, T* d, int pe) {              \
    shmem_##CTX##NAME##_atomic_fetch_inc_nbi(CTXA() f, d, pe);                     \
  }                                                                                \
  inline void shmem_atomic_inc(CTXP() T* d, int pe) {                              \
    shmem_##CTX##NAME##_atomic_inc(CTXA() d, pe);                                  \
  }                                                                                \
  inline T shmem_atomic_fetch_add(CTXP() T* d, T v, int pe) {                      \
    return shmem_##CTX##NAME##_atomic_fetch_add(CTXA() d, v, pe);                  \
  }                                                                                \
  inline void shmem_atomic_fetch_add_nbi(CTXP() T* f, T* d, T v, int pe) {         \
    shmem_##CTX##NAME##_atomic_fetch_add_nbi(CTXA() f, d, v, pe);                  \
  }                                                                                \
  inline void shmem_atomic_add(CTXP() T* d, T v, int pe) {                         \
    shmem_##CTX##NAME##_atomic_add(CTXA() d, v, pe);                               \
  }

#define GSHMEM_COMPAT_CXX_AMO_BIT_OP(NAME, T, CTX, CTXP, CTXA, OP)            \
  inline T shmem_atomic_fetch_##OP(CTXP() T* d, T v, int pe) {                \
    return shmem_##CTX##NAME##_atomic_fetch_##OP(CTXA() d, v, pe);            \
  }                                                                           \
  inline void shmem_atomic_fetch_##OP##_nbi(CTXP() T* f, T* d, T v, int pe) { \
    shmem_##CTX##NAME##_atomic_fetch_##OP##_nbi(CTXA() f, d, v, pe);          \
  }                                                                           \
  inline void shmem_atomic_##OP(CTXP() T* d, T v, int pe) {                   \
    shmem_##CTX##NAME##_atomic_##OP(CTXA() d, v, pe);                         \
  }
#define GSHMEM_COMPAT_CXX_AMO_BIT(NAME, T, CTX, CTXP, CTXA)   \
  GSHMEM_COMPAT_CXX_AMO_BIT_OP(NAME, T, CTX, CTXP, CTXA, and) \
  GSHMEM_COMPAT_CXX_AMO_BIT_OP(NAME, T, CTX, CTXP, CTXA, or)  \
  GSHMEM_COMPAT_CXX_AMO_BIT_OP(NAME, T, CTX, CTXP, CTXA, xor)

#define GSHMEM_COMPAT_CXX_CTX_ARGS() ctx,
#define GSHMEM_COMPAT_CXX_BOTH(NAME, T, GEN)                 \
  GEN(NAME, T, , GSHMEM_COMPAT_NO_CTX, GSHMEM_COMPAT_NO_CTX) \
  GEN(NAME, T, ctx_, GSHMEM_COMPAT_CTX_ARG, GSHMEM_COMPAT_CXX_CTX_ARGS)
GSHMEM_COMPAT_RMA_GENERIC(GSHMEM_COMPAT_CXX_BOTH, GSHMEM_COMPAT_CXX_RMA)
GSHMEM_COMPAT_AMO_EXTENDED_GENERIC(GSHMEM_COMPAT_CXX_BOTH, GSHMEM_COMPAT_CXX_AMO_EXT)
GSHMEM_COMPAT_AMO_GENERIC(GSHMEM_COMPAT_CXX_BOTH, GSHMEM_COMPAT_CXX_AMO_STD)
GSHMEM_COMPAT_AMO_BITWISE_GENERIC(GSHMEM_COMPAT_CXX_BOTH, GSHMEM_COMPAT_CXX_AMO_BIT)

#define GSHMEM_COMPAT_CXX_WAIT(NAME, T, A)                                                        \
  inline void shmem_wait_until(T* v, int cmp, T x) {                                              \
    shmem_##NAME##_wait_until(v, cmp, x);                                                         \
  }                                                                                               \
  inline void shmem_wait_until_all(T* v, size_t n, const int* st, int cmp, T x) {                 \
    shmem_##NAME##_wait_until_all(v, n, st, cmp, x);                                              \
  }                                                                                               \
  inline size_t shmem_wait_until_any(T* v, size_t n, const int* st, int cmp, T x) {               \
    return shmem_##NAME##_wait_until_any(v, n, st, cmp, x);                                       \
  }                                                                                               \
  inline size_t shmem_wait_until_some(T* v, size_t n, size_t* idx, const int* st, int cmp, T x) { \
    return shmem_##NAME##_wait_until_some(v, n, idx, st, cmp, x);                                 \
  }                                                                                               \
  inline void shmem_wait_until_all_vector(T* v, size_t n, const int* st, int cmp, T* xs) {        \
    shmem_##NAME##_wait_until_all_vector(v, n, st, cmp, xs);                                      \
  }                                                                                               \
  inline size_t shmem_wait_until_any_vector(T* v, size_t n, const int* st, int cmp, T* xs) {      \
    return shmem_##NAME##_wait_until_any_vector(v, n, st, cmp, xs);                               \
  }                                                                                               \
  inline size_t shmem_wait_until_some_vector(T* v, size_t n, size_t* idx, const int* st, int cmp, \
                                             T* xs) {                                             \
    return shmem_##NAME##_wait_until_some_vector(v, n, idx, st, cmp, xs);                         \
  }                                                                                               \
  inline int shmem_test(T* v, int cmp, T x) {                                                     \
    return shmem_##NAME##_test(v, cmp, x);                                                        \
  }                                                                                               \
  inline int shmem_test_all(T* v, size_t n, const int* st, int cmp, T x) {                        \
    return shmem_##NAME##_test_all(v, n, st, cmp, x);                                             \
  }                                                                                               \
  inline size_t shmem_test_any(T* v, size_t n, const int* st, int cmp, T x) {                     \
    return shmem_##NAME##_test_any(v, n, st, cmp, x);                                             \
  }                                                                                               \
  inline size_t shmem_test_some(T* v, size_t n, size_t* idx, const int* st, int cmp, T x) {       \
    return shmem_##NAME##_test_some(v, n, idx, st, cmp, x);                                       \
  }                                                                                               \
  inline int shmem_test_all_vector(T* v, size_t n, const int* st, int cmp, T* xs) {               \
    return shmem_##NAME##_test_all_vector(v, n, st, cmp, xs);                                     \
  }                                                                                               \
  inline size_t shmem_test_any_vector(T* v, size_t n, const int* st, int cmp, T* xs) {            \
    return shmem_##NAME##_test_any_vector(v, n, st, cmp, xs);                                     \
  }                                                                                               \
  inline size_t shmem_test_some_vector(T* v, size_t n, size_t* idx, const int* st, int cmp,       \
                                       T* xs) {                                                   \
    return shmem_##NAME##_test_some_vector(v, n, idx, st, cmp, xs);                               \
  }                                                                                               \
  inline void shmem_wait(T* v, T x) {                                                             \
    shmem_##NAME##_wait_until(v, SHMEM_CMP_NE, x);                                                \
  }
GSHMEM_COMPAT_SYNC_GENERIC(GSHMEM_COMPAT_CXX_WAIT, )

#define GSHMEM_COMPAT_CXX_COLL(NAME, T, A)                                                   \
  inline int shmem_broadcast(shmem_team_t t, T* d, const T* s, size_t n, int root) {         \
    return shmem_##NAME##_broadcast(t, d, s, n, root);                                       \
  }                                                                                          \
  inline int shmem_collect(shmem_team_t t, T* d, const T* s, size_t n) {                     \
    return shmem_##NAME##_collect(t, d, s, n);                                               \
  }                                                                                          \
  inline int shmem_fcollect(shmem_team_t t, T* d, const T* s, size_t n) {                    \
    return shmem_##NAME##_fcollect(t, d, s, n);                                              \
  }                                                                                          \
  inline int shmem_alltoall(shmem_team_t t, T* d, const T* s, size_t n) {                    \
    return shmem_##NAME##_alltoall(t, d, s, n);                                              \
  }                                                                                          \
  inline int shmem_alltoalls(shmem_team_t t, T* d, const T* s, ptrdiff_t dst, ptrdiff_t sst, \
                             size_t n) {                                                     \
    return shmem_##NAME##_alltoalls(t, d, s, dst, sst, n);                                   \
  }
GSHMEM_COMPAT_RMA_GENERIC(GSHMEM_COMPAT_CXX_COLL, )

#define GSHMEM_COMPAT_CXX_REDUCE(NAME, T, OP)                                  \
  inline int shmem_##OP##_reduce(shmem_team_t t, T* d, const T* s, size_t n) { \
    return shmem_##NAME##_##OP##_reduce(t, d, s, n);                           \
  }
#define GSHMEM_COMPAT_CXX_REDUCE_BITWISE(OP, A) \
  GSHMEM_COMPAT_REDUCE_BITWISE_GENERIC(GSHMEM_COMPAT_CXX_REDUCE, OP)
#define GSHMEM_COMPAT_CXX_REDUCE_MINMAX(OP, A) \
  GSHMEM_COMPAT_REDUCE_MINMAX_GENERIC(GSHMEM_COMPAT_CXX_REDUCE, OP)
#define GSHMEM_COMPAT_CXX_REDUCE_ARITH(OP, A) \
  GSHMEM_COMPAT_REDUCE_ARITH_GENERIC(GSHMEM_COMPAT_CXX_REDUCE, OP)
GSHMEM_COMPAT_OPS_BITWISE(GSHMEM_COMPAT_CXX_REDUCE_BITWISE, )
GSHMEM_COMPAT_OPS_MINMAX(GSHMEM_COMPAT_CXX_REDUCE_MINMAX, )
GSHMEM_COMPAT_OPS_ARITH(GSHMEM_COMPAT_CXX_REDUCE_ARITH, )

#if defined(__GNUC__) || defined(__clang__)
/* The C99 complex types in C++ (the GNU extension: float _Complex, double _Complex) reach the
 * complex routines too, typed and generic, team and active-set forms: they have std::complex's
 * layout. */
#define GSHMEM_COMPAT_CXX_C99_COMPLEX(NAME, T, OP)                                               \
  inline int shmem_##NAME##_##OP##_reduce(shmem_team_t t, T _Complex* d, const T _Complex* s,    \
                                          size_t n) {                                            \
    return shmem_##NAME##_##OP##_reduce(t, reinterpret_cast<std::complex<T>*>(d),                \
                                        reinterpret_cast<const std::complex<T>*>(s), n);         \
  }                                                                                              \
  inline int shmem_##OP##_reduce(shmem_team_t t, T _Complex* d, const T _Complex* s, size_t n) { \
    return shmem_##NAME##_##OP##_reduce(t, d, s, n);                                             \
  }                                                                                              \
  inline void shmem_##NAME##_##OP##_to_all(T _Complex* d, const T _Complex* s, int n, int start, \
                                           int log_stride, int size, T _Complex* work,           \
                                           long* sync) {                                         \
    shmem_##NAME##_##OP##_to_all(                                                                \
        reinterpret_cast<std::complex<T>*>(d), reinterpret_cast<const std::complex<T>*>(s), n,   \
        start, log_stride, size, reinterpret_cast<std::complex<T>*>(work), sync);                \
  }
#define GSHMEM_COMPAT_CXX_C99_COMPLEX_OP(OP, A)      \
  GSHMEM_COMPAT_CXX_C99_COMPLEX(complexf, float, OP) \
  GSHMEM_COMPAT_CXX_C99_COMPLEX(complexd, double, OP)
GSHMEM_COMPAT_OPS_ARITH(GSHMEM_COMPAT_CXX_C99_COMPLEX_OP, )
#undef GSHMEM_COMPAT_CXX_C99_COMPLEX_OP
#undef GSHMEM_COMPAT_CXX_C99_COMPLEX
#endif

/* Deprecated generic names (1.3). */
template <class T, class V>
inline T shmem_fadd(T* d, V v, int pe) {
  return shmem_atomic_fetch_add(d, T(v), pe);
}
template <class T>
inline T shmem_finc(T* d, int pe) {
  return shmem_atomic_fetch_inc(d, pe);
}
template <class T, class V>
inline void shmem_add(T* d, V v, int pe) {
  shmem_atomic_add(d, T(v), pe);
}
template <class T>
inline void shmem_inc(T* d, int pe) {
  shmem_atomic_inc(d, pe);
}
template <class T, class C, class V>
inline T shmem_cswap(T* d, C c, V v, int pe) {
  return shmem_atomic_compare_swap(d, T(c), T(v), pe);
}
template <class T, class V>
inline T shmem_swap(T* d, V v, int pe) {
  return shmem_atomic_swap(d, T(v), pe);
}
template <class T>
inline T shmem_fetch(const T* s, int pe) {
  return shmem_atomic_fetch(s, pe);
}
template <class T, class V>
inline void shmem_set(T* d, V v, int pe) {
  shmem_atomic_set(d, T(v), pe);
}

#undef GSHMEM_COMPAT_CXX_RMA
#undef GSHMEM_COMPAT_CXX_AMO_EXT
#undef GSHMEM_COMPAT_CXX_AMO_STD
#undef GSHMEM_COMPAT_CXX_AMO_BIT_OP
#undef GSHMEM_COMPAT_CXX_AMO_BIT
#undef GSHMEM_COMPAT_CXX_BOTH
#undef GSHMEM_COMPAT_CXX_WAIT
#undef GSHMEM_COMPAT_CXX_COLL
#undef GSHMEM_COMPAT_CXX_REDUCE
#undef GSHMEM_COMPAT_CXX_REDUCE_BITWISE
#undef GSHMEM_COMPAT_CXX_REDUCE_MINMAX
#undef GSHMEM_COMPAT_CXX_REDUCE_ARITH

#endif

#endif /* GSHMEM_COMPAT_SHMEM_GENERIC_H */
