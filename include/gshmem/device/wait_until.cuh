// Point-to-point synchronisation on local symmetric variables: wait_until and test, with the
// _all/_any/_some and _vector forms of OpenSHMEM 1.5. By one thread.
//
// Contract: a wait returns once the condition holds; loads are acquire, so data written by a peer
// before it updated the variable with release semantics (put-with-signal, a fenced put) is
// visible afterwards. `status`, when not null, excludes element i where status[i] != 0.
#pragma once

#include "gshmem/device/context.cuh"
#include "gshmem/device/wait.cuh"

namespace gshmem {

namespace detail {

GSHMEM_HD GSHMEM_INLINE bool valid_cmp(int cmp) {
  return cmp >= GSHMEM_CMP_EQ && cmp <= GSHMEM_CMP_GE;
}

template <class T>
GSHMEM_HD GSHMEM_INLINE bool cmp_holds(T v, int cmp, T x) {
  switch (cmp) {
    case GSHMEM_CMP_EQ: return v == x;
    case GSHMEM_CMP_NE: return v != x;
    case GSHMEM_CMP_GT: return v > x;
    case GSHMEM_CMP_LE: return v <= x;
    case GSHMEM_CMP_LT: return v < x;
    default: return v >= x;
  }
}

template <class T>
GSHMEM_HD GSHMEM_INLINE T load_acquire(const T* p) {
  return atomic_ref<T>(*const_cast<T*>(p)).load(acquire);
}

GSHMEM_HD GSHMEM_INLINE void check_cmp(const DeviceContext& c, Site s, const void* addr, int cmp) {
  if (checks_on(c) && !valid_cmp(cmp)) bad_input(c, s, BadInput::Cmp, addr, uint64_t(cmp), -1);
}

// The scan behind every multi-element form: calls hit(i) for each eligible element whose
// condition holds, stopping early when hit returns false. Returns how many were eligible.
template <class T, class Value, class Hit>
GSHMEM_HD GSHMEM_INLINE size_t scan(const T* ivars, size_t n, const int* status, int cmp,
                                    Value value, Hit hit) {
  size_t eligible = 0;
  for (size_t i = 0; i < n; ++i) {
    if (status && status[i]) continue;
    ++eligible;
    if (cmp_holds(load_acquire(ivars + i), cmp, value(i)) && !hit(i)) break;
  }
  return eligible;
}

template <class T, class Value>
GSHMEM_HD bool all_hold(const T* ivars, size_t n, const int* status, int cmp, Value value) {
  for (size_t i = 0; i < n; ++i) {
    if (status && status[i]) continue;
    if (!cmp_holds(load_acquire(ivars + i), cmp, value(i))) return false;
  }
  return true;
}

template <class T, class Value>
GSHMEM_HD size_t first_holding(const T* ivars, size_t n, const int* status, int cmp, Value value,
                               bool* any_eligible) {
  size_t found = SIZE_MAX;
  *any_eligible = scan(ivars, n, status, cmp, value, [&](size_t i) {
                    found = i;
                    return false;
                  }) != 0;
  return found;
}

template <class T, class Value>
GSHMEM_HD size_t all_holding(const T* ivars, size_t n, size_t* indices, const int* status, int cmp,
                             Value value, bool* any_eligible) {
  size_t count = 0;
  *any_eligible = scan(ivars, n, status, cmp, value, [&](size_t i) {
                    indices[count++] = i;
                    return true;
                  }) != 0;
  return count;
}

template <class T>
struct Same {
  T v;
  GSHMEM_HD T operator()(size_t) const { return v; }
};
template <class T>
struct Each {
  const T* v;
  GSHMEM_HD T operator()(size_t i) const { return v[i]; }
};

// Waits until all eligible elements hold.
template <class T, class Value>
GSHMEM_HD void wait_all(const DeviceContext& c, const T* ivars, size_t n, const int* status,
                        int cmp, Value value, Site s) {
  check_cmp(c, s, ivars, cmp);
  wait_for(c, s, [&] { return all_hold(ivars, n, status, cmp, value); });
}

// Waits until one eligible element holds; returns its index, SIZE_MAX when none is eligible.
template <class T, class Value>
GSHMEM_HD size_t wait_any(const DeviceContext& c, const T* ivars, size_t n, const int* status,
                          int cmp, Value value, Site s) {
  check_cmp(c, s, ivars, cmp);
  size_t found = SIZE_MAX;
  wait_for(c, s, [&] {
    bool eligible;
    found = first_holding(ivars, n, status, cmp, value, &eligible);
    return found != SIZE_MAX || !eligible;
  });
  return found;
}

// Waits until at least one eligible element holds; returns how many hold, their indices in
// `indices`; 0 when none is eligible.
template <class T, class Value>
GSHMEM_HD size_t wait_some(const DeviceContext& c, const T* ivars, size_t n, size_t* indices,
                           const int* status, int cmp, Value value, Site s) {
  check_cmp(c, s, ivars, cmp);
  size_t count = 0;
  wait_for(c, s, [&] {
    bool eligible;
    count = all_holding(ivars, n, indices, status, cmp, value, &eligible);
    return count != 0 || !eligible;
  });
  return count;
}

}  // namespace detail

template <class T>
GSHMEM_HD GSHMEM_INLINE void wait_until(const DeviceContext& c, const T* ivar, int cmp, T value,
                                        Site s = {"gshmem_wait_until"}) {
  detail::check_cmp(c, s, ivar, cmp);
  detail::wait_for(c, s, [&] { return detail::cmp_holds(detail::load_acquire(ivar), cmp, value); });
}

template <class T>
GSHMEM_HD GSHMEM_INLINE bool test(const DeviceContext& c, const T* ivar, int cmp, T value,
                                  Site s = {"gshmem_test"}) {
  detail::check_cmp(c, s, ivar, cmp);
  return detail::cmp_holds(detail::load_acquire(ivar), cmp, value);
}

template <class T>
GSHMEM_HD void wait_until_all(const DeviceContext& c, const T* ivars, size_t n, const int* status,
                              int cmp, T value, Site s = {"gshmem_wait_until_all"}) {
  detail::wait_all(c, ivars, n, status, cmp, detail::Same<T>{value}, s);
}
template <class T>
GSHMEM_HD size_t wait_until_any(const DeviceContext& c, const T* ivars, size_t n,
                                const int* status, int cmp, T value,
                                Site s = {"gshmem_wait_until_any"}) {
  return detail::wait_any(c, ivars, n, status, cmp, detail::Same<T>{value}, s);
}
template <class T>
GSHMEM_HD size_t wait_until_some(const DeviceContext& c, const T* ivars, size_t n,
                                 size_t* indices, const int* status, int cmp, T value,
                                 Site s = {"gshmem_wait_until_some"}) {
  return detail::wait_some(c, ivars, n, indices, status, cmp, detail::Same<T>{value}, s);
}
template <class T>
GSHMEM_HD void wait_until_all_vector(const DeviceContext& c, const T* ivars, size_t n,
                                     const int* status, int cmp, const T* values,
                                     Site s = {"gshmem_wait_until_all_vector"}) {
  detail::wait_all(c, ivars, n, status, cmp, detail::Each<T>{values}, s);
}
template <class T>
GSHMEM_HD size_t wait_until_any_vector(const DeviceContext& c, const T* ivars, size_t n,
                                       const int* status, int cmp, const T* values,
                                       Site s = {"gshmem_wait_until_any_vector"}) {
  return detail::wait_any(c, ivars, n, status, cmp, detail::Each<T>{values}, s);
}
template <class T>
GSHMEM_HD size_t wait_until_some_vector(const DeviceContext& c, const T* ivars, size_t n,
                                        size_t* indices, const int* status, int cmp,
                                        const T* values,
                                        Site s = {"gshmem_wait_until_some_vector"}) {
  return detail::wait_some(c, ivars, n, indices, status, cmp, detail::Each<T>{values}, s);
}

// Tests: one scan, no waiting. test_all returns 1 when every eligible element holds (also when
// none is eligible); test_any an index or SIZE_MAX; test_some the count.
template <class T, class Value>
GSHMEM_HD int test_all_of(const DeviceContext& c, const T* ivars, size_t n, const int* status,
                          int cmp, Value value, Site s) {
  detail::check_cmp(c, s, ivars, cmp);
  return detail::all_hold(ivars, n, status, cmp, value) ? 1 : 0;
}
template <class T, class Value>
GSHMEM_HD size_t test_any_of(const DeviceContext& c, const T* ivars, size_t n, const int* status,
                             int cmp, Value value, Site s) {
  detail::check_cmp(c, s, ivars, cmp);
  bool eligible;
  return detail::first_holding(ivars, n, status, cmp, value, &eligible);
}
template <class T, class Value>
GSHMEM_HD size_t test_some_of(const DeviceContext& c, const T* ivars, size_t n, size_t* indices,
                              const int* status, int cmp, Value value, Site s) {
  detail::check_cmp(c, s, ivars, cmp);
  bool eligible;
  return detail::all_holding(ivars, n, indices, status, cmp, value, &eligible);
}

}  // namespace gshmem
