/* OpenSHMEM 1.5 remote memory access and put-with-signal, with their shmem_ctx_ forms.
 *
 * put/iput/p return once the source may be reused; the data is visible at the target after
 * shmem_quiet (or a barrier). _nbi forms may return earlier; shmem_quiet completes them. get, g
 * and iget return with the data in place. put_signal updates the signal only after the data is
 * visible at the target. On a context made from a team, pe is numbered in that team.
 */
#ifndef GSHMEM_COMPAT_SHMEM_RMA_H
#define GSHMEM_COMPAT_SHMEM_RMA_H

#include <stddef.h>
#include <stdint.h>

#include "constants.h"
#include "typelist.h"

#ifdef __cplusplus
extern "C" {
#endif

#define GSHMEM_COMPAT_DECL_RMA(NAME, T, CTX, CTXARG)                                             \
  void shmem_##CTX##NAME##_put(CTXARG() T* dest, const T* source, size_t nelems, int pe);        \
  void shmem_##CTX##NAME##_put_nbi(CTXARG() T* dest, const T* source, size_t nelems, int pe);    \
  void shmem_##CTX##NAME##_get(CTXARG() T* dest, const T* source, size_t nelems, int pe);        \
  void shmem_##CTX##NAME##_get_nbi(CTXARG() T* dest, const T* source, size_t nelems, int pe);    \
  void shmem_##CTX##NAME##_p(CTXARG() T* dest, T value, int pe);                                 \
  T shmem_##CTX##NAME##_g(CTXARG() const T* source, int pe);                                     \
  void shmem_##CTX##NAME##_iput(CTXARG() T* dest, const T* source, ptrdiff_t dst, ptrdiff_t sst, \
                                size_t nelems, int pe);                                          \
  void shmem_##CTX##NAME##_iget(CTXARG() T* dest, const T* source, ptrdiff_t dst, ptrdiff_t sst, \
                                size_t nelems, int pe);                                          \
  void shmem_##CTX##NAME##_put_signal(CTXARG() T* dest, const T* source, size_t nelems,          \
                                      uint64_t* sig_addr, uint64_t signal, int sig_op, int pe);  \
  void shmem_##CTX##NAME##_put_signal_nbi(CTXARG() T* dest, const T* source, size_t nelems,      \
                                          uint64_t* sig_addr, uint64_t signal, int sig_op,       \
                                          int pe);
#define GSHMEM_COMPAT_DECL_RMA_BOTH(NAME, T, A)           \
  GSHMEM_COMPAT_DECL_RMA(NAME, T, , GSHMEM_COMPAT_NO_CTX) \
  GSHMEM_COMPAT_DECL_RMA(NAME, T, ctx_, GSHMEM_COMPAT_CTX_ARG)
GSHMEM_COMPAT_RMA_TYPES(GSHMEM_COMPAT_DECL_RMA_BOTH, )
#undef GSHMEM_COMPAT_DECL_RMA_BOTH
#undef GSHMEM_COMPAT_DECL_RMA

/* Sized forms (nelems elements of BITS/8 bytes) and the byte forms. */
#define GSHMEM_COMPAT_DECL_SIZED(BITS, CTX, CTXARG)                                                \
  void shmem_##CTX##put##BITS(CTXARG() void* dest, const void* source, size_t nelems, int pe);     \
  void shmem_##CTX##put##BITS##_nbi(CTXARG() void* dest, const void* source, size_t nelems,        \
                                    int pe);                                                       \
  void shmem_##CTX##get##BITS(CTXARG() void* dest, const void* source, size_t nelems, int pe);     \
  void shmem_##CTX##get##BITS##_nbi(CTXARG() void* dest, const void* source, size_t nelems,        \
                                    int pe);                                                       \
  void shmem_##CTX##iput##BITS(CTXARG() void* dest, const void* source, ptrdiff_t dst,             \
                               ptrdiff_t sst, size_t nelems, int pe);                              \
  void shmem_##CTX##iget##BITS(CTXARG() void* dest, const void* source, ptrdiff_t dst,             \
                               ptrdiff_t sst, size_t nelems, int pe);                              \
  void shmem_##CTX##put##BITS##_signal(CTXARG() void* dest, const void* source, size_t nelems,     \
                                       uint64_t* sig_addr, uint64_t signal, int sig_op, int pe);   \
  void shmem_##CTX##put##BITS##_signal_nbi(CTXARG() void* dest, const void* source, size_t nelems, \
                                           uint64_t* sig_addr, uint64_t signal, int sig_op,        \
                                           int pe);
#define GSHMEM_COMPAT_DECL_SIZED_BOTH(BITS, A)           \
  GSHMEM_COMPAT_DECL_SIZED(BITS, , GSHMEM_COMPAT_NO_CTX) \
  GSHMEM_COMPAT_DECL_SIZED(BITS, ctx_, GSHMEM_COMPAT_CTX_ARG)
GSHMEM_COMPAT_SIZES(GSHMEM_COMPAT_DECL_SIZED_BOTH, )
#undef GSHMEM_COMPAT_DECL_SIZED_BOTH
#undef GSHMEM_COMPAT_DECL_SIZED

void shmem_putmem(void* dest, const void* source, size_t nelems, int pe);
void shmem_putmem_nbi(void* dest, const void* source, size_t nelems, int pe);
void shmem_getmem(void* dest, const void* source, size_t nelems, int pe);
void shmem_getmem_nbi(void* dest, const void* source, size_t nelems, int pe);
void shmem_putmem_signal(void* dest, const void* source, size_t nelems, uint64_t* sig_addr,
                         uint64_t signal, int sig_op, int pe);
void shmem_putmem_signal_nbi(void* dest, const void* source, size_t nelems, uint64_t* sig_addr,
                             uint64_t signal, int sig_op, int pe);
void shmem_ctx_putmem(shmem_ctx_t ctx, void* dest, const void* source, size_t nelems, int pe);
void shmem_ctx_putmem_nbi(shmem_ctx_t ctx, void* dest, const void* source, size_t nelems, int pe);
void shmem_ctx_getmem(shmem_ctx_t ctx, void* dest, const void* source, size_t nelems, int pe);
void shmem_ctx_getmem_nbi(shmem_ctx_t ctx, void* dest, const void* source, size_t nelems, int pe);
void shmem_ctx_putmem_signal(shmem_ctx_t ctx, void* dest, const void* source, size_t nelems,
                             uint64_t* sig_addr, uint64_t signal, int sig_op, int pe);
void shmem_ctx_putmem_signal_nbi(shmem_ctx_t ctx, void* dest, const void* source, size_t nelems,
                                 uint64_t* sig_addr, uint64_t signal, int sig_op, int pe);

#ifdef __cplusplus
}
#endif

#endif /* GSHMEM_COMPAT_SHMEM_RMA_H */
