// Device C API: signals, point-to-point waits, ordering, barriers, teams and queries.
//
// Who calls: signal, wait and test calls, fence, quiet and the queries by one thread (any
// thread). gshmem_barrier_all, gshmem_sync_all, gshmem_barrier and gshmem_team_sync by one
// thread of each PE (of the team) at the same point; their _warp and _block forms by the whole
// warp or block. A barrier completes this PE's outstanding operations (quiet) and then waits for
// every member; a sync only waits. Kernels that meet in a barrier must all be running at once
// (one kernel per PE launched so that every block that synchronises is resident).
#pragma once

#include "gshmem/device/capi_common.cuh"

#pragma nv_diagnostic push
#pragma nv_diag_suppress 20040

// Generated wrappers, laid out by hand: clang-format cannot parse the declaration/body macros.
// clang-format off

// ---- Signals --------------------------------------------------------------------------------

GSHMEMI_SHARED(void) gshmem_signal_op(uint64_t* sig_addr, uint64_t signal, int sig_op, int pe)
GSHMEMI_BODY(::gshmem::signal_op(GSHMEMI_CTX, sig_addr, signal, sig_op, pe,
                                 {"gshmem_signal_op"});)
GSHMEMI_SHARED(uint64_t) gshmem_signal_fetch(const uint64_t* sig_addr)
GSHMEMI_BODY(return ::gshmem::signal_fetch(GSHMEMI_CTX, sig_addr);)
GSHMEMI_SHARED(uint64_t) gshmem_signal_wait_until(uint64_t* sig_addr, int cmp, uint64_t cmp_value)
GSHMEMI_BODY(return ::gshmem::signal_wait_until(GSHMEMI_CTX, sig_addr, cmp, cmp_value,
                                                {"gshmem_signal_wait_until"});)

// ---- Point-to-point synchronisation ---------------------------------------------------------

#define GSHMEMI_SAME(T, v) ::gshmem::detail::Same<T>{v}
#define GSHMEMI_EACH(T, v) ::gshmem::detail::Each<T>{v}

#define GSHMEMI_DEF_WAIT(NAME, T)                                                               \
  GSHMEMI_SHARED(void) gshmem_##NAME##_wait_until(T* ivar, int cmp, T cmp_value)               \
  GSHMEMI_BODY(::gshmem::wait_until(GSHMEMI_CTX, ivar, cmp, cmp_value,                         \
                                    {"gshmem_" #NAME "_wait_until"});)                         \
  GSHMEMI_SHARED(void)                                                                         \
  gshmem_##NAME##_wait_until_all(T* ivars, size_t nelems, const int* status, int cmp,          \
                                 T cmp_value)                                                  \
  GSHMEMI_BODY(::gshmem::wait_until_all(GSHMEMI_CTX, ivars, nelems, status, cmp, cmp_value,    \
                                        {"gshmem_" #NAME "_wait_until_all"});)                 \
  GSHMEMI_SHARED(size_t)                                                                       \
  gshmem_##NAME##_wait_until_any(T* ivars, size_t nelems, const int* status, int cmp,          \
                                 T cmp_value)                                                  \
  GSHMEMI_BODY(return ::gshmem::wait_until_any(GSHMEMI_CTX, ivars, nelems, status, cmp,        \
                                               cmp_value, {"gshmem_" #NAME "_wait_until_any"});) \
  GSHMEMI_SHARED(size_t)                                                                       \
  gshmem_##NAME##_wait_until_some(T* ivars, size_t nelems, size_t* indices, const int* status, \
                                  int cmp, T cmp_value)                                        \
  GSHMEMI_BODY(return ::gshmem::wait_until_some(GSHMEMI_CTX, ivars, nelems, indices, status,   \
                                                cmp, cmp_value,                                \
                                                {"gshmem_" #NAME "_wait_until_some"});)        \
  GSHMEMI_SHARED(void)                                                                         \
  gshmem_##NAME##_wait_until_all_vector(T* ivars, size_t nelems, const int* status, int cmp,   \
                                        T* cmp_values)                                         \
  GSHMEMI_BODY(::gshmem::wait_until_all_vector(GSHMEMI_CTX, ivars, nelems, status, cmp,        \
                                               cmp_values,                                     \
                                               {"gshmem_" #NAME "_wait_until_all_vector"});)   \
  GSHMEMI_SHARED(size_t)                                                                       \
  gshmem_##NAME##_wait_until_any_vector(T* ivars, size_t nelems, const int* status, int cmp,   \
                                        T* cmp_values)                                         \
  GSHMEMI_BODY(return ::gshmem::wait_until_any_vector(                                         \
      GSHMEMI_CTX, ivars, nelems, status, cmp, cmp_values,                                     \
      {"gshmem_" #NAME "_wait_until_any_vector"});)                                            \
  GSHMEMI_SHARED(size_t)                                                                       \
  gshmem_##NAME##_wait_until_some_vector(T* ivars, size_t nelems, size_t* indices,             \
                                         const int* status, int cmp, T* cmp_values)            \
  GSHMEMI_BODY(return ::gshmem::wait_until_some_vector(                                        \
      GSHMEMI_CTX, ivars, nelems, indices, status, cmp, cmp_values,                            \
      {"gshmem_" #NAME "_wait_until_some_vector"});)                                           \
  GSHMEMI_SHARED(int) gshmem_##NAME##_test(T* ivar, int cmp, T cmp_value)                      \
  GSHMEMI_BODY(return ::gshmem::test(GSHMEMI_CTX, ivar, cmp, cmp_value,                        \
                                     {"gshmem_" #NAME "_test"}) ? 1 : 0;)                      \
  GSHMEMI_SHARED(int)                                                                          \
  gshmem_##NAME##_test_all(T* ivars, size_t nelems, const int* status, int cmp, T cmp_value)   \
  GSHMEMI_BODY(return ::gshmem::test_all_of(GSHMEMI_CTX, ivars, nelems, status, cmp,           \
                                            GSHMEMI_SAME(T, cmp_value),                        \
                                            {"gshmem_" #NAME "_test_all"});)                   \
  GSHMEMI_SHARED(size_t)                                                                       \
  gshmem_##NAME##_test_any(T* ivars, size_t nelems, const int* status, int cmp, T cmp_value)   \
  GSHMEMI_BODY(return ::gshmem::test_any_of(GSHMEMI_CTX, ivars, nelems, status, cmp,           \
                                            GSHMEMI_SAME(T, cmp_value),                        \
                                            {"gshmem_" #NAME "_test_any"});)                   \
  GSHMEMI_SHARED(size_t)                                                                       \
  gshmem_##NAME##_test_some(T* ivars, size_t nelems, size_t* indices, const int* status,       \
                            int cmp, T cmp_value)                                              \
  GSHMEMI_BODY(return ::gshmem::test_some_of(GSHMEMI_CTX, ivars, nelems, indices, status, cmp, \
                                             GSHMEMI_SAME(T, cmp_value),                       \
                                             {"gshmem_" #NAME "_test_some"});)                 \
  GSHMEMI_SHARED(int)                                                                          \
  gshmem_##NAME##_test_all_vector(T* ivars, size_t nelems, const int* status, int cmp,         \
                                  T* cmp_values)                                               \
  GSHMEMI_BODY(return ::gshmem::test_all_of(GSHMEMI_CTX, ivars, nelems, status, cmp,           \
                                            GSHMEMI_EACH(T, cmp_values),                       \
                                            {"gshmem_" #NAME "_test_all_vector"});)            \
  GSHMEMI_SHARED(size_t)                                                                       \
  gshmem_##NAME##_test_any_vector(T* ivars, size_t nelems, const int* status, int cmp,         \
                                  T* cmp_values)                                               \
  GSHMEMI_BODY(return ::gshmem::test_any_of(GSHMEMI_CTX, ivars, nelems, status, cmp,           \
                                            GSHMEMI_EACH(T, cmp_values),                       \
                                            {"gshmem_" #NAME "_test_any_vector"});)            \
  GSHMEMI_SHARED(size_t)                                                                       \
  gshmem_##NAME##_test_some_vector(T* ivars, size_t nelems, size_t* indices, const int* status, \
                                   int cmp, T* cmp_values)                                     \
  GSHMEMI_BODY(return ::gshmem::test_some_of(GSHMEMI_CTX, ivars, nelems, indices, status, cmp, \
                                             GSHMEMI_EACH(T, cmp_values),                      \
                                             {"gshmem_" #NAME "_test_some_vector"});)
GSHMEM_FOR_WAIT_TYPES(GSHMEMI_DEF_WAIT)
#undef GSHMEMI_DEF_WAIT
#undef GSHMEMI_EACH
#undef GSHMEMI_SAME

// ---- Ordering, completion, synchronisation --------------------------------------------------

GSHMEMI_SHARED(void) gshmem_fence(void) GSHMEMI_BODY(::gshmem::fence(GSHMEMI_CTX);)
GSHMEMI_SHARED(void) gshmem_quiet(void) GSHMEMI_BODY(::gshmem::quiet(GSHMEMI_CTX);)
GSHMEMI_SHARED(void) gshmem_barrier_all(void)
GSHMEMI_BODY(::gshmem::barrier_all(GSHMEMI_CTX, {"gshmem_barrier_all"});)
GSHMEMI_SHARED(void) gshmem_sync_all(void)
GSHMEMI_BODY(::gshmem::sync_all(GSHMEMI_CTX, {"gshmem_sync_all"});)
// A team this PE is not a member of is bad input (the message names the call), not a status:
// there is no caller on the device to hand a status to that could undo a half-entered barrier.
GSHMEMI_SHARED(int) gshmem_barrier(gshmem_team_t team)
GSHMEMI_BODY(::gshmem::barrier(GSHMEMI_CTX, team, {"gshmem_barrier"}); return 0;)
GSHMEMI_SHARED(int) gshmem_team_sync(gshmem_team_t team)
GSHMEMI_BODY(::gshmem::team_sync(GSHMEMI_CTX, team, {"gshmem_team_sync"}); return 0;)

#define GSHMEMI_DEF_SYNC_GROUP(SUFFIX, G)                                                       \
  GSHMEMI_DEVICE(void) gshmem_barrier_all_##SUFFIX(void) {                                     \
    ::gshmem::barrier_all<G>(GSHMEMI_CTX, {"gshmem_barrier_all_" #SUFFIX});                    \
  }                                                                                            \
  GSHMEMI_DEVICE(void) gshmem_sync_all_##SUFFIX(void) {                                        \
    ::gshmem::sync_all<G>(GSHMEMI_CTX, {"gshmem_sync_all_" #SUFFIX});                          \
  }                                                                                            \
  GSHMEMI_DEVICE(int) gshmem_barrier_##SUFFIX(gshmem_team_t team) {                            \
    ::gshmem::barrier<G>(GSHMEMI_CTX, team, {"gshmem_barrier_" #SUFFIX});                      \
    return 0;                                                                                  \
  }                                                                                            \
  GSHMEMI_DEVICE(int) gshmem_team_sync_##SUFFIX(gshmem_team_t team) {                          \
    ::gshmem::team_sync<G>(GSHMEMI_CTX, team, {"gshmem_team_sync_" #SUFFIX});                  \
    return 0;                                                                                  \
  }                                                                                            \
  GSHMEMI_DEVICE(void) gshmem_quiet_##SUFFIX(void) { ::gshmem::quiet<G>(GSHMEMI_CTX); }
GSHMEMI_FOR_GROUPS(GSHMEMI_DEF_SYNC_GROUP)
#undef GSHMEMI_DEF_SYNC_GROUP

// ---- Queries --------------------------------------------------------------------------------

namespace gshmem::detail {

__device__ GSHMEM_INLINE const TeamInfo* device_team(const DeviceContext& c, gshmem_team_t team) {
  if (!c.teams || static_cast<uint32_t>(team) >= GSHMEM_MAX_TEAMS) return nullptr;
  const TeamInfo* t = &c.teams[team];
  return t->size > 0 && t->my_index >= 0 ? t : nullptr;
}

}  // namespace gshmem::detail

GSHMEMI_SHARED(int) gshmem_my_pe(void) GSHMEMI_BODY(return GSHMEMI_CTX.my_pe;)
GSHMEMI_SHARED(int) gshmem_n_pes(void) GSHMEMI_BODY(return GSHMEMI_CTX.n_pes;)
// NULL when pe is out of range, dest is not in the symmetric heap or pe's heap is not mapped.
GSHMEMI_SHARED(void*) gshmem_ptr(const void* dest, int pe)
GSHMEMI_BODY(const ::gshmem::DeviceContext& c = GSHMEMI_CTX; uint64_t off;
             if (static_cast<uint32_t>(pe) >= static_cast<uint32_t>(c.n_pes) ||
                 !::gshmem::detail::in_segment(c.heap, reinterpret_cast<uintptr_t>(dest), 0, &off))
                 return nullptr;
             char* base = c.heap.peer_base[pe]; return base ? base + off : nullptr;)
GSHMEMI_SHARED(int) gshmem_team_my_pe(gshmem_team_t team)
GSHMEMI_BODY(const ::gshmem::TeamInfo* t = ::gshmem::detail::device_team(GSHMEMI_CTX, team);
             return t ? t->my_index : -1;)
GSHMEMI_SHARED(int) gshmem_team_n_pes(gshmem_team_t team)
GSHMEMI_BODY(const ::gshmem::TeamInfo* t = ::gshmem::detail::device_team(GSHMEMI_CTX, team);
             return t ? t->size : -1;)

// clang-format on

#pragma nv_diagnostic pop
