// OpenSHMEM RMA and put-with-signal: one-line wrappers over the inline templates of
// gshmem/device/rma.cuh and signal.cuh with the default context, generated from the spec's type
// lists. The ctx_ forms differ only in numbering PEs in the context's team.
#include "host/shmem/common.hpp"

using gshmem::capi::Sized;
using gshmem::compat::ctx;

extern "C" {

#define GSHMEM_COMPAT_DEF_RMA(NAME, T, CTX, CTXP, PE)                                            \
  void shmem_##CTX##NAME##_put(CTXP() T* d, const T* s, size_t n, int pe) {                      \
    constexpr const char* call = "shmem_" #CTX #NAME "_put";                                     \
    gshmem::put(ctx(), d, s, n, PE(call), {call});                                               \
  }                                                                                              \
  void shmem_##CTX##NAME##_put_nbi(CTXP() T* d, const T* s, size_t n, int pe) {                  \
    constexpr const char* call = "shmem_" #CTX #NAME "_put_nbi";                                 \
    gshmem::put_nbi(ctx(), d, s, n, PE(call), {call});                                           \
  }                                                                                              \
  void shmem_##CTX##NAME##_get(CTXP() T* d, const T* s, size_t n, int pe) {                      \
    constexpr const char* call = "shmem_" #CTX #NAME "_get";                                     \
    gshmem::get(ctx(), d, s, n, PE(call), {call});                                               \
  }                                                                                              \
  void shmem_##CTX##NAME##_get_nbi(CTXP() T* d, const T* s, size_t n, int pe) {                  \
    constexpr const char* call = "shmem_" #CTX #NAME "_get_nbi";                                 \
    gshmem::get_nbi(ctx(), d, s, n, PE(call), {call});                                           \
  }                                                                                              \
  void shmem_##CTX##NAME##_p(CTXP() T* d, T v, int pe) {                                         \
    constexpr const char* call = "shmem_" #CTX #NAME "_p";                                       \
    gshmem::p(ctx(), d, v, PE(call), {call});                                                    \
  }                                                                                              \
  T shmem_##CTX##NAME##_g(CTXP() const T* s, int pe) {                                           \
    constexpr const char* call = "shmem_" #CTX #NAME "_g";                                       \
    return gshmem::g(ctx(), s, PE(call), {call});                                                \
  }                                                                                              \
  void shmem_##CTX##NAME##_iput(CTXP() T* d, const T* s, ptrdiff_t dst, ptrdiff_t sst, size_t n, \
                                int pe) {                                                        \
    constexpr const char* call = "shmem_" #CTX #NAME "_iput";                                    \
    gshmem::iput(ctx(), d, s, dst, sst, n, PE(call), {call});                                    \
  }                                                                                              \
  void shmem_##CTX##NAME##_iget(CTXP() T* d, const T* s, ptrdiff_t dst, ptrdiff_t sst, size_t n, \
                                int pe) {                                                        \
    constexpr const char* call = "shmem_" #CTX #NAME "_iget";                                    \
    gshmem::iget(ctx(), d, s, dst, sst, n, PE(call), {call});                                    \
  }                                                                                              \
  void shmem_##CTX##NAME##_put_signal(CTXP() T* d, const T* s, size_t n, uint64_t* sig,          \
                                      uint64_t v, int op, int pe) {                              \
    constexpr const char* call = "shmem_" #CTX #NAME "_put_signal";                              \
    gshmem::put_signal(ctx(), d, s, n, sig, v, op, PE(call), {call});                            \
  }                                                                                              \
  void shmem_##CTX##NAME##_put_signal_nbi(CTXP() T* d, const T* s, size_t n, uint64_t* sig,      \
                                          uint64_t v, int op, int pe) {                          \
    constexpr const char* call = "shmem_" #CTX #NAME "_put_signal_nbi";                          \
    gshmem::put_signal_nbi(ctx(), d, s, n, sig, v, op, PE(call), {call});                        \
  }
GSHMEM_COMPAT_RMA_TYPES(GSHMEM_COMPAT_DEF_BOTH, GSHMEM_COMPAT_DEF_RMA)
#undef GSHMEM_COMPAT_DEF_RMA

// Sized forms: elements of BITS/8 bytes (Sized<BITS>::type).
#define GSHMEM_COMPAT_DEF_SIZED(BITS, CTX, CTXP, PE)                                               \
  void shmem_##CTX##put##BITS(CTXP() void* d, const void* s, size_t n, int pe) {                   \
    using T = Sized<BITS>::type;                                                                   \
    constexpr const char* call = "shmem_" #CTX "put" #BITS;                                        \
    gshmem::put(ctx(), static_cast<T*>(d), static_cast<const T*>(s), n, PE(call), {call});         \
  }                                                                                                \
  void shmem_##CTX##put##BITS##_nbi(CTXP() void* d, const void* s, size_t n, int pe) {             \
    using T = Sized<BITS>::type;                                                                   \
    constexpr const char* call = "shmem_" #CTX "put" #BITS "_nbi";                                 \
    gshmem::put_nbi(ctx(), static_cast<T*>(d), static_cast<const T*>(s), n, PE(call), {call});     \
  }                                                                                                \
  void shmem_##CTX##get##BITS(CTXP() void* d, const void* s, size_t n, int pe) {                   \
    using T = Sized<BITS>::type;                                                                   \
    constexpr const char* call = "shmem_" #CTX "get" #BITS;                                        \
    gshmem::get(ctx(), static_cast<T*>(d), static_cast<const T*>(s), n, PE(call), {call});         \
  }                                                                                                \
  void shmem_##CTX##get##BITS##_nbi(CTXP() void* d, const void* s, size_t n, int pe) {             \
    using T = Sized<BITS>::type;                                                                   \
    constexpr const char* call = "shmem_" #CTX "get" #BITS "_nbi";                                 \
    gshmem::get_nbi(ctx(), static_cast<T*>(d), static_cast<const T*>(s), n, PE(call), {call});     \
  }                                                                                                \
  void shmem_##CTX##iput##BITS(CTXP() void* d, const void* s, ptrdiff_t dst, ptrdiff_t sst,        \
                               size_t n, int pe) {                                                 \
    using T = Sized<BITS>::type;                                                                   \
    constexpr const char* call = "shmem_" #CTX "iput" #BITS;                                       \
    gshmem::iput(ctx(), static_cast<T*>(d), static_cast<const T*>(s), dst, sst, n, PE(call),       \
                 {call});                                                                          \
  }                                                                                                \
  void shmem_##CTX##iget##BITS(CTXP() void* d, const void* s, ptrdiff_t dst, ptrdiff_t sst,        \
                               size_t n, int pe) {                                                 \
    using T = Sized<BITS>::type;                                                                   \
    constexpr const char* call = "shmem_" #CTX "iget" #BITS;                                       \
    gshmem::iget(ctx(), static_cast<T*>(d), static_cast<const T*>(s), dst, sst, n, PE(call),       \
                 {call});                                                                          \
  }                                                                                                \
  void shmem_##CTX##put##BITS##_signal(CTXP() void* d, const void* s, size_t n, uint64_t* sig,     \
                                       uint64_t v, int op, int pe) {                               \
    using T = Sized<BITS>::type;                                                                   \
    constexpr const char* call = "shmem_" #CTX "put" #BITS "_signal";                              \
    gshmem::put_signal(ctx(), static_cast<T*>(d), static_cast<const T*>(s), n, sig, v, op,         \
                       PE(call), {call});                                                          \
  }                                                                                                \
  void shmem_##CTX##put##BITS##_signal_nbi(CTXP() void* d, const void* s, size_t n, uint64_t* sig, \
                                           uint64_t v, int op, int pe) {                           \
    using T = Sized<BITS>::type;                                                                   \
    constexpr const char* call = "shmem_" #CTX "put" #BITS "_signal_nbi";                          \
    gshmem::put_signal_nbi(ctx(), static_cast<T*>(d), static_cast<const T*>(s), n, sig, v, op,     \
                           PE(call), {call});                                                      \
  }
#define GSHMEM_COMPAT_DEF_SIZED_BOTH(BITS, A)                                   \
  GSHMEM_COMPAT_DEF_SIZED(BITS, , GSHMEM_COMPAT_NO_CTX, GSHMEM_COMPAT_WORLD_PE) \
  GSHMEM_COMPAT_DEF_SIZED(BITS, ctx_, GSHMEM_COMPAT_CTX_PARAM, GSHMEM_COMPAT_CTX_PE)
GSHMEM_COMPAT_SIZES(GSHMEM_COMPAT_DEF_SIZED_BOTH, )
#undef GSHMEM_COMPAT_DEF_SIZED_BOTH
#undef GSHMEM_COMPAT_DEF_SIZED

// Byte forms.
#define GSHMEM_COMPAT_DEF_MEM(CTX, CTXP, PE)                                                  \
  void shmem_##CTX##putmem(CTXP() void* d, const void* s, size_t n, int pe) {                 \
    constexpr const char* call = "shmem_" #CTX "putmem";                                      \
    gshmem::putmem(ctx(), d, s, n, PE(call), {call});                                         \
  }                                                                                           \
  void shmem_##CTX##putmem_nbi(CTXP() void* d, const void* s, size_t n, int pe) {             \
    constexpr const char* call = "shmem_" #CTX "putmem_nbi";                                  \
    gshmem::putmem_nbi(ctx(), d, s, n, PE(call), {call});                                     \
  }                                                                                           \
  void shmem_##CTX##getmem(CTXP() void* d, const void* s, size_t n, int pe) {                 \
    constexpr const char* call = "shmem_" #CTX "getmem";                                      \
    gshmem::getmem(ctx(), d, s, n, PE(call), {call});                                         \
  }                                                                                           \
  void shmem_##CTX##getmem_nbi(CTXP() void* d, const void* s, size_t n, int pe) {             \
    constexpr const char* call = "shmem_" #CTX "getmem_nbi";                                  \
    gshmem::getmem_nbi(ctx(), d, s, n, PE(call), {call});                                     \
  }                                                                                           \
  void shmem_##CTX##putmem_signal(CTXP() void* d, const void* s, size_t n, uint64_t* sig,     \
                                  uint64_t v, int op, int pe) {                               \
    constexpr const char* call = "shmem_" #CTX "putmem_signal";                               \
    gshmem::putmem_signal(ctx(), d, s, n, sig, v, op, PE(call), {call});                      \
  }                                                                                           \
  void shmem_##CTX##putmem_signal_nbi(CTXP() void* d, const void* s, size_t n, uint64_t* sig, \
                                      uint64_t v, int op, int pe) {                           \
    constexpr const char* call = "shmem_" #CTX "putmem_signal_nbi";                           \
    gshmem::putmem_signal_nbi(ctx(), d, s, n, sig, v, op, PE(call), {call});                  \
  }
GSHMEM_COMPAT_DEF_MEM(, GSHMEM_COMPAT_NO_CTX, GSHMEM_COMPAT_WORLD_PE)
GSHMEM_COMPAT_DEF_MEM(ctx_, GSHMEM_COMPAT_CTX_PARAM, GSHMEM_COMPAT_CTX_PE)
#undef GSHMEM_COMPAT_DEF_MEM

}  // extern "C"
