// The one-thread kernel behind host calls on a device heap (and the on-stream calls): the host
// cannot load or store GPU memory, so it runs the same device-API code a kernel would, on one
// GPU thread, with the kernel-usable context. Arguments were validated on the host already.
#include <cuda_runtime_api.h>

#include "gshmem/device.cuh"
#include "host/cuda/gpu.hpp"

namespace gshmem::gpu {

namespace {

// Device-side names for messages a wait may print (host strings are not readable here).
__device__ Site site_of(OpKind k) {
  switch (k) {
    case OpKind::Put:
      return {"gshmem_putmem (host call)"};
    case OpKind::Get:
      return {"gshmem_getmem (host call)"};
    case OpKind::PutSignal:
      return {"gshmem_putmem_signal (host call)"};
    case OpKind::Amo:
      return {"gshmem atomic (host call)"};
    case OpKind::SignalOp:
      return {"gshmem_signal_op (host call)"};
    case OpKind::SignalWait:
      return {"gshmem_signal_wait_until (host call)"};
    case OpKind::WaitUntil:
      return {"gshmem_wait_until (host call)"};
    case OpKind::Test:
      return {"gshmem_test (host call)"};
    case OpKind::Fence:
      return {"gshmem_fence (host call)"};
    case OpKind::Quiet:
      return {"gshmem_quiet (host call)"};
    case OpKind::BarrierAll:
      return {"gshmem_barrier_all (host call)"};
    case OpKind::SyncAll:
      return {"gshmem_sync_all (host call)"};
    case OpKind::Barrier:
      return {"gshmem_barrier (host call)"};
    case OpKind::TeamSync:
      return {"gshmem_team_sync (host call)"};
    case OpKind::P:
      return {"gshmem_p_on_stream"};
  }
  return {"gshmem (host call)"};
}

template <AmoOp Op, class T>
__device__ uint64_t amo(const DeviceContext& c, const DeviceOp& op, Site s) {
  T v = detail::from_bits<T>(op.value), cond = detail::from_bits<T>(op.cond);
  return detail::to_bits(atomic<Op>(c, static_cast<T*>(op.dst), v, cond, op.pe, s));
}

template <class T>
__device__ uint64_t amo_typed(const DeviceContext& c, const DeviceOp& op, Site s) {
  constexpr bool is_float = T(0.5) != T(0);
  switch (AmoOp(op.amo_op)) {
    case AmoOp::Fetch:
      return amo<AmoOp::Fetch, T>(c, op, s);
    case AmoOp::Set:
      return amo<AmoOp::Set, T>(c, op, s);
    case AmoOp::Swap:
      return amo<AmoOp::Swap, T>(c, op, s);
    default:
      break;
  }
  if constexpr (!is_float) {
    switch (AmoOp(op.amo_op)) {
      case AmoOp::CompareSwap:
        return amo<AmoOp::CompareSwap, T>(c, op, s);
      case AmoOp::FetchAdd:
        return amo<AmoOp::FetchAdd, T>(c, op, s);
      case AmoOp::Add:
        return amo<AmoOp::Add, T>(c, op, s);
      case AmoOp::FetchInc:
        return amo<AmoOp::FetchInc, T>(c, op, s);
      case AmoOp::Inc:
        return amo<AmoOp::Inc, T>(c, op, s);
      case AmoOp::FetchAnd:
        return amo<AmoOp::FetchAnd, T>(c, op, s);
      case AmoOp::And:
        return amo<AmoOp::And, T>(c, op, s);
      case AmoOp::FetchOr:
        return amo<AmoOp::FetchOr, T>(c, op, s);
      case AmoOp::Or:
        return amo<AmoOp::Or, T>(c, op, s);
      case AmoOp::FetchXor:
        return amo<AmoOp::FetchXor, T>(c, op, s);
      case AmoOp::Xor:
        return amo<AmoOp::Xor, T>(c, op, s);
      default:
        break;
    }
  }
  return 0;
}

template <class T>
__device__ uint64_t wait_typed(const DeviceContext& c, const DeviceOp& op, Site s) {
  T v = detail::from_bits<T>(op.value);
  const T* ivar = static_cast<const T*>(op.dst);
  if (op.kind == OpKind::Test) return gshmem::test(c, ivar, op.cmp, v, s) ? 1 : 0;
  gshmem::wait_until(c, ivar, op.cmp, v, s);
  return 0;
}

// Narrow: the 16-bit types too (waits); atomics are 32- and 64-bit only.
template <template <class> class F, bool Narrow>
__device__ uint64_t by_type(const DeviceContext& c, const DeviceOp& op, Site s) {
  switch (op.type) {
    case ValType::I16:
      if constexpr (Narrow) return F<int16_t>::run(c, op, s);
      break;
    case ValType::U16:
      if constexpr (Narrow) return F<uint16_t>::run(c, op, s);
      break;
    case ValType::I32:
      return F<int32_t>::run(c, op, s);
    case ValType::U32:
      return F<uint32_t>::run(c, op, s);
    case ValType::I64:
      return F<int64_t>::run(c, op, s);
    case ValType::U64:
      return F<uint64_t>::run(c, op, s);
    case ValType::F32:
      return F<float>::run(c, op, s);
    case ValType::F64:
      return F<double>::run(c, op, s);
  }
  return 0;
}

template <class T>
struct AmoF {
  __device__ static uint64_t run(const DeviceContext& c, const DeviceOp& op, Site s) {
    return amo_typed<T>(c, op, s);
  }
};
template <class T>
struct WaitF {
  __device__ static uint64_t run(const DeviceContext& c, const DeviceOp& op, Site s) {
    if constexpr (T(0.5) != T(0)) {
      return 0;  // the wait family has no floating-point types
    } else {
      return wait_typed<T>(c, op, s);
    }
  }
};

__global__ void host_op_kernel(DeviceContext c, DeviceOp op, uint64_t* result) {
  Site s = site_of(op.kind);
  uint64_t out = 0;
  switch (op.kind) {
    case OpKind::Put:
      putmem(c, op.dst, op.src, op.bytes, op.pe, s);
      break;
    case OpKind::Get:
      getmem(c, op.dst, op.src, op.bytes, op.pe, s);
      break;
    case OpKind::PutSignal:
      putmem_signal(c, op.dst, op.src, op.bytes, op.sig, op.value, op.sig_op, op.pe, s);
      break;
    case OpKind::Amo:
      out = by_type<AmoF, false>(c, op, s);
      break;
    case OpKind::SignalOp:
      signal_op(c, op.sig, op.value, op.sig_op, op.pe, s);
      break;
    case OpKind::SignalWait:
      out = signal_wait_until(c, op.sig, op.cmp, op.value, s);
      break;
    case OpKind::WaitUntil:
    case OpKind::Test:
      out = by_type<WaitF, true>(c, op, s);
      break;
    case OpKind::Fence:
      fence(c);
      break;
    case OpKind::Quiet:
      quiet(c);
      break;
    case OpKind::BarrierAll:
      barrier_all(c, s);
      break;
    case OpKind::SyncAll:
      sync_all(c, s);
      break;
    case OpKind::Barrier:
      barrier(c, op.team, s);
      break;
    case OpKind::TeamSync:
      team_sync(c, op.team, s);
      break;
    case OpKind::P:  // one element by its width; its bits came with the operation
      if (op.bytes == 1) {
        p(c, static_cast<uint8_t*>(op.dst), uint8_t(op.value), op.pe, s);
      } else if (op.bytes == 2) {
        p(c, static_cast<uint16_t*>(op.dst), uint16_t(op.value), op.pe, s);
      } else if (op.bytes == 4) {
        p(c, static_cast<uint32_t*>(op.dst), uint32_t(op.value), op.pe, s);
      } else {
        p(c, static_cast<uint64_t*>(op.dst), op.value, op.pe, s);
      }
      break;
  }
  if (result) detail::atomic_ref<uint64_t>(*result).store(out, detail::release);
}

[[maybe_unused]] const bool registered =
    (register_kernel(reinterpret_cast<const void*>(&host_op_kernel), "the host-call kernel"), true);

}  // namespace

void launch_op(const DeviceContext& dctx, const DeviceOp& op, uint64_t* result, void* stream) {
  host_op_kernel<<<1, 1, 0, static_cast<cudaStream_t>(stream)>>>(dctx, op, result);
}

}  // namespace gshmem::gpu
