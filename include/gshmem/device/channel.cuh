// The producer side of the proxy channel: how device code (and CPU PEs) reach a peer whose heap
// is not mapped here. Until a network transport is configured there is no channel, and any
// operation on such a peer is reported as "no transport to PE n".
#pragma once

#include "gshmem/device/amo_op.cuh"
#include "gshmem/device/context.cuh"

namespace gshmem::detail {

GSHMEM_HD GSHMEM_INLINE void require_channel(const DeviceContext& c, Site s, int pe) {
  if (!c.channel) bad_input(c, s, BadInput::NoTransport, nullptr, 0, pe);
}

template <class G>
GSHMEM_HD void channel_put(const DeviceContext& c, Remote, const void*, uint64_t, int pe, bool,
                           Site s) {
  require_channel(c, s, pe);
}
template <class G>
GSHMEM_HD void channel_get(const DeviceContext& c, Remote, void*, uint64_t, int pe, bool, Site s) {
  require_channel(c, s, pe);
}
template <AmoOp Op, class T>
GSHMEM_HD T channel_amo(const DeviceContext& c, Remote, T, T, int pe, Site s) {
  require_channel(c, s, pe);
  return T();
}
GSHMEM_HD inline void channel_signal(const DeviceContext& c, Remote, uint64_t, int, int pe,
                                     Site s) {
  require_channel(c, s, pe);
}
template <class G>
GSHMEM_HD void channel_put_signal(const DeviceContext& c, Remote, const void*, uint64_t, Remote,
                                  uint64_t, int, int pe, bool, Site s) {
  require_channel(c, s, pe);
}
GSHMEM_HD inline void channel_fence(const DeviceContext&) {}
GSHMEM_HD inline void channel_quiet(const DeviceContext&) {}

}  // namespace gshmem::detail
