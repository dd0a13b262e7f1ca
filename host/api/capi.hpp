// Shared by the C API wrappers: the default context and the element types of the sized calls.
#pragma once

#include <cstdint>

#include "gshmem/device.cuh"
#include "gshmem/gshmem.h"
#include "host/log.hpp"
#include "host/runtime.hpp"

namespace gshmem::capi {

inline const DeviceContext& ctx() { return detail::g_default_ctx; }

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
