// Whether a group call's group is whole. A _warp call spreads its work over the 32 lanes of a
// warp: in a block whose size is not a multiple of 32 the last warp is short, and the elements of
// its missing lanes would silently not be moved. With GSHMEM_DEVICE_CHECKS such a call traps,
// naming itself; without, it is the caller's contract (documented in gshmem/device.cuh).
#pragma once

#include <type_traits>

#include "gshmem/device/context.cuh"
#include "gshmem/device/group.cuh"

namespace gshmem::detail {

template <class G>
GSHMEM_HD GSHMEM_INLINE void check_group(const DeviceContext& c, Site s) {
#if GSHMEM_ON_DEVICE
  if constexpr (std::is_same_v<G, Warp>) {
    if (checks_on(c) && (Block::size() & 31u) != 0) {
      bad_input(c, s, BadInput::GroupShape, nullptr, Block::size(), -1);
    }
  }
#else
  (void)c;
  (void)s;
#endif
}

}  // namespace gshmem::detail
