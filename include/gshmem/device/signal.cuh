// Signals: 64-bit words updated with SET or ADD, and put-with-signal.
//
// Contract: put_signal updates the remote signal only after the data it carries is visible at the
// target, on every transport (an unordered network included): a PE that sees the signal change
// with an acquire load (signal_wait_until, wait_until) sees the data. The _nbi form may return
// before the source is read; quiet completes it.
#pragma once

#include "gshmem/device/channel.cuh"
#include "gshmem/device/context.cuh"
#include "gshmem/device/group.cuh"
#include "gshmem/device/group_check.cuh"
#include "gshmem/device/rma.cuh"
#include "gshmem/device/wait_until.cuh"

namespace gshmem {

namespace detail {

GSHMEM_HD GSHMEM_INLINE void check_signal_op(const DeviceContext& c, Site s, const void* sig,
                                             int op) {
  if (checks_on(c) && op != GSHMEM_SIGNAL_SET && op != GSHMEM_SIGNAL_ADD) {
    bad_input(c, s, BadInput::SignalOp, sig, uint64_t(op), -1);
  }
}

// Release: everything this thread wrote (or observed) before is visible to whoever acquires the
// new signal value.
GSHMEM_HD GSHMEM_INLINE void signal_apply(uint64_t* sig, uint64_t value, int op) {
  atomic_ref<uint64_t> a(*sig);
  if (op == GSHMEM_SIGNAL_ADD) {
    a.fetch_add(value, release);
  } else {
    a.store(value, release);
  }
}

template <class G>
GSHMEM_HD void put_signal_impl(const DeviceContext& c, void* dst, const void* src, uint64_t bytes,
                               uint64_t* sig, uint64_t value, int op, int pe, bool blocking,
                               Site s) {
  check_group<G>(c, s);
  check_signal_op(c, s, sig, op);
  Remote rd = bytes ? resolve(c, dst, bytes, pe, s.with("dest")) : Remote{nullptr, 0, 0};
  Remote rs = resolve(c, sig, sizeof(uint64_t), pe, s.with("sig_addr"));
  if (rs.ptr && (bytes == 0 || rd.ptr)) {
    if (bytes && pe == c.my_pe) {
      group_copy<G>(rd.ptr, src, bytes);
    } else if (bytes) {
      group_push<G>(rd.ptr, src, bytes);
    }
    G::sync();
    if (G::rank() == 0) {
      // Orders the copy (including any non-temporal stores memcpy used) before the signal.
      thread_fence_system();
      signal_apply(reinterpret_cast<uint64_t*>(rs.ptr), value, op);
    }
    G::sync();
  } else {
    channel_put_signal<G>(c, rd, src, bytes, rs, value, op, pe, blocking, s);
  }
}

}  // namespace detail

// Data then signal, by the whole group G.
template <class G = Thread>
GSHMEM_HD GSHMEM_INLINE void putmem_signal(const DeviceContext& c, void* dst, const void* src,
                                           size_t bytes, uint64_t* sig, uint64_t value, int op,
                                           int pe, Site s = {"gshmem_putmem_signal"}) {
  detail::put_signal_impl<G>(c, dst, src, bytes, sig, value, op, pe, true, s);
}
template <class G = Thread>
GSHMEM_HD GSHMEM_INLINE void putmem_signal_nbi(const DeviceContext& c, void* dst, const void* src,
                                               size_t bytes, uint64_t* sig, uint64_t value, int op,
                                               int pe, Site s = {"gshmem_putmem_signal_nbi"}) {
  detail::put_signal_impl<G>(c, dst, src, bytes, sig, value, op, pe, false, s);
}

// Typed forms: nelems elements of T.
template <class G = Thread, class T>
GSHMEM_HD GSHMEM_INLINE void put_signal(const DeviceContext& c, T* dst, const T* src, size_t nelems,
                                        uint64_t* sig, uint64_t value, int op, int pe,
                                        Site s = {"gshmem_put_signal"}) {
  detail::put_signal_impl<G>(c, dst, src, detail::elems_to_bytes<T>(c, s, dst, nelems), sig, value,
                             op, pe, true, s);
}
template <class G = Thread, class T>
GSHMEM_HD GSHMEM_INLINE void put_signal_nbi(const DeviceContext& c, T* dst, const T* src,
                                            size_t nelems, uint64_t* sig, uint64_t value, int op,
                                            int pe, Site s = {"gshmem_put_signal_nbi"}) {
  detail::put_signal_impl<G>(c, dst, src, detail::elems_to_bytes<T>(c, s, dst, nelems), sig, value,
                             op, pe, false, s);
}

// Updates a remote signal atomically, by one thread. Ordered after this thread's earlier stores
// to mapped peers (release); use fence to order it after puts through the proxy channel.
GSHMEM_HD GSHMEM_INLINE void signal_op(const DeviceContext& c, uint64_t* sig, uint64_t value,
                                       int op, int pe, Site s = {"gshmem_signal_op"}) {
  detail::check_signal_op(c, s, sig, op);
  Remote r = resolve(c, sig, sizeof(uint64_t), pe, s.with("sig_addr"));
  if (r.ptr) {
    detail::signal_apply(reinterpret_cast<uint64_t*>(r.ptr), value, op);
  } else {
    detail::channel_signal(c, r, value, op, pe, s);
  }
}

// Reads a local signal (acquire).
GSHMEM_HD GSHMEM_INLINE uint64_t signal_fetch(const DeviceContext&, const uint64_t* sig) {
  return detail::load_acquire(sig);
}

// Waits until the local signal satisfies cmp; returns its value then.
GSHMEM_HD GSHMEM_INLINE uint64_t signal_wait_until(const DeviceContext& c, const uint64_t* sig,
                                                   int cmp, uint64_t value,
                                                   Site s = {"gshmem_signal_wait_until"}) {
  detail::check_cmp(c, s, sig, cmp);
  uint64_t seen = 0;
  detail::wait_for(c, s, [&] {
    seen = detail::load_acquire(sig);
    return detail::cmp_holds(seen, cmp, value);
  });
  return seen;
}

}  // namespace gshmem
