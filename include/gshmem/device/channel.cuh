// The producer side of the proxy channel: how device code (and CPU PEs) reach a peer whose heap
// is not mapped here.
//
// The channel is a ring of fixed-size 64-byte commands in memory both the producers and the
// proxy thread can reach (pinned host memory for GPUs). A producer takes a ticket with one atomic
// add on `head`, waits while the ring is full (the proxy publishes how many tickets it has
// consumed), fills the slot, and publishes it by storing seq = ticket + 1 with release. The seq is
// the slot's phase: it differs on every lap, so the proxy needs no doorbell and can never mistake
// last lap's command for this one. For GPUs `head` is device memory (only the GPU's threads take
// tickets, and an atomic on host memory would need PCIe atomics); everything a GPU writes into
// host memory is a plain store. Bulk data travels by reference (`local`, a producer's address the
// proxy reaches only through the fabric or CUDA copies); single values (p, g, atomics) travel in
// the command and come back in the return slot, never through a thread's stack.
//
// Blocking forms wait on their ticket's return slot, which the proxy tags with ticket + 1 (and
// fills with a fetched value): for put, once the source may be reused; for get and fetching
// atomics, once the data or result is in place; for quiet, once everything issued before it is
// complete at its target. Return slots live with the ring (pinned host memory for GPUs), so a
// GPU thread and a CPU thread wait the same way; the proxy keeps a slot's ticket counted as
// unconsumed until its producer has read the return, so a later lap can never reuse it early.
#pragma once

#include "gshmem/device/amo_op.cuh"
#include "gshmem/device/context.cuh"
#include "gshmem/device/wait.cuh"

namespace gshmem::detail {

// PutValue/GetValue: one element of `bytes` (1 to 8) whose bits travel in `value` (put) or come
// back in the return slot (get).
enum class CmdOp : uint8_t {
  Put = 1,
  Get,
  Amo,
  Signal,
  PutSignal,
  Fence,
  Quiet,
  PutValue,
  GetValue
};

// Operand types of remote atomics as they travel in a command.
enum class AmoType : uint8_t { I32, U32, I64, U64, F32, F64 };

template <class T>
GSHMEM_HD constexpr AmoType amo_type_of() {
  if constexpr (sizeof(T) == 4) {
    return T(-1) < T(0) ? (T(0.5) != T(0) ? AmoType::F32 : AmoType::I32) : AmoType::U32;
  } else {
    return T(-1) < T(0) ? (T(0.5) != T(0) ? AmoType::F64 : AmoType::I64) : AmoType::U64;
  }
}

struct alignas(64) Command {
  uint64_t seq;  // ticket + 1, stored last with release
  CmdOp op;
  uint8_t segment;   // 0: heap, 1: static data
  uint8_t amo_op;    // AmoOp; PutSignal: the signal operation (GSHMEM_SIGNAL_*)
  uint8_t amo_type;  // AmoType; PutSignal: the signal's segment
  int32_t pe;
  uint64_t offset;  // remote offset in the segment
  uint64_t local;   // put source, get destination, fetched result
  uint64_t bytes;
  uint64_t value;    // atomic operand, signal value
  uint64_t cond;     // CompareSwap condition; PutSignal: the signal's offset
  uint64_t returns;  // 1: the producer waits on this ticket's return slot
};
static_assert(sizeof(Command) == 64, "one command per cache line");

struct alignas(16) Return {
  uint64_t tag;    // ticket + 1 once the command is done (see above)
  uint64_t value;  // a fetched value
};

struct ChannelDevice {
  Command* ring;
  Return* returns;             // one per ring slot
  uint64_t mask;               // capacity - 1 (capacity is a power of two)
  uint64_t* head;              // next ticket
  const uint64_t* consumed;    // slots before this ticket are free to reuse (taken, not held)
  const uint64_t* quiet_done;  // every ticket below this one is complete at its target
};

// Nothing was pushed since the last completed quiet: fence and quiet have nothing to do.
GSHMEM_HD GSHMEM_INLINE bool channel_idle(const ChannelDevice& ch) {
  return atomic_ref<uint64_t>(*ch.head).load(acquire) ==
         atomic_ref<uint64_t>(*const_cast<uint64_t*>(ch.quiet_done)).load(acquire);
}

template <class T>
GSHMEM_HD GSHMEM_INLINE uint64_t to_bits(T v) {
  uint64_t bits = 0;
  static_assert(sizeof(T) <= sizeof(uint64_t));
  __builtin_memcpy(&bits, &v, sizeof(T));
  return bits;
}
template <class T>
GSHMEM_HD GSHMEM_INLINE T from_bits(uint64_t bits) {
  T v;
  __builtin_memcpy(&v, &bits, sizeof(T));
  return v;
}

GSHMEM_HD GSHMEM_INLINE void require_channel(const DeviceContext& c, Site s, int pe) {
  if (!c.channel) bad_input(c, s, BadInput::NoTransport, nullptr, 0, pe);
}

// Enqueues one command (by one thread). Waits while the ring is full. Returns its ticket.
GSHMEM_HD inline uint64_t channel_push(const DeviceContext& c, const Command& cmd, Site s) {
  require_channel(c, s, cmd.pe);
  ChannelDevice& ch = *c.channel;
  uint64_t t = atomic_ref<uint64_t>(*ch.head).fetch_add(1, relaxed);
  auto room = [&] {
    return t - atomic_ref<uint64_t>(*const_cast<uint64_t*>(ch.consumed)).load(acquire) <= ch.mask;
  };
  wait_for(c, s, room);
  Command* slot = &ch.ring[t & ch.mask];
  slot->op = cmd.op;
  slot->segment = cmd.segment;
  slot->amo_op = cmd.amo_op;
  slot->amo_type = cmd.amo_type;
  slot->pe = cmd.pe;
  slot->offset = cmd.offset;
  slot->local = cmd.local;
  slot->bytes = cmd.bytes;
  slot->value = cmd.value;
  slot->cond = cmd.cond;
  slot->returns = cmd.returns;
  atomic_ref<uint64_t>(slot->seq).store(t + 1, release);
#if !GSHMEM_ON_DEVICE
  // A host producer issues its own command when no other thread runs the engine: no thread has
  // to be woken or scheduled for it (the proxy thread is background progress).
  host_drive(c, true);
#endif
  return t;
}

// Enqueues and waits for the proxy to complete the command; returns the fetched value, if any.
GSHMEM_HD inline uint64_t channel_call(const DeviceContext& c, Command cmd, Site s) {
  cmd.returns = 1;
  uint64_t t = channel_push(c, cmd, s);
  Return* r = &c.channel->returns[t & c.channel->mask];
  // The answer depends on the command's peer: a timeout names it.
  Site waiting = s;
  if (waiting.peer < 0 && cmd.op != CmdOp::Fence && cmd.op != CmdOp::Quiet) waiting.peer = cmd.pe;
  wait_for(c, waiting, [&] { return atomic_ref<uint64_t>(r->tag).load(acquire) == t + 1; });
  uint64_t value = r->value;
  // Read: the proxy may now hand this ticket's slots to a later command (see
  // ChannelHost::release_taken).
  atomic_ref<uint64_t>(r->tag).store(0, release);
  return value;
}

GSHMEM_HD GSHMEM_INLINE Command make_command(CmdOp op, Remote r, int pe) {
  Command cmd{};
  cmd.op = op;
  cmd.segment = uint8_t(r.segment);
  cmd.pe = pe;
  cmd.offset = r.offset;
  return cmd;
}

template <class G>
GSHMEM_HD GSHMEM_HOST_NOINLINE void channel_put(const DeviceContext& c, Remote r, const void* src,
                                                uint64_t bytes, int pe, bool blocking, Site s) {
  if (G::rank() == 0) {
    Command cmd = make_command(CmdOp::Put, r, pe);
    cmd.local = reinterpret_cast<uintptr_t>(src);
    cmd.bytes = bytes;
    if (blocking) {
      channel_call(c, cmd, s);
    } else {
      channel_push(c, cmd, s);
    }
  }
  G::sync();
}

template <class G>
GSHMEM_HD GSHMEM_HOST_NOINLINE void channel_get(const DeviceContext& c, Remote r, void* dst,
                                                uint64_t bytes, int pe, bool blocking, Site s) {
  if (G::rank() == 0) {
    Command cmd = make_command(CmdOp::Get, r, pe);
    cmd.local = reinterpret_cast<uintptr_t>(dst);
    cmd.bytes = bytes;
    if (blocking) {
      channel_call(c, cmd, s);
    } else {
      channel_push(c, cmd, s);
    }
  }
  G::sync();
}

// p to a proxied peer: the value is in the command, so p returns once it is queued.
template <class T>
GSHMEM_HD GSHMEM_HOST_NOINLINE void channel_put_value(const DeviceContext& c, Remote r, T value,
                                                      int pe, Site s) {
  static_assert(sizeof(T) <= sizeof(uint64_t));
  Command cmd = make_command(CmdOp::PutValue, r, pe);
  cmd.value = to_bits(value);
  cmd.bytes = sizeof(T);
  channel_push(c, cmd, s);
}

// g from a proxied peer: the value comes back in the return slot.
template <class T>
GSHMEM_HD GSHMEM_HOST_NOINLINE T channel_get_value(const DeviceContext& c, Remote r, int pe,
                                                   Site s) {
  static_assert(sizeof(T) <= sizeof(uint64_t));
  Command cmd = make_command(CmdOp::GetValue, r, pe);
  cmd.bytes = sizeof(T);
  return from_bits<T>(channel_call(c, cmd, s));
}

template <AmoOp Op>
GSHMEM_HD constexpr bool amo_fetches() {
  return Op == AmoOp::Fetch || Op == AmoOp::Swap || Op == AmoOp::CompareSwap ||
         Op == AmoOp::FetchAdd || Op == AmoOp::FetchInc || Op == AmoOp::FetchAnd ||
         Op == AmoOp::FetchOr || Op == AmoOp::FetchXor;
}

template <AmoOp Op, class T>
GSHMEM_HD GSHMEM_HOST_NOINLINE T channel_amo(const DeviceContext& c, Remote r, T value, T cond,
                                             int pe, Site s) {
  Command cmd = make_command(CmdOp::Amo, r, pe);
  cmd.amo_op = uint8_t(Op);
  cmd.amo_type = uint8_t(amo_type_of<T>());
  cmd.value = to_bits(Op == AmoOp::Inc || Op == AmoOp::FetchInc ? T(1) : value);
  cmd.cond = to_bits(cond);
  cmd.bytes = sizeof(T);
  if constexpr (amo_fetches<Op>()) {
    return from_bits<T>(channel_call(c, cmd, s));
  } else {
    channel_push(c, cmd, s);
    return T();
  }
}

GSHMEM_HD GSHMEM_HOST_NOINLINE inline void channel_signal(const DeviceContext& c, Remote r,
                                                          uint64_t value, int op, int pe, Site s) {
  Command cmd = make_command(CmdOp::Signal, r, pe);
  cmd.amo_op = uint8_t(op);
  cmd.value = value;
  cmd.bytes = sizeof(uint64_t);
  channel_push(c, cmd, s);
}

template <class G>
GSHMEM_HD GSHMEM_HOST_NOINLINE void channel_put_signal(const DeviceContext& c, Remote data,
                                                       const void* src, uint64_t bytes, Remote sig,
                                                       uint64_t value, int op, int pe,
                                                       bool blocking, Site s) {
  if (G::rank() == 0) {
    Command cmd = make_command(CmdOp::PutSignal, data, pe);
    cmd.local = reinterpret_cast<uintptr_t>(src);
    cmd.bytes = bytes;
    cmd.amo_op = uint8_t(op);
    cmd.amo_type = uint8_t(sig.segment);
    cmd.value = value;
    cmd.cond = sig.offset;
    if (blocking) {
      channel_call(c, cmd, s);
    } else {
      channel_push(c, cmd, s);
    }
  }
  G::sync();
}

GSHMEM_HD inline void channel_fence(const DeviceContext& c) {
  if (channel_idle(*c.channel)) return;
  Command cmd{};
  cmd.op = CmdOp::Fence;
  channel_push(c, cmd, {"gshmem_fence"});
}

GSHMEM_HD inline void channel_quiet(const DeviceContext& c) {
  if (channel_idle(*c.channel)) return;
  Command cmd{};
  cmd.op = CmdOp::Quiet;
  channel_call(c, cmd, {"gshmem_quiet"});
}

}  // namespace gshmem::detail
