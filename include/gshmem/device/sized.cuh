// The element types of the C API's generated wrappers, for host code and kernels alike.
#pragma once

#include <cstdint>

#include "gshmem/device/platform.cuh"

namespace gshmem::detail {

// T() does not parse for multi-word types (`long long`) inside the generated wrappers.
template <class T>
GSHMEM_HD GSHMEM_INLINE constexpr T capi_zero() {
  return T();
}

// The element of the sized calls (gshmem_put32, shmem_put32, ...): BITS/8 bytes, copied whole.
template <int Bits>
struct SizedElem;
template <>
struct SizedElem<8> {
  using type = uint8_t;
};
template <>
struct SizedElem<16> {
  using type = uint16_t;
};
template <>
struct SizedElem<32> {
  using type = uint32_t;
};
template <>
struct SizedElem<64> {
  using type = uint64_t;
};
template <>
struct SizedElem<128> {
  struct type {
    uint64_t half[2];
  };
};

}  // namespace gshmem::detail
