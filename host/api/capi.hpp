// Shared by the C API wrappers: the default context and the element types of the sized calls.
#pragma once

#include <cstdint>

#include "gshmem/device.cuh"
#include "gshmem/gshmem.h"
#include "host/hostops.hpp"
#include "host/log.hpp"
#include "host/runtime.hpp"

namespace gshmem::capi {

inline const DeviceContext& ctx() {
  return detail::g_default_ctx;
}
// Each wrapper first offers the call to host/hostops.hpp (a GPU heap), then runs the plain code.

// ---- Host heap or GPU heap: one entry per family --------------------------------------------

template <AmoOp Op, class T>
T amo(T* d, T v, T cond, int pe, Site s) {
  T out;
  if (hostops::atomic<Op>(ctx(), d, v, cond, pe, s, &out)) return out;
  return gshmem::atomic<Op>(ctx(), d, v, cond, pe, s);
}

template <class T>
void wait_until(T* ivar, int cmp, T v, Site s) {
  if (!hostops::wait_until(ctx(), ivar, cmp, v, s)) gshmem::wait_until(ctx(), ivar, cmp, v, s);
}
template <class T>
bool test(T* ivar, int cmp, T v, Site s) {
  bool out;
  if (hostops::test(ctx(), ivar, cmp, v, s, &out)) return out;
  return gshmem::test(ctx(), ivar, cmp, v, s);
}

template <class T, class Value>
void wait_all(T* ivars, size_t n, const int* st, int cmp, Value v, Site s) {
  size_t r;
  if (hostops::wait_array(ctx(), hostops::Scan::All, true, ivars, n, nullptr, st, cmp, v, s, &r)) {
    return;
  }
  detail::wait_all(ctx(), ivars, n, st, cmp, v, s);
}
template <class T, class Value>
size_t wait_any(T* ivars, size_t n, const int* st, int cmp, Value v, Site s) {
  size_t r;
  if (hostops::wait_array(ctx(), hostops::Scan::Any, true, ivars, n, nullptr, st, cmp, v, s, &r)) {
    return r;
  }
  return detail::wait_any(ctx(), ivars, n, st, cmp, v, s);
}
template <class T, class Value>
size_t wait_some(T* ivars, size_t n, size_t* idx, const int* st, int cmp, Value v, Site s) {
  size_t r;
  if (hostops::wait_array(ctx(), hostops::Scan::Some, true, ivars, n, idx, st, cmp, v, s, &r)) {
    return r;
  }
  return detail::wait_some(ctx(), ivars, n, idx, st, cmp, v, s);
}
template <class T, class Value>
int test_all_of(T* ivars, size_t n, const int* st, int cmp, Value v, Site s) {
  size_t r;
  if (hostops::wait_array(ctx(), hostops::Scan::All, false, ivars, n, nullptr, st, cmp, v, s, &r)) {
    return int(r);
  }
  return gshmem::test_all_of(ctx(), ivars, n, st, cmp, v, s);
}
template <class T, class Value>
size_t test_any_of(T* ivars, size_t n, const int* st, int cmp, Value v, Site s) {
  size_t r;
  if (hostops::wait_array(ctx(), hostops::Scan::Any, false, ivars, n, nullptr, st, cmp, v, s, &r)) {
    return r;
  }
  return gshmem::test_any_of(ctx(), ivars, n, st, cmp, v, s);
}
template <class T, class Value>
size_t test_some_of(T* ivars, size_t n, size_t* idx, const int* st, int cmp, Value v, Site s) {
  size_t r;
  if (hostops::wait_array(ctx(), hostops::Scan::Some, false, ivars, n, idx, st, cmp, v, s, &r)) {
    return r;
  }
  return gshmem::test_some_of(ctx(), ivars, n, idx, st, cmp, v, s);
}

// T() does not parse for multi-word types such as `long long` inside the generated wrappers.
template <class T>
constexpr T zero() {
  return T();
}

template <int Bits>
struct Sized;
template <>
struct Sized<8> {
  using type = uint8_t;
};
template <>
struct Sized<16> {
  using type = uint16_t;
};
template <>
struct Sized<32> {
  using type = uint32_t;
};
template <>
struct Sized<64> {
  using type = uint64_t;
};
template <>
struct Sized<128> {
  struct type {
    uint64_t half[2];
  };
};

}  // namespace gshmem::capi
