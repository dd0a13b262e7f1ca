// The deprecated names of OpenSHMEM 1.5 that are one-line aliases: setup and allocation, the
// 1.3 atomics, the wait family, cache management. (The active-set collectives are in
// active_set.cpp.)
#include "host/shmem/common.hpp"

using gshmem::AmoOp;
using gshmem::SymmetricHeap;
using gshmem::compat::ctx;
using gshmem::compat::heap_call;
using gshmem::detail::capi_zero;

extern "C" {

// The spec lets npes be ignored: the launcher decides how many PEs there are.
void start_pes(int) {
  shmem_init();
}
int _my_pe(void) {
  return shmem_my_pe();
}
int _num_pes(void) {
  return shmem_n_pes();
}

void* shmalloc(size_t size) {
  return heap_call(SymmetricHeap::Op::Malloc, size, 64, nullptr, "shmalloc");
}
void shfree(void* ptr) {
  if (ptr) heap_call(SymmetricHeap::Op::Free, 0, 64, ptr, "shfree");
}
void* shrealloc(void* ptr, size_t size) {
  return heap_call(SymmetricHeap::Op::Realloc, size, 64, ptr, "shrealloc");
}
void* shmemalign(size_t alignment, size_t size) {
  return heap_call(SymmetricHeap::Op::Align, size, alignment, nullptr, "shmemalign");
}

#define GSHMEM_COMPAT_DEF_LEGACY_AMO(NAME, T, A)                                                   \
  T shmem_##NAME##_fadd(T* d, T v, int pe) {                                                       \
    return gshmem::hostops::atomic<AmoOp::FetchAdd>(ctx(), d, v, capi_zero<T>(), pe,               \
                                                    {"shmem_" #NAME "_fadd"});                     \
  }                                                                                                \
  T shmem_##NAME##_finc(T* d, int pe) {                                                            \
    return gshmem::hostops::atomic<AmoOp::FetchInc>(ctx(), d, capi_zero<T>(), capi_zero<T>(), pe,  \
                                                    {"shmem_" #NAME "_finc"});                     \
  }                                                                                                \
  void shmem_##NAME##_add(T* d, T v, int pe) {                                                     \
    gshmem::hostops::atomic<AmoOp::Add>(ctx(), d, v, capi_zero<T>(), pe, {"shmem_" #NAME "_add"}); \
  }                                                                                                \
  void shmem_##NAME##_inc(T* d, int pe) {                                                          \
    gshmem::hostops::atomic<AmoOp::Inc>(ctx(), d, capi_zero<T>(), capi_zero<T>(), pe,              \
                                        {"shmem_" #NAME "_inc"});                                  \
  }                                                                                                \
  T shmem_##NAME##_cswap(T* d, T cond, T v, int pe) {                                              \
    return gshmem::hostops::atomic<AmoOp::CompareSwap>(ctx(), d, v, cond, pe,                      \
                                                       {"shmem_" #NAME "_cswap"});                 \
  }
#define GSHMEM_COMPAT_DEF_LEGACY_AMO_EXTENDED(NAME, T, A)                                          \
  T shmem_##NAME##_swap(T* d, T v, int pe) {                                                       \
    return gshmem::hostops::atomic<AmoOp::Swap>(ctx(), d, v, capi_zero<T>(), pe,                   \
                                                {"shmem_" #NAME "_swap"});                         \
  }                                                                                                \
  T shmem_##NAME##_fetch(const T* s, int pe) {                                                     \
    return gshmem::hostops::atomic<AmoOp::Fetch>(ctx(), const_cast<T*>(s), capi_zero<T>(),         \
                                                 capi_zero<T>(), pe, {"shmem_" #NAME "_fetch"});   \
  }                                                                                                \
  void shmem_##NAME##_set(T* d, T v, int pe) {                                                     \
    gshmem::hostops::atomic<AmoOp::Set>(ctx(), d, v, capi_zero<T>(), pe, {"shmem_" #NAME "_set"}); \
  }
GSHMEM_COMPAT_LEGACY_AMO(GSHMEM_COMPAT_DEF_LEGACY_AMO, )
GSHMEM_COMPAT_LEGACY_AMO_EXTENDED(GSHMEM_COMPAT_DEF_LEGACY_AMO_EXTENDED, )
#undef GSHMEM_COMPAT_DEF_LEGACY_AMO
#undef GSHMEM_COMPAT_DEF_LEGACY_AMO_EXTENDED

// shmem_TYPE_wait: wait while *ivar == value.
#define GSHMEM_COMPAT_DEF_LEGACY_WAIT(NAME, T, A)                                         \
  void shmem_##NAME##_wait(T* ivar, T v) {                                                \
    gshmem::hostops::wait_until(ctx(), ivar, GSHMEM_CMP_NE, v, {"shmem_" #NAME "_wait"}); \
  }
GSHMEM_COMPAT_LEGACY_WAIT(GSHMEM_COMPAT_DEF_LEGACY_WAIT, )
#undef GSHMEM_COMPAT_DEF_LEGACY_WAIT

void(shmem_wait)(long* ivar, long v) {
  gshmem::hostops::wait_until(ctx(), ivar, GSHMEM_CMP_NE, v, {"shmem_wait"});
}
void(shmem_wait_until)(long* ivar, int cmp, long v) {
  gshmem::hostops::wait_until(ctx(), ivar, cmp, v, {"shmem_wait_until"});
}
long(shmem_swap)(long* d, long v, int pe) {
  return gshmem::hostops::atomic<AmoOp::Swap>(ctx(), d, v, 0L, pe, {"shmem_swap"});
}

// Memory is coherent on every machine gshmem runs on: nothing to flush or invalidate.
void shmem_clear_cache_inv(void) {}
void shmem_set_cache_inv(void) {}
void shmem_clear_cache_line_inv(void*) {}
void shmem_set_cache_line_inv(void*) {}
void shmem_udcflush(void) {}
void shmem_udcflush_line(void*) {}

}  // extern "C"
