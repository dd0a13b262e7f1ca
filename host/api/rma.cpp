// C API: RMA and put-with-signal, one call each into the host operations.
#include "host/api/capi.hpp"

using gshmem::capi::ctx;
namespace hostops = gshmem::hostops;

extern "C" {

void gshmem_putmem(void* dest, const void* source, size_t bytes, int pe) {
  hostops::putmem(ctx(), dest, source, bytes, pe, {"gshmem_putmem"});
}
void gshmem_putmem_nbi(void* dest, const void* source, size_t bytes, int pe) {
  hostops::putmem_nbi(ctx(), dest, source, bytes, pe, {"gshmem_putmem_nbi"});
}
void gshmem_getmem(void* dest, const void* source, size_t bytes, int pe) {
  hostops::getmem(ctx(), dest, source, bytes, pe, {"gshmem_getmem"});
}
void gshmem_getmem_nbi(void* dest, const void* source, size_t bytes, int pe) {
  hostops::getmem_nbi(ctx(), dest, source, bytes, pe, {"gshmem_getmem_nbi"});
}
void gshmem_putmem_signal(void* dest, const void* source, size_t bytes, uint64_t* sig_addr,
                          uint64_t signal, int sig_op, int pe) {
  hostops::putmem_signal(ctx(), dest, source, bytes, sig_addr, signal, sig_op, pe,
                         {"gshmem_putmem_signal"});
}
void gshmem_putmem_signal_nbi(void* dest, const void* source, size_t bytes, uint64_t* sig_addr,
                              uint64_t signal, int sig_op, int pe) {
  hostops::putmem_signal_nbi(ctx(), dest, source, bytes, sig_addr, signal, sig_op, pe,
                             {"gshmem_putmem_signal_nbi"});
}

#define GSHMEM_DEF_RMA(NAME, T)                                                                   \
  void gshmem_##NAME##_put(T* d, const T* s, size_t n, int pe) {                                  \
    hostops::put(ctx(), d, s, n, pe, {"gshmem_" #NAME "_put"});                                   \
  }                                                                                               \
  void gshmem_##NAME##_put_nbi(T* d, const T* s, size_t n, int pe) {                              \
    hostops::put_nbi(ctx(), d, s, n, pe, {"gshmem_" #NAME "_put_nbi"});                           \
  }                                                                                               \
  void gshmem_##NAME##_get(T* d, const T* s, size_t n, int pe) {                                  \
    hostops::get(ctx(), d, s, n, pe, {"gshmem_" #NAME "_get"});                                   \
  }                                                                                               \
  void gshmem_##NAME##_get_nbi(T* d, const T* s, size_t n, int pe) {                              \
    hostops::get_nbi(ctx(), d, s, n, pe, {"gshmem_" #NAME "_get_nbi"});                           \
  }                                                                                               \
  void gshmem_##NAME##_p(T* d, T v, int pe) {                                                     \
    hostops::p(ctx(), d, v, pe, {"gshmem_" #NAME "_p"});                                          \
  }                                                                                               \
  T gshmem_##NAME##_g(const T* s, int pe) {                                                       \
    return hostops::g(ctx(), s, pe, {"gshmem_" #NAME "_g"});                                      \
  }                                                                                               \
  void gshmem_##NAME##_iput(T* d, const T* s, ptrdiff_t dst, ptrdiff_t sst, size_t n, int pe) {   \
    hostops::iput(ctx(), d, s, dst, sst, n, pe, {"gshmem_" #NAME "_iput"});                       \
  }                                                                                               \
  void gshmem_##NAME##_iget(T* d, const T* s, ptrdiff_t dst, ptrdiff_t sst, size_t n, int pe) {   \
    hostops::iget(ctx(), d, s, dst, sst, n, pe, {"gshmem_" #NAME "_iget"});                       \
  }                                                                                               \
  void gshmem_##NAME##_put_signal(T* d, const T* s, size_t n, uint64_t* sig, uint64_t v, int op,  \
                                  int pe) {                                                       \
    hostops::put_signal(ctx(), d, s, n, sig, v, op, pe, {"gshmem_" #NAME "_put_signal"});         \
  }                                                                                               \
  void gshmem_##NAME##_put_signal_nbi(T* d, const T* s, size_t n, uint64_t* sig, uint64_t v,      \
                                      int op, int pe) {                                           \
    hostops::put_signal_nbi(ctx(), d, s, n, sig, v, op, pe, {"gshmem_" #NAME "_put_signal_nbi"}); \
  }
GSHMEM_FOR_RMA_TYPES(GSHMEM_DEF_RMA)
#undef GSHMEM_DEF_RMA

// Sized forms: elements of BITS/8 bytes.
#define GSHMEM_DEF_SIZED(BITS)                                                                     \
  void gshmem_put##BITS(void* d, const void* s, size_t n, int pe) {                                \
    using T = gshmem::detail::SizedElem<BITS>::type;                                               \
    hostops::put(ctx(), static_cast<T*>(d), static_cast<const T*>(s), n, pe,                       \
                 {"gshmem_put" #BITS});                                                            \
  }                                                                                                \
  void gshmem_put##BITS##_nbi(void* d, const void* s, size_t n, int pe) {                          \
    using T = gshmem::detail::SizedElem<BITS>::type;                                               \
    hostops::put_nbi(ctx(), static_cast<T*>(d), static_cast<const T*>(s), n, pe,                   \
                     {"gshmem_put" #BITS "_nbi"});                                                 \
  }                                                                                                \
  void gshmem_get##BITS(void* d, const void* s, size_t n, int pe) {                                \
    using T = gshmem::detail::SizedElem<BITS>::type;                                               \
    hostops::get(ctx(), static_cast<T*>(d), static_cast<const T*>(s), n, pe,                       \
                 {"gshmem_get" #BITS});                                                            \
  }                                                                                                \
  void gshmem_get##BITS##_nbi(void* d, const void* s, size_t n, int pe) {                          \
    using T = gshmem::detail::SizedElem<BITS>::type;                                               \
    hostops::get_nbi(ctx(), static_cast<T*>(d), static_cast<const T*>(s), n, pe,                   \
                     {"gshmem_get" #BITS "_nbi"});                                                 \
  }                                                                                                \
  void gshmem_iput##BITS(void* d, const void* s, ptrdiff_t dst, ptrdiff_t sst, size_t n, int pe) { \
    using T = gshmem::detail::SizedElem<BITS>::type;                                               \
    hostops::iput(ctx(), static_cast<T*>(d), static_cast<const T*>(s), dst, sst, n, pe,            \
                  {"gshmem_iput" #BITS});                                                          \
  }                                                                                                \
  void gshmem_iget##BITS(void* d, const void* s, ptrdiff_t dst, ptrdiff_t sst, size_t n, int pe) { \
    using T = gshmem::detail::SizedElem<BITS>::type;                                               \
    hostops::iget(ctx(), static_cast<T*>(d), static_cast<const T*>(s), dst, sst, n, pe,            \
                  {"gshmem_iget" #BITS});                                                          \
  }
GSHMEM_FOR_SIZES(GSHMEM_DEF_SIZED)
#undef GSHMEM_DEF_SIZED

}  // extern "C"
