// The one path of every host call on the symmetric heap: the C API (host/api) and the OpenSHMEM
// layer (host/shmem) are each one call into these functions, which finish the call themselves.
//
// Which code runs is decided once, at init, and kept in the context (kCtxGpuHeap): on a host heap
// each function is the plain __host__ __device__ code of gshmem/device/*.cuh, inlined. On a GPU
// heap the host must not load or store heap memory, so a call whose target is GPU memory mapped
// here becomes copies on the PE's internal stream (cudaMemcpy) or the same device-API code in
// the one-thread kernel (host/cuda/ops.cu); the rest (peers reached through the proxy channel, the
// program's static data, which stays in host memory) run the plain code.
//
// Contracts are those of the C API (gshmem/gshmem.h): blocking forms return complete as the call
// promises; _nbi copies on a GPU heap stay pending on the internal stream until quiet (or a
// barrier).
#pragma once

#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "gshmem/device.cuh"
#include "gshmem/gshmem.hpp"
#include "host/cuda/gpu.hpp"

namespace gshmem {
struct TeamCalls;  // host/team/teams.hpp
}  // namespace gshmem

namespace gshmem::hostops {

// The heap is GPU memory (decided at init).
GSHMEM_INLINE bool gpu_heap(const DeviceContext& c) {
  return c.flags & kCtxGpuHeap;
}

// ---- The GPU heap's side ---------------------------------------------------------------------
// Each returns true when it did the call, false when the plain code is right (the target is not
// GPU memory mapped here). Reached only when gpu_heap(c).
namespace on_gpu {

// The PE's GPU queue when its heap is in GPU memory, else nullptr. Never set without CUDA.
#if GSHMEM_HAVE_CUDA
gpu::Queue* queue_of(const DeviceContext& c);
#else
inline gpu::Queue* queue_of(const DeviceContext&) {
  return nullptr;
}
#endif

[[gnu::cold]] bool putmem(const DeviceContext& c, void* dst, const void* src, uint64_t bytes,
                          int pe, bool nbi, Site s);
[[gnu::cold]] bool getmem(const DeviceContext& c, void* dst, const void* src, uint64_t bytes,
                          int pe, bool nbi, Site s);
[[gnu::cold]] bool putmem_signal(const DeviceContext& c, void* dst, const void* src, uint64_t bytes,
                                 uint64_t* sig, uint64_t value, int sig_op, int pe, bool nbi,
                                 Site s);
// Strided, element size `elem`, strides in elements (already validated).
[[gnu::cold]] bool strided(const DeviceContext& c, bool is_put, void* dst, const void* src,
                           size_t elem, ptrdiff_t dst_stride, ptrdiff_t src_stride, size_t nelems,
                           int pe, Site s);
[[gnu::cold]] bool signal_op(const DeviceContext& c, uint64_t* sig, uint64_t value, int sig_op,
                             int pe, Site s);
[[gnu::cold]] bool signal_fetch(const DeviceContext& c, const uint64_t* sig, Site s, uint64_t* out);
[[gnu::cold]] bool signal_wait_until(const DeviceContext& c, uint64_t* sig, int cmp, uint64_t value,
                                     Site s, uint64_t* out);
// Everything issued on the internal stream is complete.
[[gnu::cold]] void sync(const DeviceContext& c);
[[gnu::cold]] bool barrier_all(const DeviceContext& c, Site s);
[[gnu::cold]] bool sync_all(const DeviceContext& c, Site s);
[[gnu::cold]] bool barrier(const DeviceContext& c, gshmem_team_t team, Site s);
[[gnu::cold]] bool team_sync(const DeviceContext& c, gshmem_team_t team, Site s);

namespace detail {
// Validates addr (elem bytes on pe, aligned when `aligned`) as the host code would; true when it
// is GPU memory mapped here, i.e. the one-thread kernel must do the call.
bool gpu_target(const DeviceContext& c, const void* addr, size_t elem, int pe, bool aligned,
                Site s);
// Runs one call in the one-thread kernel on the internal stream, waits, returns its result.
uint64_t run(gpu::Queue& q, const gpu::DeviceOp& op);
}  // namespace detail

// Typed forms

template <class T>
[[gnu::cold, gnu::noinline]] bool put(const DeviceContext& c, T* dst, const T* src, size_t nelems,
                                      int pe, bool nbi, Site s) {
  if (!queue_of(c)) return false;
  return putmem(c, dst, src, ::gshmem::detail::elems_to_bytes<T>(c, s, dst, nelems), pe, nbi, s);
}
template <class T>
[[gnu::cold, gnu::noinline]] bool get(const DeviceContext& c, T* dst, const T* src, size_t nelems,
                                      int pe, bool nbi, Site s) {
  if (!queue_of(c)) return false;
  return getmem(c, dst, src, ::gshmem::detail::elems_to_bytes<T>(c, s, src, nelems), pe, nbi, s);
}
template <class T>
[[gnu::cold, gnu::noinline]] bool put_signal(const DeviceContext& c, T* dst, const T* src,
                                             size_t nelems, uint64_t* sig, uint64_t value,
                                             int sig_op, int pe, bool nbi, Site s) {
  if (!queue_of(c)) return false;
  return putmem_signal(c, dst, src, ::gshmem::detail::elems_to_bytes<T>(c, s, dst, nelems), sig,
                       value, sig_op, pe, nbi, s);
}
template <class T>
[[gnu::cold, gnu::noinline]] bool iput(const DeviceContext& c, T* dst, const T* src,
                                       ptrdiff_t dst_stride, ptrdiff_t src_stride, size_t nelems,
                                       int pe, Site s) {
  if (!queue_of(c)) return false;
  if (nelems == 0) return true;
  ::gshmem::detail::strided_bytes<T>(c, s, src, nelems, src_stride);
  ::gshmem::detail::strided_bytes<T>(c, s, dst, nelems, dst_stride);
  return strided(c, true, dst, src, sizeof(T), dst_stride, src_stride, nelems, pe, s);
}
template <class T>
[[gnu::cold, gnu::noinline]] bool iget(const DeviceContext& c, T* dst, const T* src,
                                       ptrdiff_t dst_stride, ptrdiff_t src_stride, size_t nelems,
                                       int pe, Site s) {
  if (!queue_of(c)) return false;
  if (nelems == 0) return true;
  ::gshmem::detail::strided_bytes<T>(c, s, dst, nelems, dst_stride);
  ::gshmem::detail::strided_bytes<T>(c, s, src, nelems, src_stride);
  return strided(c, false, dst, src, sizeof(T), dst_stride, src_stride, nelems, pe, s);
}
template <class T>
[[gnu::cold, gnu::noinline]] bool p(const DeviceContext& c, T* dst, T value, int pe, Site s) {
  // Blocking: the value lives on this stack frame.
  return queue_of(c) && putmem(c, dst, &value, sizeof(T), pe, false, s);
}
template <class T>
[[gnu::cold, gnu::noinline]] bool g(const DeviceContext& c, const T* src, int pe, Site s, T* out) {
  return queue_of(c) && getmem(c, out, src, sizeof(T), pe, false, s);
}

template <AmoOp Op, class T>
[[gnu::cold, gnu::noinline]] bool atomic(const DeviceContext& c, T* dst, T value, T cond, int pe,
                                         Site s, T* out) {
  gpu::Queue* q = queue_of(c);
  if (!q || !detail::gpu_target(c, dst, sizeof(T), pe, true, s)) return false;
  gpu::DeviceOp op{};
  op.kind = gpu::OpKind::Amo;
  op.type = gpu::val_type_of<T>();
  op.amo_op = uint8_t(Op);
  op.pe = pe;
  op.dst = dst;
  op.value = ::gshmem::detail::to_bits(value);
  op.cond = ::gshmem::detail::to_bits(cond);
  *out = ::gshmem::detail::from_bits<T>(detail::run(*q, op));
  return true;
}

template <class T>
[[gnu::cold, gnu::noinline]] bool wait_until(const DeviceContext& c, T* ivar, int cmp, T value,
                                             Site s) {
  gpu::Queue* q = queue_of(c);
  if (!q) return false;
  ::gshmem::detail::check_cmp(c, s, ivar, cmp);
  if (!detail::gpu_target(c, ivar, sizeof(T), c.my_pe, true, s)) return false;
  gpu::DeviceOp op{};
  op.kind = gpu::OpKind::WaitUntil;
  op.type = gpu::val_type_of<T>();
  op.cmp = int8_t(cmp);
  op.pe = c.my_pe;
  op.dst = ivar;
  op.value = ::gshmem::detail::to_bits(value);
  detail::run(*q, op);
  return true;
}

template <class T>
[[gnu::cold, gnu::noinline]] bool test(const DeviceContext& c, T* ivar, int cmp, T value, Site s,
                                       bool* out) {
  gpu::Queue* q = queue_of(c);
  if (!q) return false;
  ::gshmem::detail::check_cmp(c, s, ivar, cmp);
  if (!detail::gpu_target(c, ivar, sizeof(T), c.my_pe, true, s)) return false;
  gpu::DeviceOp op{};
  op.kind = gpu::OpKind::Test;
  op.type = gpu::val_type_of<T>();
  op.cmp = int8_t(cmp);
  op.pe = c.my_pe;
  op.dst = ivar;
  op.value = ::gshmem::detail::to_bits(value);
  *out = detail::run(*q, op) != 0;
  return true;
}

// The array forms on a GPU heap: element by element through test(), polling with back-off
// (host calls on a GPU heap favour being correct over being fast; kernels wait in place).
// Value is ::gshmem::detail::Same<T> or Each<T>. Semantics as gshmem/device/wait_until.cuh.
enum class Scan { All, Any, Some };
void poll_pause(const DeviceContext& c, uint64_t started_ns, Site s);

template <class T, class Value>
[[gnu::cold, gnu::noinline]] size_t scan(const DeviceContext& c, T* ivars, size_t n,
                                         size_t* indices, const int* status, int cmp, Value value,
                                         Site s, bool* eligible, bool stop_at_first) {
  size_t count = 0;
  *eligible = false;
  for (size_t i = 0; i < n; ++i) {
    if (status && status[i]) continue;
    *eligible = true;
    bool holds = false;
    test(c, ivars + i, cmp, T(value(i)), s, &holds);
    if (!holds) continue;
    if (indices) indices[count] = i;
    ++count;
    if (stop_at_first) return i;
  }
  return stop_at_first ? SIZE_MAX : count;
}

template <class T, class Value>
[[gnu::cold, gnu::noinline]] bool wait_array(const DeviceContext& c, Scan kind, bool block,
                                             T* ivars, size_t n, size_t* indices, const int* status,
                                             int cmp, Value value, Site s, size_t* out) {
  if (!queue_of(c)) return false;
  ::gshmem::detail::check_cmp(c, s, ivars, cmp);
  if (n == 0 || !detail::gpu_target(c, ivars, sizeof(T) * n, c.my_pe, true, s)) return false;
  if (kind == Scan::All) {
    bool all = true;
    for (size_t i = 0; i < n; ++i) {
      if (status && status[i]) continue;
      if (block) {
        wait_until(c, ivars + i, cmp, T(value(i)), s);
      } else {
        bool holds = false;
        test(c, ivars + i, cmp, T(value(i)), s, &holds);
        all = all && holds;
      }
    }
    *out = all ? 1 : 0;
    return true;
  }
  uint64_t started = ::gshmem::detail::now_ns();
  for (;;) {
    bool eligible = false;
    size_t r = scan(c, ivars, n, indices, status, cmp, value, s, &eligible, kind == Scan::Any);
    bool found = kind == Scan::Any ? r != SIZE_MAX : r != 0;
    if (found || !eligible || !block) {
      *out = r;
      return true;
    }
    poll_pause(c, started, s);
  }
}

// Reports a failure of a host call the way every host call does (the device API's slow paths
// too): through c's runtime, which throws in GSHMEMX_ERROR_THROW mode and otherwise ends the job
// naming this PE.
[[noreturn]] void fail(const DeviceContext& c, const Error& e);

// The whole call on a GPU heap, out of line: `gpu` does it when it applies (returns true; a
// result comes back through its pointer), else the plain code runs. Because the call ends here,
// the host heap's inline path keeps nothing live across it. A CUDA failure (an Error thrown by
// host/cuda) is reported like bad input, never let out of a C function.
template <class Gpu, class Plain>
[[gnu::cold, gnu::noinline]] auto finish(const DeviceContext& c, Gpu gpu, Plain plain) {
  using R = decltype(plain());
  try {
    if constexpr (std::is_void_v<R>) {
      if (!gpu()) plain();
    } else {
      R out{};
      if (gpu(&out)) return out;
      return plain();
    }
  } catch (const Error& e) {
    fail(c, e);
  }
}

}  // namespace on_gpu

// ---- The calls ---------------------------------------------------------------------------------
// Each: on a GPU heap the whole call goes to on_gpu::finish; otherwise the plain code, inline.
// The closures capture the arguments by value (the context by reference) and exist only in that
// branch, so the inline path's arguments stay in registers.

// RMA
GSHMEM_INLINE void putmem(const DeviceContext& c, void* dst, const void* src, uint64_t bytes,
                          int pe, Site s) {
  if (gpu_heap(c)) [[unlikely]]
    return on_gpu::finish(
        c, [=, &c] { return on_gpu::putmem(c, dst, src, bytes, pe, false, s); },
        [=, &c] { gshmem::putmem(c, dst, src, bytes, pe, s); });
  gshmem::putmem(c, dst, src, bytes, pe, s);
}
GSHMEM_INLINE void putmem_nbi(const DeviceContext& c, void* dst, const void* src, uint64_t bytes,
                              int pe, Site s) {
  if (gpu_heap(c)) [[unlikely]]
    return on_gpu::finish(
        c, [=, &c] { return on_gpu::putmem(c, dst, src, bytes, pe, true, s); },
        [=, &c] { gshmem::putmem_nbi(c, dst, src, bytes, pe, s); });
  gshmem::putmem_nbi(c, dst, src, bytes, pe, s);
}
GSHMEM_INLINE void getmem(const DeviceContext& c, void* dst, const void* src, uint64_t bytes,
                          int pe, Site s) {
  if (gpu_heap(c)) [[unlikely]]
    return on_gpu::finish(
        c, [=, &c] { return on_gpu::getmem(c, dst, src, bytes, pe, false, s); },
        [=, &c] { gshmem::getmem(c, dst, src, bytes, pe, s); });
  gshmem::getmem(c, dst, src, bytes, pe, s);
}
GSHMEM_INLINE void getmem_nbi(const DeviceContext& c, void* dst, const void* src, uint64_t bytes,
                              int pe, Site s) {
  if (gpu_heap(c)) [[unlikely]]
    return on_gpu::finish(
        c, [=, &c] { return on_gpu::getmem(c, dst, src, bytes, pe, true, s); },
        [=, &c] { gshmem::getmem_nbi(c, dst, src, bytes, pe, s); });
  gshmem::getmem_nbi(c, dst, src, bytes, pe, s);
}
GSHMEM_INLINE void putmem_signal(const DeviceContext& c, void* dst, const void* src, uint64_t bytes,
                                 uint64_t* sig, uint64_t value, int sig_op, int pe, Site s) {
  if (gpu_heap(c)) [[unlikely]]
    return on_gpu::finish(
        c,
        [=, &c] {
          return on_gpu::putmem_signal(c, dst, src, bytes, sig, value, sig_op, pe, false, s);
        },
        [=, &c] { gshmem::putmem_signal(c, dst, src, bytes, sig, value, sig_op, pe, s); });
  gshmem::putmem_signal(c, dst, src, bytes, sig, value, sig_op, pe, s);
}
GSHMEM_INLINE void putmem_signal_nbi(const DeviceContext& c, void* dst, const void* src,
                                     uint64_t bytes, uint64_t* sig, uint64_t value, int sig_op,
                                     int pe, Site s) {
  if (gpu_heap(c)) [[unlikely]]
    return on_gpu::finish(
        c,
        [=, &c] {
          return on_gpu::putmem_signal(c, dst, src, bytes, sig, value, sig_op, pe, true, s);
        },
        [=, &c] { gshmem::putmem_signal_nbi(c, dst, src, bytes, sig, value, sig_op, pe, s); });
  gshmem::putmem_signal_nbi(c, dst, src, bytes, sig, value, sig_op, pe, s);
}
template <class T>
GSHMEM_INLINE void put(const DeviceContext& c, T* dst, const T* src, size_t n, int pe, Site s) {
  if (gpu_heap(c)) [[unlikely]]
    return on_gpu::finish(
        c, [=, &c] { return on_gpu::put(c, dst, src, n, pe, false, s); },
        [=, &c] { gshmem::put(c, dst, src, n, pe, s); });
  gshmem::put(c, dst, src, n, pe, s);
}
template <class T>
GSHMEM_INLINE void put_nbi(const DeviceContext& c, T* dst, const T* src, size_t n, int pe, Site s) {
  if (gpu_heap(c)) [[unlikely]]
    return on_gpu::finish(
        c, [=, &c] { return on_gpu::put(c, dst, src, n, pe, true, s); },
        [=, &c] { gshmem::put_nbi(c, dst, src, n, pe, s); });
  gshmem::put_nbi(c, dst, src, n, pe, s);
}
template <class T>
GSHMEM_INLINE void get(const DeviceContext& c, T* dst, const T* src, size_t n, int pe, Site s) {
  if (gpu_heap(c)) [[unlikely]]
    return on_gpu::finish(
        c, [=, &c] { return on_gpu::get(c, dst, src, n, pe, false, s); },
        [=, &c] { gshmem::get(c, dst, src, n, pe, s); });
  gshmem::get(c, dst, src, n, pe, s);
}
template <class T>
GSHMEM_INLINE void get_nbi(const DeviceContext& c, T* dst, const T* src, size_t n, int pe, Site s) {
  if (gpu_heap(c)) [[unlikely]]
    return on_gpu::finish(
        c, [=, &c] { return on_gpu::get(c, dst, src, n, pe, true, s); },
        [=, &c] { gshmem::get_nbi(c, dst, src, n, pe, s); });
  gshmem::get_nbi(c, dst, src, n, pe, s);
}
template <class T>
GSHMEM_INLINE void p(const DeviceContext& c, T* dst, T value, int pe, Site s) {
  if (gpu_heap(c)) [[unlikely]]
    return on_gpu::finish(
        c, [=, &c] { return on_gpu::p(c, dst, value, pe, s); },
        [=, &c] { gshmem::p(c, dst, value, pe, s); });
  gshmem::p(c, dst, value, pe, s);
}
template <class T>
GSHMEM_INLINE T g(const DeviceContext& c, const T* src, int pe, Site s) {
  if (gpu_heap(c)) [[unlikely]]
    return on_gpu::finish(
        c, [=, &c](T* out) { return on_gpu::g(c, src, pe, s, out); },
        [=, &c] { return gshmem::g(c, src, pe, s); });
  return gshmem::g(c, src, pe, s);
}
template <class T>
GSHMEM_INLINE void iput(const DeviceContext& c, T* dst, const T* src, ptrdiff_t dst_stride,
                        ptrdiff_t src_stride, size_t n, int pe, Site s) {
  if (gpu_heap(c)) [[unlikely]]
    return on_gpu::finish(
        c, [=, &c] { return on_gpu::iput(c, dst, src, dst_stride, src_stride, n, pe, s); },
        [=, &c] { gshmem::iput(c, dst, src, dst_stride, src_stride, n, pe, s); });
  gshmem::iput(c, dst, src, dst_stride, src_stride, n, pe, s);
}
template <class T>
GSHMEM_INLINE void iget(const DeviceContext& c, T* dst, const T* src, ptrdiff_t dst_stride,
                        ptrdiff_t src_stride, size_t n, int pe, Site s) {
  if (gpu_heap(c)) [[unlikely]]
    return on_gpu::finish(
        c, [=, &c] { return on_gpu::iget(c, dst, src, dst_stride, src_stride, n, pe, s); },
        [=, &c] { gshmem::iget(c, dst, src, dst_stride, src_stride, n, pe, s); });
  gshmem::iget(c, dst, src, dst_stride, src_stride, n, pe, s);
}
template <class T>
GSHMEM_INLINE void put_signal(const DeviceContext& c, T* dst, const T* src, size_t n, uint64_t* sig,
                              uint64_t value, int sig_op, int pe, Site s) {
  if (gpu_heap(c)) [[unlikely]]
    return on_gpu::finish(
        c, [=, &c] { return on_gpu::put_signal(c, dst, src, n, sig, value, sig_op, pe, false, s); },
        [=, &c] { gshmem::put_signal(c, dst, src, n, sig, value, sig_op, pe, s); });
  gshmem::put_signal(c, dst, src, n, sig, value, sig_op, pe, s);
}
template <class T>
GSHMEM_INLINE void put_signal_nbi(const DeviceContext& c, T* dst, const T* src, size_t n,
                                  uint64_t* sig, uint64_t value, int sig_op, int pe, Site s) {
  if (gpu_heap(c)) [[unlikely]]
    return on_gpu::finish(
        c, [=, &c] { return on_gpu::put_signal(c, dst, src, n, sig, value, sig_op, pe, true, s); },
        [=, &c] { gshmem::put_signal_nbi(c, dst, src, n, sig, value, sig_op, pe, s); });
  gshmem::put_signal_nbi(c, dst, src, n, sig, value, sig_op, pe, s);
}
// Atomics: every AmoOp; `cond` is the compare-swap condition, the result the fetched value.
template <AmoOp Op, class T>
GSHMEM_INLINE T atomic(const DeviceContext& c, T* dst, T value, T cond, int pe, Site s) {
  if (gpu_heap(c)) [[unlikely]]
    return on_gpu::finish(
        c, [=, &c](T* out) { return on_gpu::atomic<Op>(c, dst, value, cond, pe, s, out); },
        [=, &c] { return gshmem::atomic<Op>(c, dst, value, cond, pe, s); });
  return gshmem::atomic<Op>(c, dst, value, cond, pe, s);
}
// Signals
GSHMEM_INLINE void signal_op(const DeviceContext& c, uint64_t* sig, uint64_t value, int sig_op,
                             int pe, Site s) {
  if (gpu_heap(c)) [[unlikely]]
    return on_gpu::finish(
        c, [=, &c] { return on_gpu::signal_op(c, sig, value, sig_op, pe, s); },
        [=, &c] { gshmem::signal_op(c, sig, value, sig_op, pe, s); });
  gshmem::signal_op(c, sig, value, sig_op, pe, s);
}
GSHMEM_INLINE uint64_t signal_fetch(const DeviceContext& c, const uint64_t* sig, Site s) {
  if (gpu_heap(c)) [[unlikely]]
    return on_gpu::finish(
        c, [=, &c](uint64_t* out) { return on_gpu::signal_fetch(c, sig, s, out); },
        [=, &c] { return gshmem::signal_fetch(c, sig); });
  return gshmem::signal_fetch(c, sig);
}
GSHMEM_INLINE uint64_t signal_wait_until(const DeviceContext& c, uint64_t* sig, int cmp,
                                         uint64_t value, Site s) {
  if (gpu_heap(c)) [[unlikely]]
    return on_gpu::finish(
        c, [=, &c](uint64_t* out) { return on_gpu::signal_wait_until(c, sig, cmp, value, s, out); },
        [=, &c] { return gshmem::signal_wait_until(c, sig, cmp, value, s); });
  return gshmem::signal_wait_until(c, sig, cmp, value, s);
}
// Point-to-point waits. Value is gshmem::detail::Same<T> or Each<T> (gshmem/device/wait_until.cuh).
template <class T>
GSHMEM_INLINE void wait_until(const DeviceContext& c, T* ivar, int cmp, T value, Site s) {
  if (gpu_heap(c)) [[unlikely]]
    return on_gpu::finish(
        c, [=, &c] { return on_gpu::wait_until(c, ivar, cmp, value, s); },
        [=, &c] { gshmem::wait_until(c, ivar, cmp, value, s); });
  gshmem::wait_until(c, ivar, cmp, value, s);
}
template <class T>
GSHMEM_INLINE bool test(const DeviceContext& c, T* ivar, int cmp, T value, Site s) {
  if (gpu_heap(c)) [[unlikely]]
    return on_gpu::finish(
        c, [=, &c](bool* out) { return on_gpu::test(c, ivar, cmp, value, s, out); },
        [=, &c] { return gshmem::test(c, ivar, cmp, value, s); });
  return gshmem::test(c, ivar, cmp, value, s);
}
template <class T, class Value>
void wait_all(const DeviceContext& c, T* ivars, size_t n, const int* st, int cmp, Value v, Site s) {
  if (gpu_heap(c)) [[unlikely]] {
    return on_gpu::finish(
        c,
        [=, &c] {
          size_t r;
          return on_gpu::wait_array(c, on_gpu::Scan::All, true, ivars, n, nullptr, st, cmp, v, s,
                                    &r);
        },
        [=, &c] { gshmem::detail::wait_all(c, ivars, n, st, cmp, v, s); });
  }
  gshmem::detail::wait_all(c, ivars, n, st, cmp, v, s);
}
template <class T, class Value>
size_t wait_any(const DeviceContext& c, T* ivars, size_t n, const int* st, int cmp, Value v,
                Site s) {
  if (gpu_heap(c)) [[unlikely]] {
    return on_gpu::finish(
        c,
        [=, &c](size_t* out) {
          return on_gpu::wait_array(c, on_gpu::Scan::Any, true, ivars, n, nullptr, st, cmp, v, s,
                                    out);
        },
        [=, &c] { return gshmem::detail::wait_any(c, ivars, n, st, cmp, v, s); });
  }
  return gshmem::detail::wait_any(c, ivars, n, st, cmp, v, s);
}
template <class T, class Value>
size_t wait_some(const DeviceContext& c, T* ivars, size_t n, size_t* idx, const int* st, int cmp,
                 Value v, Site s) {
  if (gpu_heap(c)) [[unlikely]] {
    return on_gpu::finish(
        c,
        [=, &c](size_t* out) {
          return on_gpu::wait_array(c, on_gpu::Scan::Some, true, ivars, n, idx, st, cmp, v, s, out);
        },
        [=, &c] { return gshmem::detail::wait_some(c, ivars, n, idx, st, cmp, v, s); });
  }
  return gshmem::detail::wait_some(c, ivars, n, idx, st, cmp, v, s);
}
template <class T, class Value>
int test_all_of(const DeviceContext& c, T* ivars, size_t n, const int* st, int cmp, Value v,
                Site s) {
  if (gpu_heap(c)) [[unlikely]] {
    return int(on_gpu::finish(
        c,
        [=, &c](size_t* out) {
          return on_gpu::wait_array(c, on_gpu::Scan::All, false, ivars, n, nullptr, st, cmp, v, s,
                                    out);
        },
        [=, &c] { return size_t(gshmem::test_all_of(c, ivars, n, st, cmp, v, s)); }));
  }
  return gshmem::test_all_of(c, ivars, n, st, cmp, v, s);
}
template <class T, class Value>
size_t test_any_of(const DeviceContext& c, T* ivars, size_t n, const int* st, int cmp, Value v,
                   Site s) {
  if (gpu_heap(c)) [[unlikely]] {
    return on_gpu::finish(
        c,
        [=, &c](size_t* out) {
          return on_gpu::wait_array(c, on_gpu::Scan::Any, false, ivars, n, nullptr, st, cmp, v, s,
                                    out);
        },
        [=, &c] { return gshmem::test_any_of(c, ivars, n, st, cmp, v, s); });
  }
  return gshmem::test_any_of(c, ivars, n, st, cmp, v, s);
}
template <class T, class Value>
size_t test_some_of(const DeviceContext& c, T* ivars, size_t n, size_t* idx, const int* st, int cmp,
                    Value v, Site s) {
  if (gpu_heap(c)) [[unlikely]] {
    return on_gpu::finish(
        c,
        [=, &c](size_t* out) {
          return on_gpu::wait_array(c, on_gpu::Scan::Some, false, ivars, n, idx, st, cmp, v, s,
                                    out);
        },
        [=, &c] { return gshmem::test_some_of(c, ivars, n, idx, st, cmp, v, s); });
  }
  return gshmem::test_some_of(c, ivars, n, idx, st, cmp, v, s);
}

// Ordering. Copies and kernels on the internal stream run in issue order, so fence needs only
// the plain fence (which orders the proxy channel); quiet first drains the stream.
GSHMEM_INLINE void fence(const DeviceContext& c) {
  gshmem::fence(c);
}
GSHMEM_INLINE void quiet(const DeviceContext& c) {
  if (gpu_heap(c)) [[unlikely]]
    on_gpu::sync(c);
  gshmem::quiet(c);
}

// Completes this PE's operations to the PEs target_pes[0 .. n) (OpenSHMEM 1.6 shmem_pe_quiet).
// One channel serves every peer, so after checking the list this is quiet: it completes the
// operations to other PEs too, which the specification allows.
void pe_quiet(const DeviceContext& c, const int* target_pes, size_t n, Site s);

// Synchronisation: every member of the team calls.
GSHMEM_INLINE void barrier_all(const DeviceContext& c, Site s) {
  if (gpu_heap(c) && on_gpu::barrier_all(c, s)) [[unlikely]]
    return;
  gshmem::barrier_all(c, s);
}
GSHMEM_INLINE void sync_all(const DeviceContext& c, Site s) {
  if (gpu_heap(c) && on_gpu::sync_all(c, s)) [[unlikely]]
    return;
  gshmem::sync_all(c, s);
}
GSHMEM_INLINE void barrier(const DeviceContext& c, gshmem_team_t team, Site s) {
  if (gpu_heap(c) && on_gpu::barrier(c, team, s)) [[unlikely]]
    return;
  gshmem::barrier(c, team, s);
}
GSHMEM_INLINE void team_sync(const DeviceContext& c, gshmem_team_t team, Site s) {
  if (gpu_heap(c) && on_gpu::team_sync(c, team, s)) [[unlikely]]
    return;
  gshmem::team_sync(c, team, s);
}

// Copies bytes of this PE's own heap copy to host memory.
void read_local(const DeviceContext& c, void* dst, const void* heap_src, size_t bytes);

// What team creation needs (host/team: Teams::Calls), done by the functions above.
TeamCalls team_calls();

}  // namespace gshmem::hostops
