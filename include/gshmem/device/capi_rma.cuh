// Device C API: RMA and put-with-signal, NVSHMEM names under the gshmem_ prefix.
//
// Who calls: the plain names by one thread; NAME_warp by all 32 threads of a converged warp and
// NAME_block by every thread of the block, each with the same arguments. Completion and ordering
// as in gshmem/device/rma.cuh and signal.cuh: put returns once the source may be reused, _nbi
// forms once quiet completes them, get returns with the data in place, put_signal updates the
// signal only after the data is visible. Strided iput/iget: one thread.
#pragma once

#include "gshmem/device/capi_common.cuh"

#pragma nv_diagnostic push
#pragma nv_diag_suppress 20040

// Generated wrappers, laid out by hand: clang-format cannot parse the declaration/body macros.
// clang-format off

// ---- Bytes ----------------------------------------------------------------------------------

GSHMEMI_SHARED(void) gshmem_putmem(void* dest, const void* source, size_t bytes, int pe)
GSHMEMI_BODY(::gshmem::putmem(GSHMEMI_CTX, dest, source, bytes, pe, {"gshmem_putmem"});)
GSHMEMI_SHARED(void) gshmem_putmem_nbi(void* dest, const void* source, size_t bytes, int pe)
GSHMEMI_BODY(::gshmem::putmem_nbi(GSHMEMI_CTX, dest, source, bytes, pe, {"gshmem_putmem_nbi"});)
GSHMEMI_SHARED(void) gshmem_getmem(void* dest, const void* source, size_t bytes, int pe)
GSHMEMI_BODY(::gshmem::getmem(GSHMEMI_CTX, dest, source, bytes, pe, {"gshmem_getmem"});)
GSHMEMI_SHARED(void) gshmem_getmem_nbi(void* dest, const void* source, size_t bytes, int pe)
GSHMEMI_BODY(::gshmem::getmem_nbi(GSHMEMI_CTX, dest, source, bytes, pe, {"gshmem_getmem_nbi"});)

GSHMEMI_SHARED(void)
gshmem_putmem_signal(void* dest, const void* source, size_t bytes, uint64_t* sig_addr,
                     uint64_t signal, int sig_op, int pe)
GSHMEMI_BODY(::gshmem::putmem_signal(GSHMEMI_CTX, dest, source, bytes, sig_addr, signal, sig_op,
                                     pe, {"gshmem_putmem_signal"});)
GSHMEMI_SHARED(void)
gshmem_putmem_signal_nbi(void* dest, const void* source, size_t bytes, uint64_t* sig_addr,
                         uint64_t signal, int sig_op, int pe)
GSHMEMI_BODY(::gshmem::putmem_signal_nbi(GSHMEMI_CTX, dest, source, bytes, sig_addr, signal,
                                         sig_op, pe, {"gshmem_putmem_signal_nbi"});)

#define GSHMEMI_DEF_MEM_GROUP(SUFFIX, G)                                                        \
  GSHMEMI_DEVICE(void)                                                                         \
  gshmem_putmem_##SUFFIX(void* dest, const void* source, size_t bytes, int pe) {               \
    ::gshmem::putmem<G>(GSHMEMI_CTX, dest, source, bytes, pe, {"gshmem_putmem_" #SUFFIX});     \
  }                                                                                            \
  GSHMEMI_DEVICE(void)                                                                         \
  gshmem_putmem_nbi_##SUFFIX(void* dest, const void* source, size_t bytes, int pe) {           \
    ::gshmem::putmem_nbi<G>(GSHMEMI_CTX, dest, source, bytes, pe,                              \
                            {"gshmem_putmem_nbi_" #SUFFIX});                                   \
  }                                                                                            \
  GSHMEMI_DEVICE(void)                                                                         \
  gshmem_getmem_##SUFFIX(void* dest, const void* source, size_t bytes, int pe) {               \
    ::gshmem::getmem<G>(GSHMEMI_CTX, dest, source, bytes, pe, {"gshmem_getmem_" #SUFFIX});     \
  }                                                                                            \
  GSHMEMI_DEVICE(void)                                                                         \
  gshmem_getmem_nbi_##SUFFIX(void* dest, const void* source, size_t bytes, int pe) {           \
    ::gshmem::getmem_nbi<G>(GSHMEMI_CTX, dest, source, bytes, pe,                              \
                            {"gshmem_getmem_nbi_" #SUFFIX});                                   \
  }                                                                                            \
  GSHMEMI_DEVICE(void)                                                                         \
  gshmem_putmem_signal_##SUFFIX(void* dest, const void* source, size_t bytes,                  \
                                uint64_t* sig_addr, uint64_t signal, int sig_op, int pe) {     \
    ::gshmem::putmem_signal<G>(GSHMEMI_CTX, dest, source, bytes, sig_addr, signal, sig_op, pe, \
                               {"gshmem_putmem_signal_" #SUFFIX});                             \
  }                                                                                            \
  GSHMEMI_DEVICE(void)                                                                         \
  gshmem_putmem_signal_nbi_##SUFFIX(void* dest, const void* source, size_t bytes,              \
                                    uint64_t* sig_addr, uint64_t signal, int sig_op, int pe) { \
    ::gshmem::putmem_signal_nbi<G>(GSHMEMI_CTX, dest, source, bytes, sig_addr, signal, sig_op, \
                                   pe, {"gshmem_putmem_signal_nbi_" #SUFFIX});                 \
  }
GSHMEMI_FOR_GROUPS(GSHMEMI_DEF_MEM_GROUP)
#undef GSHMEMI_DEF_MEM_GROUP

// ---- Typed ----------------------------------------------------------------------------------

#define GSHMEMI_DEF_RMA(NAME, T)                                                                \
  GSHMEMI_SHARED(void) gshmem_##NAME##_put(T* dest, const T* source, size_t nelems, int pe)    \
  GSHMEMI_BODY(::gshmem::put(GSHMEMI_CTX, dest, source, nelems, pe, {"gshmem_" #NAME "_put"});) \
  GSHMEMI_SHARED(void) gshmem_##NAME##_put_nbi(T* dest, const T* source, size_t nelems, int pe) \
  GSHMEMI_BODY(::gshmem::put_nbi(GSHMEMI_CTX, dest, source, nelems, pe,                        \
                                 {"gshmem_" #NAME "_put_nbi"});)                               \
  GSHMEMI_SHARED(void) gshmem_##NAME##_get(T* dest, const T* source, size_t nelems, int pe)    \
  GSHMEMI_BODY(::gshmem::get(GSHMEMI_CTX, dest, source, nelems, pe, {"gshmem_" #NAME "_get"});) \
  GSHMEMI_SHARED(void) gshmem_##NAME##_get_nbi(T* dest, const T* source, size_t nelems, int pe) \
  GSHMEMI_BODY(::gshmem::get_nbi(GSHMEMI_CTX, dest, source, nelems, pe,                        \
                                 {"gshmem_" #NAME "_get_nbi"});)                               \
  GSHMEMI_SHARED(void) gshmem_##NAME##_p(T* dest, T value, int pe)                             \
  GSHMEMI_BODY(::gshmem::p(GSHMEMI_CTX, dest, value, pe, {"gshmem_" #NAME "_p"});)              \
  GSHMEMI_SHARED(T) gshmem_##NAME##_g(const T* source, int pe)                                 \
  GSHMEMI_BODY(return ::gshmem::g(GSHMEMI_CTX, source, pe, {"gshmem_" #NAME "_g"});)            \
  GSHMEMI_SHARED(void)                                                                         \
  gshmem_##NAME##_iput(T* dest, const T* source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems,  \
                       int pe)                                                                 \
  GSHMEMI_BODY(::gshmem::iput(GSHMEMI_CTX, dest, source, dst, sst, nelems, pe,                 \
                              {"gshmem_" #NAME "_iput"});)                                     \
  GSHMEMI_SHARED(void)                                                                         \
  gshmem_##NAME##_iget(T* dest, const T* source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems,  \
                       int pe)                                                                 \
  GSHMEMI_BODY(::gshmem::iget(GSHMEMI_CTX, dest, source, dst, sst, nelems, pe,                 \
                              {"gshmem_" #NAME "_iget"});)                                     \
  GSHMEMI_SHARED(void)                                                                         \
  gshmem_##NAME##_put_signal(T* dest, const T* source, size_t nelems, uint64_t* sig_addr,      \
                             uint64_t signal, int sig_op, int pe)                              \
  GSHMEMI_BODY(::gshmem::put_signal(GSHMEMI_CTX, dest, source, nelems, sig_addr, signal,       \
                                    sig_op, pe, {"gshmem_" #NAME "_put_signal"});)             \
  GSHMEMI_SHARED(void)                                                                         \
  gshmem_##NAME##_put_signal_nbi(T* dest, const T* source, size_t nelems, uint64_t* sig_addr,  \
                                 uint64_t signal, int sig_op, int pe)                          \
  GSHMEMI_BODY(::gshmem::put_signal_nbi(GSHMEMI_CTX, dest, source, nelems, sig_addr, signal,   \
                                        sig_op, pe, {"gshmem_" #NAME "_put_signal_nbi"});)
GSHMEM_FOR_RMA_TYPES(GSHMEMI_DEF_RMA)
#undef GSHMEMI_DEF_RMA

#define GSHMEMI_DEF_RMA_GROUP_ONE(NAME, T, SUFFIX, G)                                           \
  GSHMEMI_DEVICE(void)                                                                         \
  gshmem_##NAME##_put_##SUFFIX(T* dest, const T* source, size_t nelems, int pe) {              \
    ::gshmem::put<G>(GSHMEMI_CTX, dest, source, nelems, pe, {"gshmem_" #NAME "_put_" #SUFFIX}); \
  }                                                                                            \
  GSHMEMI_DEVICE(void)                                                                         \
  gshmem_##NAME##_put_nbi_##SUFFIX(T* dest, const T* source, size_t nelems, int pe) {          \
    ::gshmem::put_nbi<G>(GSHMEMI_CTX, dest, source, nelems, pe,                                \
                         {"gshmem_" #NAME "_put_nbi_" #SUFFIX});                               \
  }                                                                                            \
  GSHMEMI_DEVICE(void)                                                                         \
  gshmem_##NAME##_get_##SUFFIX(T* dest, const T* source, size_t nelems, int pe) {              \
    ::gshmem::get<G>(GSHMEMI_CTX, dest, source, nelems, pe, {"gshmem_" #NAME "_get_" #SUFFIX}); \
  }                                                                                            \
  GSHMEMI_DEVICE(void)                                                                         \
  gshmem_##NAME##_get_nbi_##SUFFIX(T* dest, const T* source, size_t nelems, int pe) {          \
    ::gshmem::get_nbi<G>(GSHMEMI_CTX, dest, source, nelems, pe,                                \
                         {"gshmem_" #NAME "_get_nbi_" #SUFFIX});                               \
  }                                                                                            \
  GSHMEMI_DEVICE(void)                                                                         \
  gshmem_##NAME##_put_signal_##SUFFIX(T* dest, const T* source, size_t nelems,                 \
                                      uint64_t* sig_addr, uint64_t signal, int sig_op, int pe) { \
    ::gshmem::put_signal<G>(GSHMEMI_CTX, dest, source, nelems, sig_addr, signal, sig_op, pe,   \
                            {"gshmem_" #NAME "_put_signal_" #SUFFIX});                         \
  }                                                                                            \
  GSHMEMI_DEVICE(void)                                                                         \
  gshmem_##NAME##_put_signal_nbi_##SUFFIX(T* dest, const T* source, size_t nelems,             \
                                          uint64_t* sig_addr, uint64_t signal, int sig_op,     \
                                          int pe) {                                            \
    ::gshmem::put_signal_nbi<G>(GSHMEMI_CTX, dest, source, nelems, sig_addr, signal, sig_op,   \
                                pe, {"gshmem_" #NAME "_put_signal_nbi_" #SUFFIX});             \
  }
#define GSHMEMI_DEF_RMA_GROUP(NAME, T)                     \
  GSHMEMI_DEF_RMA_GROUP_ONE(NAME, T, warp, ::gshmem::Warp) \
  GSHMEMI_DEF_RMA_GROUP_ONE(NAME, T, block, ::gshmem::Block)
GSHMEM_FOR_RMA_TYPES(GSHMEMI_DEF_RMA_GROUP)
#undef GSHMEMI_DEF_RMA_GROUP
#undef GSHMEMI_DEF_RMA_GROUP_ONE

// ---- Sized (nelems elements of BITS/8 bytes) ------------------------------------------------

#define GSHMEMI_SIZED_T(BITS) ::gshmem::detail::SizedElem<BITS>::type
#define GSHMEMI_SIZED_ARGS(BITS) \
  static_cast<GSHMEMI_SIZED_T(BITS)*>(dest), static_cast<const GSHMEMI_SIZED_T(BITS)*>(source)

#define GSHMEMI_DEF_SIZED(BITS)                                                                  \
  GSHMEMI_SHARED(void) gshmem_put##BITS(void* dest, const void* source, size_t nelems, int pe)  \
  GSHMEMI_BODY(::gshmem::put(GSHMEMI_CTX, GSHMEMI_SIZED_ARGS(BITS), nelems, pe,                 \
                             {"gshmem_put" #BITS});)                                            \
  GSHMEMI_SHARED(void)                                                                          \
  gshmem_put##BITS##_nbi(void* dest, const void* source, size_t nelems, int pe)                 \
  GSHMEMI_BODY(::gshmem::put_nbi(GSHMEMI_CTX, GSHMEMI_SIZED_ARGS(BITS), nelems, pe,             \
                                 {"gshmem_put" #BITS "_nbi"});)                                 \
  GSHMEMI_SHARED(void) gshmem_get##BITS(void* dest, const void* source, size_t nelems, int pe)  \
  GSHMEMI_BODY(::gshmem::get(GSHMEMI_CTX, GSHMEMI_SIZED_ARGS(BITS), nelems, pe,                 \
                             {"gshmem_get" #BITS});)                                            \
  GSHMEMI_SHARED(void)                                                                          \
  gshmem_get##BITS##_nbi(void* dest, const void* source, size_t nelems, int pe)                 \
  GSHMEMI_BODY(::gshmem::get_nbi(GSHMEMI_CTX, GSHMEMI_SIZED_ARGS(BITS), nelems, pe,             \
                                 {"gshmem_get" #BITS "_nbi"});)                                 \
  GSHMEMI_SHARED(void)                                                                          \
  gshmem_iput##BITS(void* dest, const void* source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems, \
                    int pe)                                                                     \
  GSHMEMI_BODY(::gshmem::iput(GSHMEMI_CTX, GSHMEMI_SIZED_ARGS(BITS), dst, sst, nelems, pe,      \
                              {"gshmem_iput" #BITS});)                                          \
  GSHMEMI_SHARED(void)                                                                          \
  gshmem_iget##BITS(void* dest, const void* source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems, \
                    int pe)                                                                     \
  GSHMEMI_BODY(::gshmem::iget(GSHMEMI_CTX, GSHMEMI_SIZED_ARGS(BITS), dst, sst, nelems, pe,      \
                              {"gshmem_iget" #BITS});)
GSHMEM_FOR_SIZES(GSHMEMI_DEF_SIZED)
#undef GSHMEMI_DEF_SIZED

#define GSHMEMI_DEF_SIZED_GROUP_ONE(BITS, SUFFIX, G)                                            \
  GSHMEMI_DEVICE(void)                                                                         \
  gshmem_put##BITS##_##SUFFIX(void* dest, const void* source, size_t nelems, int pe) {         \
    ::gshmem::put<G>(GSHMEMI_CTX, GSHMEMI_SIZED_ARGS(BITS), nelems, pe,                        \
                     {"gshmem_put" #BITS "_" #SUFFIX});                                        \
  }                                                                                            \
  GSHMEMI_DEVICE(void)                                                                         \
  gshmem_put##BITS##_nbi_##SUFFIX(void* dest, const void* source, size_t nelems, int pe) {     \
    ::gshmem::put_nbi<G>(GSHMEMI_CTX, GSHMEMI_SIZED_ARGS(BITS), nelems, pe,                    \
                         {"gshmem_put" #BITS "_nbi_" #SUFFIX});                                \
  }                                                                                            \
  GSHMEMI_DEVICE(void)                                                                         \
  gshmem_get##BITS##_##SUFFIX(void* dest, const void* source, size_t nelems, int pe) {         \
    ::gshmem::get<G>(GSHMEMI_CTX, GSHMEMI_SIZED_ARGS(BITS), nelems, pe,                        \
                     {"gshmem_get" #BITS "_" #SUFFIX});                                        \
  }                                                                                            \
  GSHMEMI_DEVICE(void)                                                                         \
  gshmem_get##BITS##_nbi_##SUFFIX(void* dest, const void* source, size_t nelems, int pe) {     \
    ::gshmem::get_nbi<G>(GSHMEMI_CTX, GSHMEMI_SIZED_ARGS(BITS), nelems, pe,                    \
                         {"gshmem_get" #BITS "_nbi_" #SUFFIX});                                \
  }
#define GSHMEMI_DEF_SIZED_GROUP(BITS)                     \
  GSHMEMI_DEF_SIZED_GROUP_ONE(BITS, warp, ::gshmem::Warp) \
  GSHMEMI_DEF_SIZED_GROUP_ONE(BITS, block, ::gshmem::Block)
GSHMEM_FOR_SIZES(GSHMEMI_DEF_SIZED_GROUP)
#undef GSHMEMI_DEF_SIZED_GROUP
#undef GSHMEMI_DEF_SIZED_GROUP_ONE
#undef GSHMEMI_SIZED_ARGS
#undef GSHMEMI_SIZED_T

// clang-format on

#pragma nv_diagnostic pop
