// Remote memory access: put, get, p, g, iput, iget.
//
// Contract (NVSHMEM/OpenSHMEM): `put` returns once the source may be reused; the data is visible at
// the target after a later quiet (or a barrier). `_nbi` forms may return before the source is
// read; quiet completes them. `get` returns with the data in place. Mapped peers are served by
// plain copies spread over the calling group; other peers by commands in the proxy channel.
#pragma once

#include "gshmem/device/channel.cuh"
#include "gshmem/device/context.cuh"
#include "gshmem/device/group.cuh"
#include "gshmem/device/group_check.cuh"

namespace gshmem {

namespace detail {

// nelems * sizeof(T) with the overflow check that the typed calls owe their callers.
template <class T>
GSHMEM_HD GSHMEM_INLINE uint64_t elems_to_bytes(const DeviceContext& c, Site s, const void* addr,
                                                size_t nelems) {
  if (checks_on(c) && nelems > UINT64_MAX / sizeof(T)) {
    bad_input(c, s, BadInput::Size, addr, nelems, -1);
  }
  return uint64_t(nelems) * sizeof(T);
}

// Bytes spanned by nelems elements `stride` apart; strides below 1 and overflow are bad input.
template <class T>
GSHMEM_HD GSHMEM_INLINE uint64_t strided_bytes(const DeviceContext& c, Site s, const void* addr,
                                               size_t nelems, ptrdiff_t stride) {
  if (checks_on(c) &&
      (stride < 1 || uint64_t(nelems - 1) > (UINT64_MAX / sizeof(T) - 1) / uint64_t(stride))) {
    bad_input(c, s, stride < 1 ? BadInput::Stride : BadInput::Size, addr,
              stride < 1 ? uint64_t(stride) : nelems, -1);
  }
  return (uint64_t(nelems - 1) * uint64_t(stride) + 1) * sizeof(T);
}

template <class G>
GSHMEM_HD GSHMEM_INLINE void put_impl(const DeviceContext& c, void* dst, const void* src,
                                      uint64_t bytes, int pe, bool blocking, Site s) {
  check_group<G>(c, s);
  if (bytes == 0) return;
  Remote r = resolve(c, dst, bytes, pe, s.with("dest"));
  if (r.ptr) {
    if (pe == c.my_pe) {
      group_copy<G>(r.ptr, src, bytes);
    } else {
      group_push<G>(r.ptr, src, bytes);
    }
    G::sync();
  } else {
    channel_put<G>(c, r, src, bytes, pe, blocking, s);
  }
}

template <class G>
GSHMEM_HD GSHMEM_INLINE void get_impl(const DeviceContext& c, void* dst, const void* src,
                                      uint64_t bytes, int pe, bool blocking, Site s) {
  check_group<G>(c, s);
  if (bytes == 0) return;
  Remote r = resolve(c, src, bytes, pe, s.with("source"));
  if (r.ptr) {
    group_copy<G>(dst, r.ptr, bytes);
    G::sync();
  } else {
    channel_get<G>(c, r, dst, bytes, pe, blocking, s);
  }
}

}  // namespace detail

// Bytes. Called by the whole group G.
template <class G = Thread>
GSHMEM_HD GSHMEM_INLINE void putmem(const DeviceContext& c, void* dst, const void* src,
                                    size_t bytes, int pe, Site s = {"gshmem_putmem"}) {
  detail::put_impl<G>(c, dst, src, bytes, pe, true, s);
}
template <class G = Thread>
GSHMEM_HD GSHMEM_INLINE void putmem_nbi(const DeviceContext& c, void* dst, const void* src,
                                        size_t bytes, int pe, Site s = {"gshmem_putmem_nbi"}) {
  detail::put_impl<G>(c, dst, src, bytes, pe, false, s);
}
template <class G = Thread>
GSHMEM_HD GSHMEM_INLINE void getmem(const DeviceContext& c, void* dst, const void* src,
                                    size_t bytes, int pe, Site s = {"gshmem_getmem"}) {
  detail::get_impl<G>(c, dst, src, bytes, pe, true, s);
}
template <class G = Thread>
GSHMEM_HD GSHMEM_INLINE void getmem_nbi(const DeviceContext& c, void* dst, const void* src,
                                        size_t bytes, int pe, Site s = {"gshmem_getmem_nbi"}) {
  detail::get_impl<G>(c, dst, src, bytes, pe, false, s);
}

// Typed element ranges. Called by the whole group G.
template <class G = Thread, class T>
GSHMEM_HD GSHMEM_INLINE void put(const DeviceContext& c, T* dst, const T* src, size_t nelems,
                                 int pe, Site s = {"gshmem_put"}) {
  detail::put_impl<G>(c, dst, src, detail::elems_to_bytes<T>(c, s, dst, nelems), pe, true, s);
}
template <class G = Thread, class T>
GSHMEM_HD GSHMEM_INLINE void put_nbi(const DeviceContext& c, T* dst, const T* src, size_t nelems,
                                     int pe, Site s = {"gshmem_put_nbi"}) {
  detail::put_impl<G>(c, dst, src, detail::elems_to_bytes<T>(c, s, dst, nelems), pe, false, s);
}
template <class G = Thread, class T>
GSHMEM_HD GSHMEM_INLINE void get(const DeviceContext& c, T* dst, const T* src, size_t nelems,
                                 int pe, Site s = {"gshmem_get"}) {
  detail::get_impl<G>(c, dst, src, detail::elems_to_bytes<T>(c, s, src, nelems), pe, true, s);
}
template <class G = Thread, class T>
GSHMEM_HD GSHMEM_INLINE void get_nbi(const DeviceContext& c, T* dst, const T* src, size_t nelems,
                                     int pe, Site s = {"gshmem_get_nbi"}) {
  detail::get_impl<G>(c, dst, src, detail::elems_to_bytes<T>(c, s, src, nelems), pe, false, s);
}

// One element, by one thread. p is a put (visible after quiet); g returns the value.
template <class T>
GSHMEM_HD GSHMEM_INLINE void p(const DeviceContext& c, T* dst, T value, int pe,
                               Site s = {"gshmem_p"}) {
  Remote r = resolve(c, dst, sizeof(T), pe, s.with("dest"));
  if (r.ptr) {
    *reinterpret_cast<volatile T*>(r.ptr) = value;
  } else {
    if constexpr (sizeof(T) <= sizeof(uint64_t)) {
      detail::channel_put_value(c, r, value, pe, s);
    } else {
      // Wider than a command's value (long double, host code only): by reference, from this
      // host thread's stack.
      detail::channel_put<Thread>(c, r, &value, sizeof(T), pe, true, s);
    }
  }
}
template <class T>
GSHMEM_HD GSHMEM_INLINE T g(const DeviceContext& c, const T* src, int pe, Site s = {"gshmem_g"}) {
  Remote r = resolve(c, src, sizeof(T), pe, s.with("source"));
  if (r.ptr) return *reinterpret_cast<const volatile T*>(r.ptr);
  if constexpr (sizeof(T) <= sizeof(uint64_t)) {
    return detail::channel_get_value<T>(c, r, pe, s);
  } else {
    T value{};
    detail::channel_get<Thread>(c, r, &value, sizeof(T), pe, true, s);
    return value;
  }
}

// Strided: element i goes from src[i * src_stride] to dst[i * dst_stride]. Strides are in
// elements and at least 1. Called by the whole group G.
template <class G = Thread, class T>
GSHMEM_HD void iput(const DeviceContext& c, T* dst, const T* src, ptrdiff_t dst_stride,
                    ptrdiff_t src_stride, size_t nelems, int pe, Site s = {"gshmem_iput"}) {
  detail::check_group<G>(c, s);
  if (nelems == 0) return;
  detail::strided_bytes<T>(c, s, src, nelems, src_stride);
  Remote r =
      resolve(c, dst, detail::strided_bytes<T>(c, s, dst, nelems, dst_stride), pe, s.with("dest"));
  if (r.ptr) {
    T* out = reinterpret_cast<T*>(r.ptr);
    for (size_t i = G::rank(); i < nelems; i += G::size())
      out[i * dst_stride] = src[i * src_stride];
    G::sync();
    return;
  }
  for (size_t i = 0; i < nelems; ++i) {
    detail::put_impl<G>(c, dst + i * dst_stride, src + i * src_stride, sizeof(T), pe, true, s);
  }
}
template <class G = Thread, class T>
GSHMEM_HD void iget(const DeviceContext& c, T* dst, const T* src, ptrdiff_t dst_stride,
                    ptrdiff_t src_stride, size_t nelems, int pe, Site s = {"gshmem_iget"}) {
  detail::check_group<G>(c, s);
  if (nelems == 0) return;
  detail::strided_bytes<T>(c, s, dst, nelems, dst_stride);
  Remote r = resolve(c, src, detail::strided_bytes<T>(c, s, src, nelems, src_stride), pe,
                     s.with("source"));
  if (r.ptr) {
    const T* in = reinterpret_cast<const T*>(r.ptr);
    for (size_t i = G::rank(); i < nelems; i += G::size()) dst[i * dst_stride] = in[i * src_stride];
    G::sync();
    return;
  }
  for (size_t i = 0; i < nelems; ++i) {
    detail::get_impl<G>(c, dst + i * dst_stride, src + i * src_stride, sizeof(T), pe, true, s);
  }
}

}  // namespace gshmem
