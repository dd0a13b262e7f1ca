// C API: signals, point-to-point waits, ordering and synchronisation.
#include "host/api/capi.hpp"
#include "host/base/log.hpp"
#include "host/runtime/runtime.hpp"

using gshmem::capi::ctx;
namespace hostops = gshmem::hostops;
namespace detail = gshmem::detail;
using gshmem::capi::member_of;

namespace gshmem::capi {

bool member_of(gshmem_team_t team) {
  const DeviceContext& c = ctx();
  if (!c.teams || uint32_t(team) >= GSHMEM_MAX_TEAMS) return false;
  const TeamInfo& t = c.teams[team];
  return t.size > 0 && t.my_index >= 0;
}

}  // namespace gshmem::capi

extern "C" {

void gshmem_signal_op(uint64_t* sig_addr, uint64_t signal, int sig_op, int pe) {
  hostops::signal_op(ctx(), sig_addr, signal, sig_op, pe, {"gshmem_signal_op"});
}
uint64_t gshmem_signal_fetch(const uint64_t* sig_addr) {
  return hostops::signal_fetch(ctx(), sig_addr, {"gshmem_signal_fetch"});
}
uint64_t gshmem_signal_wait_until(uint64_t* sig_addr, int cmp, uint64_t cmp_value) {
  return hostops::signal_wait_until(ctx(), sig_addr, cmp, cmp_value, {"gshmem_signal_wait_until"});
}

#define GSHMEM_DEF_WAIT(NAME, T)                                                                   \
  void gshmem_##NAME##_wait_until(T* ivar, int cmp, T v) {                                         \
    hostops::wait_until(ctx(), ivar, cmp, v, {"gshmem_" #NAME "_wait_until"});                     \
  }                                                                                                \
  void gshmem_##NAME##_wait_until_all(T* ivars, size_t n, const int* st, int cmp, T v) {           \
    hostops::wait_all(ctx(), ivars, n, st, cmp, detail::Same<T>{v},                                \
                      {"gshmem_" #NAME "_wait_until_all"});                                        \
  }                                                                                                \
  size_t gshmem_##NAME##_wait_until_any(T* ivars, size_t n, const int* st, int cmp, T v) {         \
    return hostops::wait_any(ctx(), ivars, n, st, cmp, detail::Same<T>{v},                         \
                             {"gshmem_" #NAME "_wait_until_any"});                                 \
  }                                                                                                \
  size_t gshmem_##NAME##_wait_until_some(T* ivars, size_t n, size_t* idx, const int* st, int cmp,  \
                                         T v) {                                                    \
    return hostops::wait_some(ctx(), ivars, n, idx, st, cmp, detail::Same<T>{v},                   \
                              {"gshmem_" #NAME "_wait_until_some"});                               \
  }                                                                                                \
  void gshmem_##NAME##_wait_until_all_vector(T* ivars, size_t n, const int* st, int cmp, T* vs) {  \
    hostops::wait_all(ctx(), ivars, n, st, cmp, detail::Each<T>{vs},                               \
                      {"gshmem_" #NAME "_wait_until_all_vector"});                                 \
  }                                                                                                \
  size_t gshmem_##NAME##_wait_until_any_vector(T* ivars, size_t n, const int* st, int cmp,         \
                                               T* vs) {                                            \
    return hostops::wait_any(ctx(), ivars, n, st, cmp, detail::Each<T>{vs},                        \
                             {"gshmem_" #NAME "_wait_until_any_vector"});                          \
  }                                                                                                \
  size_t gshmem_##NAME##_wait_until_some_vector(T* ivars, size_t n, size_t* idx, const int* st,    \
                                                int cmp, T* vs) {                                  \
    return hostops::wait_some(ctx(), ivars, n, idx, st, cmp, detail::Each<T>{vs},                  \
                              {"gshmem_" #NAME "_wait_until_some_vector"});                        \
  }                                                                                                \
  int gshmem_##NAME##_test(T* ivar, int cmp, T v) {                                                \
    return hostops::test(ctx(), ivar, cmp, v, {"gshmem_" #NAME "_test"}) ? 1 : 0;                  \
  }                                                                                                \
  int gshmem_##NAME##_test_all(T* ivars, size_t n, const int* st, int cmp, T v) {                  \
    return hostops::test_all_of(ctx(), ivars, n, st, cmp, detail::Same<T>{v},                      \
                                {"gshmem_" #NAME "_test_all"});                                    \
  }                                                                                                \
  size_t gshmem_##NAME##_test_any(T* ivars, size_t n, const int* st, int cmp, T v) {               \
    return hostops::test_any_of(ctx(), ivars, n, st, cmp, detail::Same<T>{v},                      \
                                {"gshmem_" #NAME "_test_any"});                                    \
  }                                                                                                \
  size_t gshmem_##NAME##_test_some(T* ivars, size_t n, size_t* idx, const int* st, int cmp, T v) { \
    return hostops::test_some_of(ctx(), ivars, n, idx, st, cmp, detail::Same<T>{v},                \
                                 {"gshmem_" #NAME "_test_some"});                                  \
  }                                                                                                \
  int gshmem_##NAME##_test_all_vector(T* ivars, size_t n, const int* st, int cmp, T* vs) {         \
    return hostops::test_all_of(ctx(), ivars, n, st, cmp, detail::Each<T>{vs},                     \
                                {"gshmem_" #NAME "_test_all_vector"});                             \
  }                                                                                                \
  size_t gshmem_##NAME##_test_any_vector(T* ivars, size_t n, const int* st, int cmp, T* vs) {      \
    return hostops::test_any_of(ctx(), ivars, n, st, cmp, detail::Each<T>{vs},                     \
                                {"gshmem_" #NAME "_test_any_vector"});                             \
  }                                                                                                \
  size_t gshmem_##NAME##_test_some_vector(T* ivars, size_t n, size_t* idx, const int* st, int cmp, \
                                          T* vs) {                                                 \
    return hostops::test_some_of(ctx(), ivars, n, idx, st, cmp, detail::Each<T>{vs},               \
                                 {"gshmem_" #NAME "_test_some_vector"});                           \
  }
GSHMEM_FOR_WAIT_TYPES(GSHMEM_DEF_WAIT)
#undef GSHMEM_DEF_WAIT

void gshmem_fence(void) {
  hostops::fence(ctx());
}
void gshmem_quiet(void) {
  hostops::quiet(ctx());
}
void gshmem_pe_quiet(const int* target_pes, size_t npes) {
  hostops::pe_quiet(ctx(), target_pes, npes, {"gshmem_pe_quiet"});
}
void gshmem_barrier_all(void) {
  hostops::barrier_all(ctx(), {"gshmem_barrier_all"});
}
void gshmem_sync_all(void) {
  hostops::sync_all(ctx(), {"gshmem_sync_all"});
}

void gshmemx_host_barrier_all(void) {
  const char* call = "gshmemx_host_barrier_all";
  gshmem::Runtime* rt = gshmem::detail::default_runtime();
  if (!rt) {
    gshmem::detail::host_bad_input(ctx(), {call}, gshmem::BadInput::NotInitialized, nullptr, 0, -1);
  }
  rt->bootstrap().barrier(call);
}

int gshmem_barrier(gshmem_team_t team) {
  if (!member_of(team)) {
    gshmem::log::error("gshmem_barrier: team=%d is not a team this PE belongs to", int(team));
    return -1;
  }
  hostops::barrier(ctx(), team, {"gshmem_barrier"});
  return 0;
}

int gshmem_team_sync(gshmem_team_t team) {
  if (!member_of(team)) {
    gshmem::log::error("gshmem_team_sync: team=%d is not a team this PE belongs to", int(team));
    return -1;
  }
  hostops::team_sync(ctx(), team, {"gshmem_team_sync"});
  return 0;
}

}  // extern "C"
