// OpenSHMEM RMA and put-with-signal: one call each into the host operations
// (host/runtime/hostops.hpp, the path the C API takes too) with the default context, generated
// from the spec's type lists. The ctx_ forms differ only in numbering PEs in the context's team.
#include "host/shmem/common.hpp"

using gshmem::compat::ctx;

extern "C" {

#define GSHMEM_COMPAT_DEF_RMA(NAME, T, CTX, CTXP, PE)                                            \
  void shmem_##CTX##NAME##_put(CTXP() T* d, const T* s, size_t n, int pe) {                      \
    constexpr const char* call = "shmem_" #CTX #NAME "_put";                                     \
    gshmem::hostops::put(ctx(), d, s, n, PE(call), {call});                                      \
  }                                                                                              \
  void shmem_##CTX##NAME##_put_nbi(CTXP() T* d, const T* s, size_t n, int pe) {                  \
    constexpr const char* call = "shmem_" #CTX #NAME "_put_nbi";                                 \
    gshmem::hostops::put_nbi(ctx(), d, s, n, PE(call), {call});                                  \
  }                                                                                              \
  void shmem_##CTX##NAME##_get(CTXP() T* d, const T* s, size_t n, int pe) {                      \
    constexpr const char* call = "shmem_" #CTX #NAME "_get";                                     \
    gshmem::hostops::get(ctx(), d, s, n, PE(call), {call});                                      \
  }                                                                                              \
  void shmem_##CTX##NAME##_get_nbi(CTXP() T* d, const T* s, size_t n, int pe) {                  \
    constexpr const char* call = "shmem_" #CTX #NAME "_get_nbi";                                 \
    gshmem::hostops::get_nbi(ctx(), d, s, n, PE(call), {call});                                  \
  }                                                                                              \
  void shmem_##CTX##NAME##_p(CTXP() T* d, T v, int pe) {                                         \
    constexpr const char* call = "shmem_" #CTX #NAME "_p";                                       \
    gshmem::hostops::p(ctx(), d, v, PE(call), {call});                                           \
  }                                                                                              \
  T shmem_##CTX##NAME##_g(CTXP() const T* s, int pe) {                                           \
    constexpr const char* call = "shmem_" #CTX #NAME "_g";                                       \
    return gshmem::hostops::g(ctx(), s, PE(call), {call});                                       \
  }                                                                                              \
  void shmem_##CTX##NAME##_iput(CTXP() T* d, const T* s, ptrdiff_t dst, ptrdiff_t sst, size_t n, \
                                int pe) {                                                        \
    constexpr const char* call = "shmem_" #CTX #NAME "_iput";                                    \
    gshmem::hostops::iput(ctx(), d, s, dst, sst, n, PE(call), {call});                           \
  }                                                                                              \
  void shmem_##CTX##NAME##_iget(CTXP() T* d, const T* s, ptrdiff_t dst, ptrdiff_t sst, size_t n, \
                                int pe) {                                                        \
    constexpr const char* call = "shmem_" #CTX #NAME "_iget";                                    \
    gshmem::hostops::iget(ctx(), d, s, dst, sst, n, PE(call), {call});                           \
  }                                                                                              \
  void shmem_##CTX##NAME##_put_signal(CTXP() T* d, const T* s, size_t n, uint64_t* sig,          \
                                      uint64_t v, int op, int pe) {                              \
    constexpr const char* call = "shmem_" #CTX #NAME "_put_signal";                              \
    gshmem::hostops::put_signal(ctx(), d, s, n, sig, v, op, PE(call), {call});                   \
  }                                                                                              \
  void shmem_##CTX##NAME##_put_signal_nbi(CTXP() T* d, const T* s, size_t n, uint64_t* sig,      \
                                          uint64_t v, int op, int pe) {                          \
    constexpr const char* call = "shmem_" #CTX #NAME "_put_signal_nbi";                          \
    gshmem::hostops::put_signal_nbi(ctx(), d, s, n, sig, v, op, PE(call), {call});               \
  }
GSHMEM_COMPAT_RMA_TYPES(GSHMEM_COMPAT_DEF_BOTH, GSHMEM_COMPAT_DEF_RMA)
#undef GSHMEM_COMPAT_DEF_RMA

// Sized forms: elements of BITS/8 bytes (gshmem::detail::SizedElem<BITS>::type).
#define GSHMEM_COMPAT_DEF_SIZED(BITS, CTX, CTXP, PE)                                               \
  void shmem_##CTX##put##BITS(CTXP() void* d, const void* s, size_t n, int pe) {                   \
    using T = gshmem::detail::SizedElem<BITS>::type;                                               \
    constexpr const char* call = "shmem_" #CTX "put" #BITS;                                        \
    gshmem::hostops::put(ctx(), static_cast<T*>(d), static_cast<const T*>(s), n, PE(call),         \
                         {call});                                                                  \
  }                                                                                                \
  void shmem_##CTX##put##BITS##_nbi(CTXP() void* d, const void* s, size_t n, int pe) {             \
    using T = gshmem::detail::SizedElem<BITS>::type;                                               \
    constexpr const char* call = "shmem_" #CTX "put" #BITS "_nbi";                                 \
    gshmem::hostops::put_nbi(ctx(), static_cast<T*>(d), static_cast<const T*>(s), n, PE(call),     \
                             {call});                                                              \
  }                                                                                                \
  void shmem_##CTX##get##BITS(CTXP() void* d, const void* s, size_t n, int pe) {                   \
    using T = gshmem::detail::SizedElem<BITS>::type;                                               \
    constexpr const char* call = "shmem_" #CTX "get" #BITS;                                        \
    gshmem::hostops::get(ctx(), static_cast<T*>(d), static_cast<const T*>(s), n, PE(call),         \
                         {call});                                                                  \
  }                                                                                                \
  void shmem_##CTX##get##BITS##_nbi(CTXP() void* d, const void* s, size_t n, int pe) {             \
    using T = gshmem::detail::SizedElem<BITS>::type;                                               \
    constexpr const char* call = "shmem_" #CTX "get" #BITS "_nbi";                                 \
    gshmem::hostops::get_nbi(ctx(), static_cast<T*>(d), static_cast<const T*>(s), n, PE(call),     \
                             {call});                                                              \
  }                                                                                                \
  void shmem_##CTX##iput##BITS(CTXP() void* d, const void* s, ptrdiff_t dst, ptrdiff_t sst,        \
                               size_t n, int pe) {                                                 \
    using T = gshmem::detail::SizedElem<BITS>::type;                                               \
    constexpr const char* call = "shmem_" #CTX "iput" #BITS;                                       \
    gshmem::hostops::iput(ctx(), static_cast<T*>(d), static_cast<const T*>(s), dst, sst, n,        \
                          PE(call), {call});                                                       \
  }                                                                                                \
  void shmem_##CTX##iget##BITS(CTXP() void* d, const void* s, ptrdiff_t dst, ptrdiff_t sst,        \
                               size_t n, int pe) {                                                 \
    using T = gshmem::detail::SizedElem<BITS>::type;                                               \
    constexpr const char* call = "shmem_" #CTX "iget" #BITS;                                       \
    gshmem::hostops::iget(ctx(), static_cast<T*>(d), static_cast<const T*>(s), dst, sst, n,        \
                          PE(call), {call});                                                       \
  }                                                                                                \
  void shmem_##CTX##put##BITS##_signal(CTXP() void* d, const void* s, size_t n, uint64_t* sig,     \
                                       uint64_t v, int op, int pe) {                               \
    using T = gshmem::detail::SizedElem<BITS>::type;                                               \
    constexpr const char* call = "shmem_" #CTX "put" #BITS "_signal";                              \
    gshmem::hostops::put_signal(ctx(), static_cast<T*>(d), static_cast<const T*>(s), n, sig, v,    \
                                op, PE(call), {call});                                             \
  }                                                                                                \
  void shmem_##CTX##put##BITS##_signal_nbi(CTXP() void* d, const void* s, size_t n, uint64_t* sig, \
                                           uint64_t v, int op, int pe) {                           \
    using T = gshmem::detail::SizedElem<BITS>::type;                                               \
    constexpr const char* call = "shmem_" #CTX "put" #BITS "_signal_nbi";                          \
    gshmem::hostops::put_signal_nbi(ctx(), static_cast<T*>(d), static_cast<const T*>(s), n, sig,   \
                                    v, op, PE(call), {call});                                      \
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
    gshmem::hostops::putmem(ctx(), d, s, n, PE(call), {call});                                \
  }                                                                                           \
  void shmem_##CTX##putmem_nbi(CTXP() void* d, const void* s, size_t n, int pe) {             \
    constexpr const char* call = "shmem_" #CTX "putmem_nbi";                                  \
    gshmem::hostops::putmem_nbi(ctx(), d, s, n, PE(call), {call});                            \
  }                                                                                           \
  void shmem_##CTX##getmem(CTXP() void* d, const void* s, size_t n, int pe) {                 \
    constexpr const char* call = "shmem_" #CTX "getmem";                                      \
    gshmem::hostops::getmem(ctx(), d, s, n, PE(call), {call});                                \
  }                                                                                           \
  void shmem_##CTX##getmem_nbi(CTXP() void* d, const void* s, size_t n, int pe) {             \
    constexpr const char* call = "shmem_" #CTX "getmem_nbi";                                  \
    gshmem::hostops::getmem_nbi(ctx(), d, s, n, PE(call), {call});                            \
  }                                                                                           \
  void shmem_##CTX##putmem_signal(CTXP() void* d, const void* s, size_t n, uint64_t* sig,     \
                                  uint64_t v, int op, int pe) {                               \
    constexpr const char* call = "shmem_" #CTX "putmem_signal";                               \
    gshmem::hostops::putmem_signal(ctx(), d, s, n, sig, v, op, PE(call), {call});             \
  }                                                                                           \
  void shmem_##CTX##putmem_signal_nbi(CTXP() void* d, const void* s, size_t n, uint64_t* sig, \
                                      uint64_t v, int op, int pe) {                           \
    constexpr const char* call = "shmem_" #CTX "putmem_signal_nbi";                           \
    gshmem::hostops::putmem_signal_nbi(ctx(), d, s, n, sig, v, op, PE(call), {call});         \
  }
GSHMEM_COMPAT_DEF_MEM(, GSHMEM_COMPAT_NO_CTX, GSHMEM_COMPAT_WORLD_PE)
GSHMEM_COMPAT_DEF_MEM(ctx_, GSHMEM_COMPAT_CTX_PARAM, GSHMEM_COMPAT_CTX_PE)
#undef GSHMEM_COMPAT_DEF_MEM

}  // extern "C"
