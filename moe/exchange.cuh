// The data movement of dispatch and combine, per peer, for a thread group G (a CPU PE runs them
// with G = Thread; a kernel would give each peer a block).
//
// Ordering: every batch is covered by one signal per (phase, sender, receiver) that is applied
// only after the batch is visible. Mapped peers: the group stores the rows, then one release
// signal. Network peers: the rows are packed into one contiguous staging range and sent as one
// put-with-signal, whose signal the transport applies only after the data has landed, on an
// unordered network too; nothing relies on two separate operations arriving in order.
//
// Epochs: signals are SET to the call's epoch, which only grows. A member starts call i+1 only
// after its combine of call i has heard from every member, and each member sends its combine
// signal only after it has received everything of call i; so no signal, count or row of call i+1
// can reach a member still reading call i's, and no slot needs clearing between calls.
#pragma once

#include "gshmem/device/group.cuh"
#include "gshmem/device/signal.cuh"
#include "gshmem/device/wait.cuh"
#include "moe/plan.cuh"

namespace gshmem::moe::detail {

// Put-with-signal that also takes zero bytes (a lone signal then; nothing to order it after).
template <class G>
GSHMEM_HD void put_signal_nbi(const DeviceContext& c, void* dst, const void* src, uint64_t bytes,
                              uint64_t* sig, uint64_t value, int pe, Site s) {
  if (bytes) {
    putmem_signal_nbi<G>(c, dst, src, bytes, sig, value, GSHMEM_SIGNAL_SET, pe, s);
    return;
  }
  G::sync();
  if (G::rank() == 0) signal_op(c, sig, value, GSHMEM_SIGNAL_SET, pe, s);
  G::sync();
}

// This member's count words to member r. `signal` is the epoch, or the epoch | kAbortBit (and no
// counts) when this member's input was bad.
template <class G>
GSHMEM_HD void send_counts(const DeviceContext& c, const Plan& p, uint64_t signal, int32_t r,
                           Site s) {
  uint64_t bytes = (signal & kAbortBit) ? 0 : uint64_t(p.experts) * sizeof(uint64_t);
  put_signal_nbi<G>(c, p.counts_in + int64_t(p.me) * p.experts, p.counts_out, bytes,
                    p.signal(kCounts, p.me), signal, p.pe(r), s);
}

// Waits for every member's `ph` signal to reach `epoch` and calls on_arrival(s) (by the whole
// group) for each member s in the order they arrive. Returns the first member whose signal
// carried kAbortBit, or -1.
template <class G, class OnArrival>
GSHMEM_HD int32_t for_each_arrival(const DeviceContext& c, const Plan& p, Phase ph, uint64_t epoch,
                                   const char* call, OnArrival&& on_arrival) {
  enum : int32_t { kWaiting = 0, kNew = 1, kDone = 2 };
  uint64_t* sig = p.signal(ph, 0);
  if (G::rank() == 0) {
    for (int32_t s = 0; s < p.n; ++s) p.arrived[s] = kWaiting;
    *p.result = -1;
  }
  G::sync();
  for (int32_t left = p.n; left > 0;) {
    if (G::rank() == 0) {
      int32_t first = 0;
      while (p.arrived[first] != kWaiting) ++first;
      auto landed = [&](int32_t s) {
        return (gshmem::detail::load_acquire(sig + s) & ~kAbortBit) >= epoch;
      };
      gshmem::detail::wait_for(c, Site{call, p.pe(first)}, [&] {
        for (int32_t s = first; s < p.n; ++s) {
          if (p.arrived[s] == kWaiting && landed(s)) return true;
        }
        return false;
      });
      for (int32_t s = first; s < p.n; ++s) {
        if (p.arrived[s] != kWaiting || !landed(s)) continue;
        p.arrived[s] = kNew;
        if ((gshmem::detail::load_acquire(sig + s) & kAbortBit) && *p.result < 0) *p.result = s;
      }
    }
    G::sync();
    for (int32_t s = 0; s < p.n; ++s) {
      if (p.arrived[s] == kNew) on_arrival(s);
    }
    G::sync();
    left = 0;
    for (int32_t s = 0; s < p.n; ++s) left += p.arrived[s] == kWaiting;
    G::sync();
    if (G::rank() == 0) {
      for (int32_t s = 0; s < p.n; ++s) {
        if (p.arrived[s] == kNew) p.arrived[s] = kDone;
      }
    }
    G::sync();
  }
  return *p.result;
}

// Copies one token (values, then scales) by the group.
template <class G>
GSHMEM_HD GSHMEM_INLINE void copy_token(const Plan& p, char* x_dst, float* s_dst, const char* x_src,
                                        const float* s_src) {
  gshmem::detail::group_copy<G>(x_dst, x_src, p.x_bytes);
  if (p.n_scales) gshmem::detail::group_copy<G>(s_dst, s_src, p.n_scales * sizeof(float));
}

// This member's tokens for member r. Mapped: stored into r's expert rows, then the tokens signal.
// Network: packed into send_stage and put, as one batch, into this member's landing zone at r.
template <class G>
GSHMEM_HD void send_tokens(const DeviceContext& c, const Plan& p, uint64_t epoch, int32_t r,
                           const char* x, const float* scales, Site s) {
  const int pe = p.pe(r);
  const bool direct = mapped(c, pe);
  char* peer_x = direct ? on_peer(c, p.x, pe) : nullptr;
  float* peer_scales = direct && p.n_scales ? on_peer(c, p.scales, pe) : nullptr;
  char* stage = p.send_stage ? p.send_stage + uint64_t(p.stage_off[r]) * p.row_bytes : nullptr;
  char* packed = stage;
  for (int32_t e = 0; e < p.local_experts; ++e) {
    const int32_t xid = r * p.local_experts + e;
    uint64_t row = uint64_t(e) * p.capacity + p.send_off[xid];
    for (int32_t j = p.bucket[xid]; j < p.bucket[xid + 1]; ++j, ++row) {
      const int32_t t = p.order[j];
      const char* src = x + uint64_t(t) * p.x_bytes;
      const float* src_scales = scales ? scales + uint64_t(t) * p.n_scales : nullptr;
      if (direct) {
        copy_token<G>(p, peer_x + row * p.x_bytes, peer_scales + row * p.n_scales, src, src_scales);
      } else {
        copy_token<G>(p, packed, reinterpret_cast<float*>(packed + p.x_bytes), src, src_scales);
        packed += p.row_bytes;
      }
    }
  }
  G::sync();
  uint64_t* sig = p.signal(kTokens, p.me);
  if (direct) {
    putmem_signal<G>(c, nullptr, nullptr, 0, sig, epoch, GSHMEM_SIGNAL_SET, pe, s);
  } else {
    char* landing = p.landing + uint64_t(p.me) * p.landing_rows * p.row_bytes;
    put_signal_nbi<G>(c, landing, stage, uint64_t(packed - stage), sig, epoch, pe, s);
  }
}

// Moves network source s's tokens from its landing zone into the local experts' rows.
template <class G>
GSHMEM_HD void unpack_landing(const Plan& p, int32_t s) {
  const char* src = p.landing + uint64_t(s) * p.landing_rows * p.row_bytes;
  for (int32_t e = 0; e < p.local_experts; ++e) {
    const int32_t rows = p.cnt[s * p.experts + p.me * p.local_experts + e];
    uint64_t row = uint64_t(e) * p.capacity + p.recv_off[e * p.n + s];
    for (int32_t j = 0; j < rows; ++j, ++row, src += p.row_bytes) {
      copy_token<G>(p, p.x + row * p.x_bytes, p.scales + row * p.n_scales, src,
                    reinterpret_cast<const float*>(src + p.x_bytes));
    }
  }
  G::sync();
}

// The outputs this member's experts computed for the tokens of member m's DP group, to m: what
// goes to a group is one contiguous range of its y_in (see moe/routing.cuh). Mapped: copied per
// (sender, expert) run, then the outputs signal. Network: gathered into y_stage once per group
// (every member of the group gets the same range) and put as one batch. y == nullptr, for m this
// member only: the signal alone (combine reads the rows where the experts left them).
template <class G>
GSHMEM_HD void send_outputs(const DeviceContext& c, const Plan& p, uint64_t epoch, int32_t m,
                            const char* y, Site s) {
  const int pe = p.pe(m);
  const int32_t g = m / p.dp, g0 = g * p.dp;
  const bool direct = mapped(c, pe);
  if (!y) {
    put_signal_nbi<G>(c, nullptr, nullptr, 0, p.signal(kOutputs, p.me), epoch, pe, s);
    return;
  }
  char* dst = direct ? on_peer(c, p.y_in, pe) : p.y_stage + uint64_t(p.y_stage_off[g]) * p.y_bytes;
  const bool gather = direct || p.staged[g] != int32_t(epoch);
  uint64_t first = 0;  // y_in row of the range at m
  for (int32_t q = 0; q < p.dp; ++q) {
    const int32_t src = g0 + q;
    for (int32_t e = 0; e < p.local_experts; ++e) {
      const uint64_t rows = p.cnt[src * p.experts + p.me * p.local_experts + e];
      const uint64_t at = p.ret_off[e * p.n + src];
      if (q == 0 && e == 0) first = at;
      if (rows && gather) {
        const char* from = y + (uint64_t(e) * p.capacity + p.recv_off[e * p.n + src]) * p.y_bytes;
        gshmem::detail::group_copy<G>(dst + (direct ? at : at - first) * p.y_bytes, from,
                                      rows * p.y_bytes);
      }
    }
  }
  G::sync();
  uint64_t* sig = p.signal(kOutputs, p.me);
  if (direct) {
    putmem_signal<G>(c, nullptr, nullptr, 0, sig, epoch, GSHMEM_SIGNAL_SET, pe, s);
  } else {
    if (G::rank() == 0) p.staged[g] = int32_t(epoch);
    uint64_t bytes = uint64_t(p.y_stage_off[g + 1] - p.y_stage_off[g]) * p.y_bytes;
    put_signal_nbi<G>(c, p.y_in + first * p.y_bytes, dst, bytes, sig, epoch, pe, s);
  }
}

}  // namespace gshmem::moe::detail
