// Host calls on the symmetric heap, whichever memory it is in. Every function here returns false
// when the plain __host__ __device__ code is right and the caller runs it: always for a host heap,
// and for a GPU heap when the target is not GPU memory mapped here (a peer reached through the
// proxy channel, or the program's static data, which stays in host memory). Otherwise the host
// must not load or store the memory, so they do the call and return true: copies on the PE's
// internal stream (cudaMemcpy), and everything that needs atomicity or waiting in the one-thread
// kernel (the same device-API code, host/cuda/ops.cu).
//
// Contracts are those of the C API: blocking forms return complete as the call promises; _nbi
// copies stay pending on the internal stream until quiet (or a barrier).
#pragma once

#include <cstddef>
#include <cstdint>

#include "gshmem/device.cuh"
#include "host/cuda/gpu.hpp"

namespace gshmem::hostops {

// The PE's GPU queue when its heap is in GPU memory, else nullptr. Never set without CUDA.
#if GSHMEM_HAVE_CUDA
gpu::Queue* queue_of(const DeviceContext& c);
#else
inline gpu::Queue* queue_of(const DeviceContext&) {
  return nullptr;
}
#endif

bool putmem(const DeviceContext& c, void* dst, const void* src, uint64_t bytes, int pe, bool nbi,
            Site s);
bool getmem(const DeviceContext& c, void* dst, const void* src, uint64_t bytes, int pe, bool nbi,
            Site s);
bool putmem_signal(const DeviceContext& c, void* dst, const void* src, uint64_t bytes,
                   uint64_t* sig, uint64_t value, int sig_op, int pe, bool nbi, Site s);
// Strided, element size `elem`, strides in elements (already validated).
bool strided(const DeviceContext& c, bool is_put, void* dst, const void* src, size_t elem,
             ptrdiff_t dst_stride, ptrdiff_t src_stride, size_t nelems, int pe, Site s);
bool signal_op(const DeviceContext& c, uint64_t* sig, uint64_t value, int sig_op, int pe, Site s);
bool signal_fetch(const DeviceContext& c, const uint64_t* sig, uint64_t* out);
bool signal_wait_until(const DeviceContext& c, uint64_t* sig, int cmp, uint64_t value, Site s,
                       uint64_t* out);
bool fence(const DeviceContext& c);
bool quiet(const DeviceContext& c);
bool barrier_all(const DeviceContext& c, Site s);
bool sync_all(const DeviceContext& c, Site s);
bool barrier(const DeviceContext& c, gshmem_team_t team, Site s);
bool team_sync(const DeviceContext& c, gshmem_team_t team, Site s);
// Copies bytes of this PE's own heap copy to host memory (device heap: cudaMemcpy).
void read_local(const DeviceContext& c, void* dst, const void* heap_src, size_t bytes);

namespace detail {
// Validates addr (elem bytes on pe, aligned when `aligned`) as the host code would; true when it
// is GPU memory mapped here, i.e. the one-thread kernel must do the call.
bool on_gpu(const DeviceContext& c, const void* addr, size_t elem, int pe, bool aligned, Site s);
// Runs one call in the one-thread kernel on the internal stream, waits, returns its result.
uint64_t run(gpu::Queue& q, const gpu::DeviceOp& op);
}  // namespace detail

// ---- Typed forms ---------------------------------------------------------------------------

template <class T>
bool put(const DeviceContext& c, T* dst, const T* src, size_t nelems, int pe, bool nbi, Site s) {
  if (!queue_of(c)) return false;
  return putmem(c, dst, src, gshmem::detail::elems_to_bytes<T>(c, s, dst, nelems), pe, nbi, s);
}
template <class T>
bool get(const DeviceContext& c, T* dst, const T* src, size_t nelems, int pe, bool nbi, Site s) {
  if (!queue_of(c)) return false;
  return getmem(c, dst, src, gshmem::detail::elems_to_bytes<T>(c, s, src, nelems), pe, nbi, s);
}
template <class T>
bool put_signal(const DeviceContext& c, T* dst, const T* src, size_t nelems, uint64_t* sig,
                uint64_t value, int sig_op, int pe, bool nbi, Site s) {
  if (!queue_of(c)) return false;
  return putmem_signal(c, dst, src, gshmem::detail::elems_to_bytes<T>(c, s, dst, nelems), sig,
                       value, sig_op, pe, nbi, s);
}
template <class T>
bool iput(const DeviceContext& c, T* dst, const T* src, ptrdiff_t dst_stride, ptrdiff_t src_stride,
          size_t nelems, int pe, Site s) {
  if (!queue_of(c)) return false;
  if (nelems == 0) return true;
  gshmem::detail::strided_bytes<T>(c, s, src, nelems, src_stride);
  gshmem::detail::strided_bytes<T>(c, s, dst, nelems, dst_stride);
  return strided(c, true, dst, src, sizeof(T), dst_stride, src_stride, nelems, pe, s);
}
template <class T>
bool iget(const DeviceContext& c, T* dst, const T* src, ptrdiff_t dst_stride, ptrdiff_t src_stride,
          size_t nelems, int pe, Site s) {
  if (!queue_of(c)) return false;
  if (nelems == 0) return true;
  gshmem::detail::strided_bytes<T>(c, s, dst, nelems, dst_stride);
  gshmem::detail::strided_bytes<T>(c, s, src, nelems, src_stride);
  return strided(c, false, dst, src, sizeof(T), dst_stride, src_stride, nelems, pe, s);
}
template <class T>
bool p(const DeviceContext& c, T* dst, T value, int pe, Site s) {
  // Blocking: the value lives on this stack frame.
  return queue_of(c) && putmem(c, dst, &value, sizeof(T), pe, false, s);
}
template <class T>
bool g(const DeviceContext& c, const T* src, int pe, Site s, T* out) {
  return queue_of(c) && getmem(c, out, src, sizeof(T), pe, false, s);
}

template <AmoOp Op, class T>
bool atomic(const DeviceContext& c, T* dst, T value, T cond, int pe, Site s, T* out) {
  gpu::Queue* q = queue_of(c);
  if (!q || !detail::on_gpu(c, dst, sizeof(T), pe, true, s)) return false;
  gpu::DeviceOp op{};
  op.kind = gpu::OpKind::Amo;
  op.type = gpu::val_type_of<T>();
  op.amo_op = uint8_t(Op);
  op.pe = pe;
  op.dst = dst;
  op.value = gshmem::detail::to_bits(value);
  op.cond = gshmem::detail::to_bits(cond);
  *out = gshmem::detail::from_bits<T>(detail::run(*q, op));
  return true;
}

template <class T>
bool wait_until(const DeviceContext& c, T* ivar, int cmp, T value, Site s) {
  gpu::Queue* q = queue_of(c);
  if (!q) return false;
  gshmem::detail::check_cmp(c, s, ivar, cmp);
  if (!detail::on_gpu(c, ivar, sizeof(T), c.my_pe, true, s)) return false;
  gpu::DeviceOp op{};
  op.kind = gpu::OpKind::WaitUntil;
  op.type = gpu::val_type_of<T>();
  op.cmp = int8_t(cmp);
  op.pe = c.my_pe;
  op.dst = ivar;
  op.value = gshmem::detail::to_bits(value);
  detail::run(*q, op);
  return true;
}

template <class T>
bool test(const DeviceContext& c, T* ivar, int cmp, T value, Site s, bool* out) {
  gpu::Queue* q = queue_of(c);
  if (!q) return false;
  gshmem::detail::check_cmp(c, s, ivar, cmp);
  if (!detail::on_gpu(c, ivar, sizeof(T), c.my_pe, true, s)) return false;
  gpu::DeviceOp op{};
  op.kind = gpu::OpKind::Test;
  op.type = gpu::val_type_of<T>();
  op.cmp = int8_t(cmp);
  op.pe = c.my_pe;
  op.dst = ivar;
  op.value = gshmem::detail::to_bits(value);
  *out = detail::run(*q, op) != 0;
  return true;
}

// The array forms on a GPU heap: element by element through test(), polling with back-off
// (host calls on a GPU heap favour being correct over being fast; kernels wait in place).
// Value is gshmem::detail::Same<T> or Each<T>. Semantics as gshmem/device/wait_until.cuh.
enum class Scan { All, Any, Some };
void poll_pause(const DeviceContext& c, uint64_t started_ns, Site s);

template <class T, class Value>
size_t scan(const DeviceContext& c, T* ivars, size_t n, size_t* indices, const int* status, int cmp,
            Value value, Site s, bool* eligible, bool stop_at_first) {
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
bool wait_array(const DeviceContext& c, Scan kind, bool block, T* ivars, size_t n, size_t* indices,
                const int* status, int cmp, Value value, Site s, size_t* out) {
  if (!queue_of(c)) return false;
  gshmem::detail::check_cmp(c, s, ivars, cmp);
  if (n == 0 || !detail::on_gpu(c, ivars, sizeof(T) * n, c.my_pe, true, s)) return false;
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
  uint64_t started = gshmem::detail::now_ns();
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

}  // namespace gshmem::hostops
