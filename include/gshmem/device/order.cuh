// Ordering and completion: fence and quiet. Called by the whole group G.
//
// fence: puts, AMOs and signals this PE issued before the fence to a PE are delivered to that PE
//        before those issued after it. quiet: everything this PE issued before the quiet is
//        complete (visible at its target, sources reusable, nbi gets landed) when it returns.
#pragma once

#include "gshmem/device/channel.cuh"
#include "gshmem/device/context.cuh"
#include "gshmem/device/group.cuh"

namespace gshmem {

template <class G = Thread>
GSHMEM_HD GSHMEM_INLINE void fence(const DeviceContext& c) {
  G::sync();
  if (G::rank() == 0) {
    detail::thread_fence_system();
    if (c.channel) detail::channel_fence(c);
  }
  G::sync();
}

template <class G = Thread>
GSHMEM_HD GSHMEM_INLINE void quiet(const DeviceContext& c) {
  G::sync();
  if (G::rank() == 0) {
    detail::thread_fence_system();
    if (c.channel) detail::channel_quiet(c);
  }
  G::sync();
}

}  // namespace gshmem
