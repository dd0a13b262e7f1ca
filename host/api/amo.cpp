// C API: atomics. One-line wrappers over gshmem::atomic<Op> (gshmem/device/atomic.cuh).
#include "host/api/capi.hpp"

using gshmem::AmoOp;
using gshmem::capi::ctx;
using gshmem::capi::zero;

extern "C" {

#define GSHMEM_DEF_AMO_EXTENDED(NAME, T)                                                          \
  T gshmem_##NAME##_atomic_fetch(const T* s, int pe) {                                            \
    return gshmem::capi::amo<AmoOp::Fetch>(const_cast<T*>(s), zero<T>(), zero<T>(), pe,           \
                                           {"gshmem_" #NAME "_atomic_fetch"});                    \
  }                                                                                               \
  void gshmem_##NAME##_atomic_set(T* d, T v, int pe) {                                            \
    gshmem::capi::amo<AmoOp::Set>(d, v, zero<T>(), pe, {"gshmem_" #NAME "_atomic_set"});          \
  }                                                                                               \
  T gshmem_##NAME##_atomic_swap(T* d, T v, int pe) {                                              \
    return gshmem::capi::amo<AmoOp::Swap>(d, v, zero<T>(), pe, {"gshmem_" #NAME "_atomic_swap"}); \
  }

#define GSHMEM_DEF_AMO(NAME, T)                                                                  \
  GSHMEM_DEF_AMO_EXTENDED(NAME, T)                                                               \
  T gshmem_##NAME##_atomic_compare_swap(T* d, T cond, T v, int pe) {                             \
    return gshmem::capi::amo<AmoOp::CompareSwap>(d, v, cond, pe,                                 \
                                                 {"gshmem_" #NAME "_atomic_compare_swap"});      \
  }                                                                                              \
  T gshmem_##NAME##_atomic_fetch_inc(T* d, int pe) {                                             \
    return gshmem::capi::amo<AmoOp::FetchInc>(d, zero<T>(), zero<T>(), pe,                       \
                                              {"gshmem_" #NAME "_atomic_fetch_inc"});            \
  }                                                                                              \
  void gshmem_##NAME##_atomic_inc(T* d, int pe) {                                                \
    gshmem::capi::amo<AmoOp::Inc>(d, zero<T>(), zero<T>(), pe, {"gshmem_" #NAME "_atomic_inc"}); \
  }                                                                                              \
  T gshmem_##NAME##_atomic_fetch_add(T* d, T v, int pe) {                                        \
    return gshmem::capi::amo<AmoOp::FetchAdd>(d, v, zero<T>(), pe,                               \
                                              {"gshmem_" #NAME "_atomic_fetch_add"});            \
  }                                                                                              \
  void gshmem_##NAME##_atomic_add(T* d, T v, int pe) {                                           \
    gshmem::capi::amo<AmoOp::Add>(d, v, zero<T>(), pe, {"gshmem_" #NAME "_atomic_add"});         \
  }

#define GSHMEM_DEF_AMO_BITWISE(NAME, T)                                                  \
  T gshmem_##NAME##_atomic_fetch_and(T* d, T v, int pe) {                                \
    return gshmem::capi::amo<AmoOp::FetchAnd>(d, v, zero<T>(), pe,                       \
                                              {"gshmem_" #NAME "_atomic_fetch_and"});    \
  }                                                                                      \
  void gshmem_##NAME##_atomic_and(T* d, T v, int pe) {                                   \
    gshmem::capi::amo<AmoOp::And>(d, v, zero<T>(), pe, {"gshmem_" #NAME "_atomic_and"}); \
  }                                                                                      \
  T gshmem_##NAME##_atomic_fetch_or(T* d, T v, int pe) {                                 \
    return gshmem::capi::amo<AmoOp::FetchOr>(d, v, zero<T>(), pe,                        \
                                             {"gshmem_" #NAME "_atomic_fetch_or"});      \
  }                                                                                      \
  void gshmem_##NAME##_atomic_or(T* d, T v, int pe) {                                    \
    gshmem::capi::amo<AmoOp::Or>(d, v, zero<T>(), pe, {"gshmem_" #NAME "_atomic_or"});   \
  }                                                                                      \
  T gshmem_##NAME##_atomic_fetch_xor(T* d, T v, int pe) {                                \
    return gshmem::capi::amo<AmoOp::FetchXor>(d, v, zero<T>(), pe,                       \
                                              {"gshmem_" #NAME "_atomic_fetch_xor"});    \
  }                                                                                      \
  void gshmem_##NAME##_atomic_xor(T* d, T v, int pe) {                                   \
    gshmem::capi::amo<AmoOp::Xor>(d, v, zero<T>(), pe, {"gshmem_" #NAME "_atomic_xor"}); \
  }

GSHMEM_FOR_AMO_TYPES(GSHMEM_DEF_AMO)
GSHMEM_FOR_AMO_BITWISE_TYPES(GSHMEM_DEF_AMO_BITWISE)
GSHMEM_FOR_AMO_EXTENDED_TYPES(GSHMEM_DEF_AMO_EXTENDED)

}  // extern "C"
