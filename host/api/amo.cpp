// C API: atomics, one call each into the host operations (hostops::atomic<Op>).
#include "host/api/capi.hpp"

using gshmem::AmoOp;
using gshmem::capi::ctx;
using gshmem::detail::capi_zero;
namespace hostops = gshmem::hostops;

extern "C" {

#define GSHMEM_DEF_AMO_EXTENDED(NAME, T)                                                           \
  T gshmem_##NAME##_atomic_fetch(const T* s, int pe) {                                             \
    return hostops::atomic<AmoOp::Fetch>(ctx(), const_cast<T*>(s), capi_zero<T>(), capi_zero<T>(), \
                                         pe, {"gshmem_" #NAME "_atomic_fetch"});                   \
  }                                                                                                \
  void gshmem_##NAME##_atomic_set(T* d, T v, int pe) {                                             \
    hostops::atomic<AmoOp::Set>(ctx(), d, v, capi_zero<T>(), pe, {"gshmem_" #NAME "_atomic_set"}); \
  }                                                                                                \
  T gshmem_##NAME##_atomic_swap(T* d, T v, int pe) {                                               \
    return hostops::atomic<AmoOp::Swap>(ctx(), d, v, capi_zero<T>(), pe,                           \
                                        {"gshmem_" #NAME "_atomic_swap"});                         \
  }

#define GSHMEM_DEF_AMO(NAME, T)                                                                    \
  GSHMEM_DEF_AMO_EXTENDED(NAME, T)                                                                 \
  T gshmem_##NAME##_atomic_compare_swap(T* d, T cond, T v, int pe) {                               \
    return hostops::atomic<AmoOp::CompareSwap>(ctx(), d, v, cond, pe,                              \
                                               {"gshmem_" #NAME "_atomic_compare_swap"});          \
  }                                                                                                \
  T gshmem_##NAME##_atomic_fetch_inc(T* d, int pe) {                                               \
    return hostops::atomic<AmoOp::FetchInc>(ctx(), d, capi_zero<T>(), capi_zero<T>(), pe,          \
                                            {"gshmem_" #NAME "_atomic_fetch_inc"});                \
  }                                                                                                \
  void gshmem_##NAME##_atomic_inc(T* d, int pe) {                                                  \
    hostops::atomic<AmoOp::Inc>(ctx(), d, capi_zero<T>(), capi_zero<T>(), pe,                      \
                                {"gshmem_" #NAME "_atomic_inc"});                                  \
  }                                                                                                \
  T gshmem_##NAME##_atomic_fetch_add(T* d, T v, int pe) {                                          \
    return hostops::atomic<AmoOp::FetchAdd>(ctx(), d, v, capi_zero<T>(), pe,                       \
                                            {"gshmem_" #NAME "_atomic_fetch_add"});                \
  }                                                                                                \
  void gshmem_##NAME##_atomic_add(T* d, T v, int pe) {                                             \
    hostops::atomic<AmoOp::Add>(ctx(), d, v, capi_zero<T>(), pe, {"gshmem_" #NAME "_atomic_add"}); \
  }

#define GSHMEM_DEF_AMO_BITWISE(NAME, T)                                                            \
  T gshmem_##NAME##_atomic_fetch_and(T* d, T v, int pe) {                                          \
    return hostops::atomic<AmoOp::FetchAnd>(ctx(), d, v, capi_zero<T>(), pe,                       \
                                            {"gshmem_" #NAME "_atomic_fetch_and"});                \
  }                                                                                                \
  void gshmem_##NAME##_atomic_and(T* d, T v, int pe) {                                             \
    hostops::atomic<AmoOp::And>(ctx(), d, v, capi_zero<T>(), pe, {"gshmem_" #NAME "_atomic_and"}); \
  }                                                                                                \
  T gshmem_##NAME##_atomic_fetch_or(T* d, T v, int pe) {                                           \
    return hostops::atomic<AmoOp::FetchOr>(ctx(), d, v, capi_zero<T>(), pe,                        \
                                           {"gshmem_" #NAME "_atomic_fetch_or"});                  \
  }                                                                                                \
  void gshmem_##NAME##_atomic_or(T* d, T v, int pe) {                                              \
    hostops::atomic<AmoOp::Or>(ctx(), d, v, capi_zero<T>(), pe, {"gshmem_" #NAME "_atomic_or"});   \
  }                                                                                                \
  T gshmem_##NAME##_atomic_fetch_xor(T* d, T v, int pe) {                                          \
    return hostops::atomic<AmoOp::FetchXor>(ctx(), d, v, capi_zero<T>(), pe,                       \
                                            {"gshmem_" #NAME "_atomic_fetch_xor"});                \
  }                                                                                                \
  void gshmem_##NAME##_atomic_xor(T* d, T v, int pe) {                                             \
    hostops::atomic<AmoOp::Xor>(ctx(), d, v, capi_zero<T>(), pe, {"gshmem_" #NAME "_atomic_xor"}); \
  }

GSHMEM_FOR_AMO_TYPES(GSHMEM_DEF_AMO)
GSHMEM_FOR_AMO_BITWISE_TYPES(GSHMEM_DEF_AMO_BITWISE)
GSHMEM_FOR_AMO_EXTENDED_TYPES(GSHMEM_DEF_AMO_EXTENDED)

}  // extern "C"
