// OpenSHMEM ordering, completion, signals and point-to-point waits: one call each into the host
// operations (host/runtime/hostops.hpp, the path the C API takes too) with the default context.
#include "host/shmem/common.hpp"

using gshmem::compat::ctx;
namespace detail = gshmem::detail;

static_assert(SHMEM_CMP_EQ == GSHMEM_CMP_EQ && SHMEM_CMP_NE == GSHMEM_CMP_NE &&
                  SHMEM_CMP_GT == GSHMEM_CMP_GT && SHMEM_CMP_LE == GSHMEM_CMP_LE &&
                  SHMEM_CMP_LT == GSHMEM_CMP_LT && SHMEM_CMP_GE == GSHMEM_CMP_GE,
              "SHMEM_CMP_* pass through to gshmem unchanged");
static_assert(SHMEM_SIGNAL_SET == GSHMEM_SIGNAL_SET && SHMEM_SIGNAL_ADD == GSHMEM_SIGNAL_ADD,
              "SHMEM_SIGNAL_* pass through to gshmem unchanged");

extern "C" {

void shmem_fence(void) {
  gshmem::hostops::fence(ctx());
}
void shmem_quiet(void) {
  gshmem::hostops::quiet(ctx());
}
// One channel serves every context, so these complete more than the context's own operations.
void shmem_ctx_fence(shmem_ctx_t) {
  gshmem::hostops::fence(ctx());
}
void shmem_ctx_quiet(shmem_ctx_t) {
  gshmem::hostops::quiet(ctx());
}
void shmem_pe_quiet(const int* target_pes, size_t npes) {
  gshmem::hostops::pe_quiet(ctx(), target_pes, npes, {"shmem_pe_quiet"});
}
void shmem_ctx_pe_quiet(shmem_ctx_t, const int* target_pes, size_t npes) {
  gshmem::hostops::pe_quiet(ctx(), target_pes, npes, {"shmem_ctx_pe_quiet"});
}
void shmem_barrier_all(void) {
  gshmem::hostops::barrier_all(ctx(), {"shmem_barrier_all"});
}
void shmem_sync_all(void) {
  gshmem::hostops::sync_all(ctx(), {"shmem_sync_all"});
}

uint64_t shmem_signal_fetch(const uint64_t* sig_addr) {
  return gshmem::hostops::signal_fetch(ctx(), sig_addr, {"shmem_signal_fetch"});
}
uint64_t shmem_signal_wait_until(uint64_t* sig_addr, int cmp, uint64_t cmp_value) {
  return gshmem::hostops::signal_wait_until(ctx(), sig_addr, cmp, cmp_value,
                                            {"shmem_signal_wait_until"});
}

#define GSHMEM_COMPAT_DEF_WAIT(NAME, T, A)                                                         \
  void shmem_##NAME##_wait_until(T* ivar, int cmp, T v) {                                          \
    gshmem::hostops::wait_until(ctx(), ivar, cmp, v, {"shmem_" #NAME "_wait_until"});              \
  }                                                                                                \
  void shmem_##NAME##_wait_until_all(T* ivars, size_t n, const int* st, int cmp, T v) {            \
    gshmem::hostops::wait_all(ctx(), ivars, n, st, cmp, detail::Same<T>{v},                        \
                              {"shmem_" #NAME "_wait_until_all"});                                 \
  }                                                                                                \
  size_t shmem_##NAME##_wait_until_any(T* ivars, size_t n, const int* st, int cmp, T v) {          \
    return gshmem::hostops::wait_any(ctx(), ivars, n, st, cmp, detail::Same<T>{v},                 \
                                     {"shmem_" #NAME "_wait_until_any"});                          \
  }                                                                                                \
  size_t shmem_##NAME##_wait_until_some(T* ivars, size_t n, size_t* idx, const int* st, int cmp,   \
                                        T v) {                                                     \
    return gshmem::hostops::wait_some(ctx(), ivars, n, idx, st, cmp, detail::Same<T>{v},           \
                                      {"shmem_" #NAME "_wait_until_some"});                        \
  }                                                                                                \
  void shmem_##NAME##_wait_until_all_vector(T* ivars, size_t n, const int* st, int cmp, T* vs) {   \
    gshmem::hostops::wait_all(ctx(), ivars, n, st, cmp, detail::Each<T>{vs},                       \
                              {"shmem_" #NAME "_wait_until_all_vector"});                          \
  }                                                                                                \
  size_t shmem_##NAME##_wait_until_any_vector(T* ivars, size_t n, const int* st, int cmp, T* vs) { \
    return gshmem::hostops::wait_any(ctx(), ivars, n, st, cmp, detail::Each<T>{vs},                \
                                     {"shmem_" #NAME "_wait_until_any_vector"});                   \
  }                                                                                                \
  size_t shmem_##NAME##_wait_until_some_vector(T* ivars, size_t n, size_t* idx, const int* st,     \
                                               int cmp, T* vs) {                                   \
    return gshmem::hostops::wait_some(ctx(), ivars, n, idx, st, cmp, detail::Each<T>{vs},          \
                                      {"shmem_" #NAME "_wait_until_some_vector"});                 \
  }                                                                                                \
  int shmem_##NAME##_test(T* ivar, int cmp, T v) {                                                 \
    return gshmem::hostops::test(ctx(), ivar, cmp, v, {"shmem_" #NAME "_test"}) ? 1 : 0;           \
  }                                                                                                \
  int shmem_##NAME##_test_all(T* ivars, size_t n, const int* st, int cmp, T v) {                   \
    return gshmem::hostops::test_all_of(ctx(), ivars, n, st, cmp, detail::Same<T>{v},              \
                                        {"shmem_" #NAME "_test_all"});                             \
  }                                                                                                \
  size_t shmem_##NAME##_test_any(T* ivars, size_t n, const int* st, int cmp, T v) {                \
    return gshmem::hostops::test_any_of(ctx(), ivars, n, st, cmp, detail::Same<T>{v},              \
                                        {"shmem_" #NAME "_test_any"});                             \
  }                                                                                                \
  size_t shmem_##NAME##_test_some(T* ivars, size_t n, size_t* idx, const int* st, int cmp, T v) {  \
    return gshmem::hostops::test_some_of(ctx(), ivars, n, idx, st, cmp, detail::Same<T>{v},        \
                                         {"shmem_" #NAME "_test_some"});                           \
  }                                                                                                \
  int shmem_##NAME##_test_all_vector(T* ivars, size_t n, const int* st, int cmp, T* vs) {          \
    return gshmem::hostops::test_all_of(ctx(), ivars, n, st, cmp, detail::Each<T>{vs},             \
                                        {"shmem_" #NAME "_test_all_vector"});                      \
  }                                                                                                \
  size_t shmem_##NAME##_test_any_vector(T* ivars, size_t n, const int* st, int cmp, T* vs) {       \
    return gshmem::hostops::test_any_of(ctx(), ivars, n, st, cmp, detail::Each<T>{vs},             \
                                        {"shmem_" #NAME "_test_any_vector"});                      \
  }                                                                                                \
  size_t shmem_##NAME##_test_some_vector(T* ivars, size_t n, size_t* idx, const int* st, int cmp,  \
                                         T* vs) {                                                  \
    return gshmem::hostops::test_some_of(ctx(), ivars, n, idx, st, cmp, detail::Each<T>{vs},       \
                                         {"shmem_" #NAME "_test_some_vector"});                    \
  }
GSHMEM_COMPAT_SYNC_TYPES(GSHMEM_COMPAT_DEF_WAIT, )
#undef GSHMEM_COMPAT_DEF_WAIT

}  // extern "C"
