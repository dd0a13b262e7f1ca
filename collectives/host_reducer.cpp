#include "collectives/host_reducer.hpp"

#include <algorithm>

namespace gshmem::coll {

namespace {

// Tiles of the accumulator stay in L1 while every source streams through once; the per-element
// order (left to right) is the same as reduce_elements' on the device.
template <class T, class Op>
void reduce_tiled(void* out, const void* const* srcs, int nsrc, size_t count) {
  using Ar = Arith<T>;
  using A = typename Ar::A;
  T* o = static_cast<T*>(out);
  if constexpr (std::is_same_v<A, T>) {
    if (nsrc == 2) {  // the common case (two-PE direct, ring and tree steps): one pass
      const T* a = static_cast<const T*>(srcs[0]);
      const T* b = static_cast<const T*>(srcs[1]);
      for (size_t i = 0; i < count; ++i) o[i] = Op::apply(a[i], b[i]);
      return;
    }
  }
  constexpr size_t kTile = 1024;
  A acc[kTile];
  for (size_t base = 0; base < count; base += kTile) {
    const size_t m = std::min(kTile, count - base);
    const T* s0 = static_cast<const T*>(srcs[0]) + base;
    for (size_t i = 0; i < m; ++i) acc[i] = Ar::load(s0[i]);
    for (int k = 1; k < nsrc; ++k) {
      const T* s = static_cast<const T*>(srcs[k]) + base;
      for (size_t i = 0; i < m; ++i) acc[i] = Op::apply(acc[i], Ar::load(s[i]));
    }
    for (size_t i = 0; i < m; ++i) o[base + i] = Ar::store(acc[i]);
  }
}

template <class T>
void divide(void* out, size_t count, int n) {
  divide_elements<Thread, T>(out, count, n);
}

}  // namespace

HostReducer host_reducer(gshmem_datatype_t dtype, gshmem_redop_t op) {
  if (dtype < 0 || dtype >= GSHMEM_DATATYPE_COUNT || op < 0 || op >= GSHMEM_REDOP_COUNT) return {};
  return visit_type(dtype, [&](auto t) -> HostReducer {
    using T = decltype(t);
    HostReducer r;
    r.es = sizeof(T);
    if (!op_supported<T>(op)) return r;
    r.reduce_fn = visit_op(op, [](auto o) -> ReduceFn {
      using Op = decltype(o);
      if constexpr (op_exists_v<T, Op>) {
        return &reduce_tiled<T, Op>;
      } else {
        return nullptr;
      }
    });
    if constexpr (is_floating_v<T>) {
      if (op == GSHMEM_AVG) r.finish_fn = &divide<T>;
    }
    return r;
  });
}

const char* dtype_name(gshmem_datatype_t dtype) {
  static const char* const kNames[] = {
      "GSHMEM_FLOAT", "GSHMEM_DOUBLE", "GSHMEM_HALF",       "GSHMEM_BFLOAT16", "GSHMEM_INT8",
      "GSHMEM_UINT8", "GSHMEM_INT16",  "GSHMEM_UINT16",     "GSHMEM_INT32",    "GSHMEM_UINT32",
      "GSHMEM_INT64", "GSHMEM_UINT64", "GSHMEM_LONGDOUBLE", "GSHMEM_COMPLEXF", "GSHMEM_COMPLEXD"};
  return dtype >= 0 && dtype < GSHMEM_DATATYPE_COUNT ? kNames[dtype] : "?";
}

const char* dtype_short_name(gshmem_datatype_t dtype) {
  static const char* const kNames[] = {"float", "double", "half",    "bfloat16", "int8",
                                       "uint8", "int16",  "uint16",  "int32",    "uint32",
                                       "int64", "uint64", "ldouble", "complexf", "complexd"};
  return dtype >= 0 && dtype < GSHMEM_DATATYPE_COUNT ? kNames[dtype] : "?";
}

const char* op_name(gshmem_redop_t op) {
  static const char* const kNames[] = {"GSHMEM_SUM", "GSHMEM_PROD", "GSHMEM_MIN", "GSHMEM_MAX",
                                       "GSHMEM_AVG", "GSHMEM_BAND", "GSHMEM_BOR", "GSHMEM_BXOR"};
  return op >= 0 && op < GSHMEM_REDOP_COUNT ? kNames[op] : "?";
}

const char* op_short_name(gshmem_redop_t op) {
  static const char* const kNames[] = {"sum", "prod", "min", "max", "avg", "band", "bor", "bxor"};
  return op >= 0 && op < GSHMEM_REDOP_COUNT ? kNames[op] : "?";
}

}  // namespace gshmem::coll
