// Device C API: remote atomics, by one thread. Relaxed, as on the host: order them with
// gshmem_fence or gshmem_quiet. Fetching forms return the value before the operation.
#pragma once

#include "gshmem/device/capi_common.cuh"

#pragma nv_diagnostic push
#pragma nv_diag_suppress 20040

// Generated wrappers, laid out by hand: clang-format cannot parse the declaration/body macros.
// clang-format off

#define GSHMEMI_AMO(OP, dest, value, cond, pe, name) \
  ::gshmem::atomic<::gshmem::AmoOp::OP>(GSHMEMI_CTX, dest, value, cond, pe, {name})

#define GSHMEMI_DEF_AMO_EXTENDED(NAME, T)                                                       \
  GSHMEMI_SHARED(T) gshmem_##NAME##_atomic_fetch(const T* source, int pe)                      \
  GSHMEMI_BODY(return GSHMEMI_AMO(Fetch, const_cast<T*>(source), GSHMEMI_ZERO(T), GSHMEMI_ZERO(T), pe,                 \
                                  "gshmem_" #NAME "_atomic_fetch");)                           \
  GSHMEMI_SHARED(void) gshmem_##NAME##_atomic_set(T* dest, T value, int pe)                    \
  GSHMEMI_BODY(GSHMEMI_AMO(Set, dest, value, GSHMEMI_ZERO(T), pe, "gshmem_" #NAME "_atomic_set");)          \
  GSHMEMI_SHARED(T) gshmem_##NAME##_atomic_swap(T* dest, T value, int pe)                      \
  GSHMEMI_BODY(return GSHMEMI_AMO(Swap, dest, value, GSHMEMI_ZERO(T), pe, "gshmem_" #NAME "_atomic_swap");)

#define GSHMEMI_DEF_AMO(NAME, T)                                                                \
  GSHMEMI_DEF_AMO_EXTENDED(NAME, T)                                                            \
  GSHMEMI_SHARED(T) gshmem_##NAME##_atomic_compare_swap(T* dest, T cond, T value, int pe)      \
  GSHMEMI_BODY(return GSHMEMI_AMO(CompareSwap, dest, value, cond, pe,                          \
                                  "gshmem_" #NAME "_atomic_compare_swap");)                    \
  GSHMEMI_SHARED(T) gshmem_##NAME##_atomic_fetch_inc(T* dest, int pe)                          \
  GSHMEMI_BODY(return GSHMEMI_AMO(FetchInc, dest, GSHMEMI_ZERO(T), GSHMEMI_ZERO(T), pe,                                \
                                  "gshmem_" #NAME "_atomic_fetch_inc");)                       \
  GSHMEMI_SHARED(void) gshmem_##NAME##_atomic_inc(T* dest, int pe)                             \
  GSHMEMI_BODY(GSHMEMI_AMO(Inc, dest, GSHMEMI_ZERO(T), GSHMEMI_ZERO(T), pe, "gshmem_" #NAME "_atomic_inc");)            \
  GSHMEMI_SHARED(T) gshmem_##NAME##_atomic_fetch_add(T* dest, T value, int pe)                 \
  GSHMEMI_BODY(return GSHMEMI_AMO(FetchAdd, dest, value, GSHMEMI_ZERO(T), pe,                              \
                                  "gshmem_" #NAME "_atomic_fetch_add");)                       \
  GSHMEMI_SHARED(void) gshmem_##NAME##_atomic_add(T* dest, T value, int pe)                    \
  GSHMEMI_BODY(GSHMEMI_AMO(Add, dest, value, GSHMEMI_ZERO(T), pe, "gshmem_" #NAME "_atomic_add");)

#define GSHMEMI_DEF_AMO_BITWISE(NAME, T)                                                        \
  GSHMEMI_SHARED(T) gshmem_##NAME##_atomic_fetch_and(T* dest, T value, int pe)                 \
  GSHMEMI_BODY(return GSHMEMI_AMO(FetchAnd, dest, value, GSHMEMI_ZERO(T), pe,                              \
                                  "gshmem_" #NAME "_atomic_fetch_and");)                       \
  GSHMEMI_SHARED(void) gshmem_##NAME##_atomic_and(T* dest, T value, int pe)                    \
  GSHMEMI_BODY(GSHMEMI_AMO(And, dest, value, GSHMEMI_ZERO(T), pe, "gshmem_" #NAME "_atomic_and");)          \
  GSHMEMI_SHARED(T) gshmem_##NAME##_atomic_fetch_or(T* dest, T value, int pe)                  \
  GSHMEMI_BODY(return GSHMEMI_AMO(FetchOr, dest, value, GSHMEMI_ZERO(T), pe,                               \
                                  "gshmem_" #NAME "_atomic_fetch_or");)                        \
  GSHMEMI_SHARED(void) gshmem_##NAME##_atomic_or(T* dest, T value, int pe)                     \
  GSHMEMI_BODY(GSHMEMI_AMO(Or, dest, value, GSHMEMI_ZERO(T), pe, "gshmem_" #NAME "_atomic_or");)            \
  GSHMEMI_SHARED(T) gshmem_##NAME##_atomic_fetch_xor(T* dest, T value, int pe)                 \
  GSHMEMI_BODY(return GSHMEMI_AMO(FetchXor, dest, value, GSHMEMI_ZERO(T), pe,                              \
                                  "gshmem_" #NAME "_atomic_fetch_xor");)                       \
  GSHMEMI_SHARED(void) gshmem_##NAME##_atomic_xor(T* dest, T value, int pe)                    \
  GSHMEMI_BODY(GSHMEMI_AMO(Xor, dest, value, GSHMEMI_ZERO(T), pe, "gshmem_" #NAME "_atomic_xor");)

GSHMEM_FOR_AMO_TYPES(GSHMEMI_DEF_AMO)
GSHMEM_FOR_AMO_BITWISE_TYPES(GSHMEMI_DEF_AMO_BITWISE)
GSHMEM_FOR_AMO_EXTENDED_TYPES(GSHMEMI_DEF_AMO_EXTENDED)

#undef GSHMEMI_DEF_AMO_BITWISE
#undef GSHMEMI_DEF_AMO
#undef GSHMEMI_DEF_AMO_EXTENDED
#undef GSHMEMI_AMO

// clang-format on

#pragma nv_diagnostic pop
