// OpenSHMEM atomics: one call each into the host operations (hostops::atomic<AmoOp>, the path
// the C API takes too) with the default context, generated from the spec's type lists. The _nbi
// fetching forms store the fetched value before they return. The ctx_ forms number PEs in the
// context's team.
#include "host/shmem/common.hpp"

using gshmem::AmoOp;
using gshmem::compat::ctx;
using gshmem::detail::capi_zero;

extern "C" {

#define GSHMEM_COMPAT_DEF_AMO_EXT(NAME, T, CTX, CTXP, PE)                                       \
  T shmem_##CTX##NAME##_atomic_fetch(CTXP() const T* s, int pe) {                               \
    constexpr const char* call = "shmem_" #CTX #NAME "_atomic_fetch";                           \
    return gshmem::hostops::atomic<AmoOp::Fetch>(ctx(), const_cast<T*>(s), capi_zero<T>(),      \
                                                 capi_zero<T>(), PE(call), {call});             \
  }                                                                                             \
  void shmem_##CTX##NAME##_atomic_fetch_nbi(CTXP() T* f, const T* s, int pe) {                  \
    constexpr const char* call = "shmem_" #CTX #NAME "_atomic_fetch_nbi";                       \
    *f = gshmem::hostops::atomic<AmoOp::Fetch>(ctx(), const_cast<T*>(s), capi_zero<T>(),        \
                                               capi_zero<T>(), PE(call), {call});               \
  }                                                                                             \
  void shmem_##CTX##NAME##_atomic_set(CTXP() T* d, T v, int pe) {                               \
    constexpr const char* call = "shmem_" #CTX #NAME "_atomic_set";                             \
    gshmem::hostops::atomic<AmoOp::Set>(ctx(), d, v, capi_zero<T>(), PE(call), {call});         \
  }                                                                                             \
  T shmem_##CTX##NAME##_atomic_swap(CTXP() T* d, T v, int pe) {                                 \
    constexpr const char* call = "shmem_" #CTX #NAME "_atomic_swap";                            \
    return gshmem::hostops::atomic<AmoOp::Swap>(ctx(), d, v, capi_zero<T>(), PE(call), {call}); \
  }                                                                                             \
  void shmem_##CTX##NAME##_atomic_swap_nbi(CTXP() T* f, T* d, T v, int pe) {                    \
    constexpr const char* call = "shmem_" #CTX #NAME "_atomic_swap_nbi";                        \
    *f = gshmem::hostops::atomic<AmoOp::Swap>(ctx(), d, v, capi_zero<T>(), PE(call), {call});   \
  }

#define GSHMEM_COMPAT_DEF_AMO_STD(NAME, T, CTX, CTXP, PE)                                         \
  T shmem_##CTX##NAME##_atomic_compare_swap(CTXP() T* d, T cond, T v, int pe) {                   \
    constexpr const char* call = "shmem_" #CTX #NAME "_atomic_compare_swap";                      \
    return gshmem::hostops::atomic<AmoOp::CompareSwap>(ctx(), d, v, cond, PE(call), {call});      \
  }                                                                                               \
  void shmem_##CTX##NAME##_atomic_compare_swap_nbi(CTXP() T* f, T* d, T cond, T v, int pe) {      \
    constexpr const char* call = "shmem_" #CTX #NAME "_atomic_compare_swap_nbi";                  \
    *f = gshmem::hostops::atomic<AmoOp::CompareSwap>(ctx(), d, v, cond, PE(call), {call});        \
  }                                                                                               \
  T shmem_##CTX##NAME##_atomic_fetch_inc(CTXP() T* d, int pe) {                                   \
    constexpr const char* call = "shmem_" #CTX #NAME "_atomic_fetch_inc";                         \
    return gshmem::hostops::atomic<AmoOp::FetchInc>(ctx(), d, capi_zero<T>(), capi_zero<T>(),     \
                                                    PE(call), {call});                            \
  }                                                                                               \
  void shmem_##CTX##NAME##_atomic_fetch_inc_nbi(CTXP() T* f, T* d, int pe) {                      \
    constexpr const char* call = "shmem_" #CTX #NAME "_atomic_fetch_inc_nbi";                     \
    *f = gshmem::hostops::atomic<AmoOp::FetchInc>(ctx(), d, capi_zero<T>(), capi_zero<T>(),       \
                                                  PE(call), {call});                              \
  }                                                                                               \
  void shmem_##CTX##NAME##_atomic_inc(CTXP() T* d, int pe) {                                      \
    constexpr const char* call = "shmem_" #CTX #NAME "_atomic_inc";                               \
    gshmem::hostops::atomic<AmoOp::Inc>(ctx(), d, capi_zero<T>(), capi_zero<T>(), PE(call),       \
                                        {call});                                                  \
  }                                                                                               \
  T shmem_##CTX##NAME##_atomic_fetch_add(CTXP() T* d, T v, int pe) {                              \
    constexpr const char* call = "shmem_" #CTX #NAME "_atomic_fetch_add";                         \
    return gshmem::hostops::atomic<AmoOp::FetchAdd>(ctx(), d, v, capi_zero<T>(), PE(call),        \
                                                    {call});                                      \
  }                                                                                               \
  void shmem_##CTX##NAME##_atomic_fetch_add_nbi(CTXP() T* f, T* d, T v, int pe) {                 \
    constexpr const char* call = "shmem_" #CTX #NAME "_atomic_fetch_add_nbi";                     \
    *f = gshmem::hostops::atomic<AmoOp::FetchAdd>(ctx(), d, v, capi_zero<T>(), PE(call), {call}); \
  }                                                                                               \
  void shmem_##CTX##NAME##_atomic_add(CTXP() T* d, T v, int pe) {                                 \
    constexpr const char* call = "shmem_" #CTX #NAME "_atomic_add";                               \
    gshmem::hostops::atomic<AmoOp::Add>(ctx(), d, v, capi_zero<T>(), PE(call), {call});           \
  }

// One bitwise operation: OP is and/or/xor, FETCH and PLAIN the AmoOp values.
#define GSHMEM_COMPAT_DEF_AMO_BIT_OP(NAME, T, CTX, CTXP, PE, OP, FETCH, PLAIN)                   \
  T shmem_##CTX##NAME##_atomic_fetch_##OP(CTXP() T* d, T v, int pe) {                            \
    constexpr const char* call = "shmem_" #CTX #NAME "_atomic_fetch_" #OP;                       \
    return gshmem::hostops::atomic<AmoOp::FETCH>(ctx(), d, v, capi_zero<T>(), PE(call), {call}); \
  }                                                                                              \
  void shmem_##CTX##NAME##_atomic_fetch_##OP##_nbi(CTXP() T* f, T* d, T v, int pe) {             \
    constexpr const char* call = "shmem_" #CTX #NAME "_atomic_fetch_" #OP "_nbi";                \
    *f = gshmem::hostops::atomic<AmoOp::FETCH>(ctx(), d, v, capi_zero<T>(), PE(call), {call});   \
  }                                                                                              \
  void shmem_##CTX##NAME##_atomic_##OP(CTXP() T* d, T v, int pe) {                               \
    constexpr const char* call = "shmem_" #CTX #NAME "_atomic_" #OP;                             \
    gshmem::hostops::atomic<AmoOp::PLAIN>(ctx(), d, v, capi_zero<T>(), PE(call), {call});        \
  }
#define GSHMEM_COMPAT_DEF_AMO_BIT(NAME, T, CTX, CTXP, PE)                  \
  GSHMEM_COMPAT_DEF_AMO_BIT_OP(NAME, T, CTX, CTXP, PE, and, FetchAnd, And) \
  GSHMEM_COMPAT_DEF_AMO_BIT_OP(NAME, T, CTX, CTXP, PE, or, FetchOr, Or)    \
  GSHMEM_COMPAT_DEF_AMO_BIT_OP(NAME, T, CTX, CTXP, PE, xor, FetchXor, Xor)

GSHMEM_COMPAT_AMO_TYPES(GSHMEM_COMPAT_DEF_BOTH, GSHMEM_COMPAT_DEF_AMO_EXT)
GSHMEM_COMPAT_AMO_EXTENDED_ONLY(GSHMEM_COMPAT_DEF_BOTH, GSHMEM_COMPAT_DEF_AMO_EXT)
GSHMEM_COMPAT_AMO_TYPES(GSHMEM_COMPAT_DEF_BOTH, GSHMEM_COMPAT_DEF_AMO_STD)
GSHMEM_COMPAT_AMO_BITWISE(GSHMEM_COMPAT_DEF_BOTH, GSHMEM_COMPAT_DEF_AMO_BIT)
#undef GSHMEM_COMPAT_DEF_AMO_BIT
#undef GSHMEM_COMPAT_DEF_AMO_BIT_OP
#undef GSHMEM_COMPAT_DEF_AMO_STD
#undef GSHMEM_COMPAT_DEF_AMO_EXT

}  // extern "C"
