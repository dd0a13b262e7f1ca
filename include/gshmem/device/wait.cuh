// The one wait helper. Every spin in gshmem (device or host, user-visible or internal) goes
// through wait_for(), which polls the job's abort flag and honours GSHMEM_TIMEOUT in every build,
// so a dead or wrong PE ends the job with a message instead of a hang.
#pragma once

#include "gshmem/device/context.cuh"

namespace gshmem::detail {

// Host side of a long wait: yields the core (more PEs than cores must not crawl) and, where
// GSHMEM_WAIT_SLEEP asks, once nothing has happened for that long, naps so a PE blocked on a slow
// peer leaves the core to other programs. `idle_ns`: time since the wait last saw progress (its
// start, or the last step of the proxy engine that did work). With a network transport the nap
// ends early when the network has news; returns true then, and at once without a nap where the
// network has no file descriptor to wait on (the proxy polls): the caller counts it as progress
// and polls at full speed again.
bool host_backoff(const DeviceContext& c, uint32_t spins, uint64_t idle_ns);
// A host thread waiting inside gshmem runs its PE's proxy engine for a step when no other thread
// is (progress by waiters): its network operations then need no other thread to be scheduled.
// `post_only`: just issue queued commands (after a push). True when the step did some work.
bool host_drive(const DeviceContext& c, bool post_only = false);

template <class Done>
GSHMEM_HD void wait_slow(const DeviceContext& c, Site site, Done& done) {
#if GSHMEM_ON_DEVICE
  // A GPU's clock is a register: read on entry.
  const uint64_t start = now_ns();
#else
  // On a CPU the clock is first read at the 16th poll, and the wait's time counts from there: most
  // waits end before it, and a clock read per wait was 5% of a 2-PE AllReduce of 8 B.
  uint64_t start = 0;
  bool started = false;
  // A PE whose network traffic is flowing keeps polling at full speed: the peers' operations
  // complete only as fast as this PE progresses them (rxm's targets must poll).
  uint64_t last_work = 0;
#endif
  uint64_t waited = 0;
  for (uint32_t spins = 1;; ++spins) {
    if (done()) return;
    if ((spins & 15) == 0) {
      if (c.abort_flag && *c.abort_flag) {
#if GSHMEM_ON_DEVICE
        printf("gshmem: PE %d: %s interrupted: the job is aborting\n", c.my_pe, site.call);
        __trap();
#else
        host_wait_failed(c, site, false);
#endif
      }
#if GSHMEM_ON_DEVICE
      waited = now_ns() - start;
#else
      const uint64_t now = now_ns();
      if (!started) {
        started = true;
        start = now;
        if (last_work < start) last_work = start;
      }
      waited = now - start;
#endif
      if (c.timeout_ns && waited > c.timeout_ns) {
#if GSHMEM_ON_DEVICE
        printf("gshmem: PE %d: %s timed out (GSHMEM_TIMEOUT) waiting on PE %d\n", c.my_pe,
               site.call, site.peer);
        __trap();
#else
        host_wait_failed(c, site, true);
#endif
      }
    }
#if GSHMEM_ON_DEVICE
    spin_pause();
#else
    // Past the spinning phase every round costs a yield: drive the engine every round then.
    if (c.channel && ((spins & 3) == 0 || spins >= c.spins_before_yield) && host_drive(c)) {
      last_work = now_ns();
      continue;
    }
    if (spins < c.spins_before_yield) {
      spin_pause();
    } else if (host_backoff(c, spins,
                            waited > last_work - start ? waited - (last_work - start) : 0)) {
      last_work = now_ns();
    }
#endif
  }
}

// Returns once done() is true. done() must be a cheap, side-effect-free poll (an acquire load).
template <class Done>
GSHMEM_HD GSHMEM_INLINE void wait_for(const DeviceContext& c, Site site, Done&& done) {
  if (done()) return;
  wait_slow(c, site, done);
}

}  // namespace gshmem::detail
