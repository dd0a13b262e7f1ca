// Remote atomic memory operations, by one thread.
//
// Contract: each operation is atomic with respect to every other gshmem atomic on the same object,
// from any PE. No ordering with other operations is implied (relaxed); use fence or quiet to order.
// Fetching forms return the value before the operation.
#pragma once

#include "gshmem/device/amo_op.cuh"
#include "gshmem/device/channel.cuh"
#include "gshmem/device/context.cuh"

namespace gshmem {

namespace detail {

// Applies Op to a location this thread can address (a mapped peer's copy, or the proxy applying
// an emulated atomic on its own heap).
template <AmoOp Op, class T>
GSHMEM_HD GSHMEM_INLINE T amo_apply(T* p, T value, T cond) {
  atomic_ref<T> a(*p);
  if constexpr (Op == AmoOp::Fetch) {
    return a.load(relaxed);
  } else if constexpr (Op == AmoOp::Set) {
    a.store(value, relaxed);
    return T();
  } else if constexpr (Op == AmoOp::Swap) {
    return a.exchange(value, relaxed);
  } else if constexpr (Op == AmoOp::CompareSwap) {
    a.compare_exchange_strong(cond, value, relaxed);
    return cond;
  } else if constexpr (Op == AmoOp::FetchAdd || Op == AmoOp::Add) {
    return a.fetch_add(value, relaxed);
  } else if constexpr (Op == AmoOp::FetchInc || Op == AmoOp::Inc) {
    return a.fetch_add(T(1), relaxed);
  } else if constexpr (Op == AmoOp::FetchAnd || Op == AmoOp::And) {
    return a.fetch_and(value, relaxed);
  } else if constexpr (Op == AmoOp::FetchOr || Op == AmoOp::Or) {
    return a.fetch_or(value, relaxed);
  } else {
    static_assert(Op == AmoOp::FetchXor || Op == AmoOp::Xor);
    return a.fetch_xor(value, relaxed);
  }
}

}  // namespace detail

// The one entry point of the family: atomic<AmoOp::FetchAdd>(c, dst, 5, 0, pe) and so on.
// `cond` is used by CompareSwap only.
template <AmoOp Op, class T>
GSHMEM_HD GSHMEM_INLINE T atomic(const DeviceContext& c, T* dst, T value, T cond, int pe,
                                 Site s = {"gshmem_atomic"}) {
  static_assert(sizeof(T) == 4 || sizeof(T) == 8, "gshmem atomics are 32- or 64-bit");
  Site at = s.with(Op == AmoOp::Fetch ? "source" : "dest");
  if (detail::checks_on(c) && (reinterpret_cast<uintptr_t>(dst) % sizeof(T)) != 0) {
    detail::bad_input(c, at, BadInput::Misaligned, dst, sizeof(T), pe);
  }
  Remote r = resolve(c, dst, sizeof(T), pe, at);
  if (r.ptr) return detail::amo_apply<Op>(reinterpret_cast<T*>(r.ptr), value, cond);
  return detail::channel_amo<Op>(c, r, value, cond, pe, s);
}

}  // namespace gshmem
