// Element types and reduction operators of the collectives, written once for CPU PEs and kernels.
//
// half and bfloat16 are carried as their 16-bit patterns and reduced in fp32 (converted with
// round-to-nearest-even on the way back), so CPU PEs need no compiler support for them. Signed
// integer SUM and PROD wrap around (two's complement), as NCCL's do, instead of being undefined.
// AVG is SUM followed by one division by the team size (Reducer::finish).
#pragma once

#include <type_traits>

#include "gshmem/collectives.h"
#include "gshmem/device/platform.cuh"

namespace gshmem::coll {

struct half_t {
  uint16_t bits;
};
struct bfloat16_t {
  uint16_t bits;
};
struct complexf_t {
  float re, im;
};
struct complexd_t {
  double re, im;
};
static_assert(sizeof(half_t) == 2 && sizeof(bfloat16_t) == 2);
static_assert(sizeof(complexf_t) == 8 && sizeof(complexd_t) == 16);

namespace detail {

template <class To, class From>
GSHMEM_HD GSHMEM_INLINE To bit_cast(From v) {
  static_assert(sizeof(To) == sizeof(From));
  To out;
  __builtin_memcpy(&out, &v, sizeof(To));
  return out;
}

}  // namespace detail

GSHMEM_HD inline float half_to_float(half_t h) {
  uint32_t sign = uint32_t(h.bits & 0x8000u) << 16;
  uint32_t exp = (h.bits >> 10) & 0x1fu;
  uint32_t mant = h.bits & 0x3ffu;
  uint32_t bits;
  if (exp == 31) {
    bits = sign | 0x7f800000u | (mant << 13);
  } else if (exp != 0) {
    bits = sign | ((exp + 112) << 23) | (mant << 13);
  } else if (mant == 0) {
    bits = sign;
  } else {  // subnormal: normalise the mantissa
    exp = 113;
    while (!(mant & 0x400u)) {
      mant <<= 1;
      --exp;
    }
    bits = sign | (exp << 23) | ((mant & 0x3ffu) << 13);
  }
  return detail::bit_cast<float>(bits);
}

// Round to nearest, ties to even; overflow gives infinity, NaN stays NaN.
GSHMEM_HD inline half_t float_to_half(float f) {
  uint32_t x = detail::bit_cast<uint32_t>(f);
  uint16_t sign = uint16_t((x >> 16) & 0x8000u);
  x &= 0x7fffffffu;
  if (x >= 0x7f800000u) return {uint16_t(sign | (x > 0x7f800000u ? 0x7e00u : 0x7c00u))};
  if (x >= 0x47800000u) return {uint16_t(sign | 0x7c00u)};
  if (x >= 0x38800000u) {  // a normal half; a carry out of the mantissa bumps the exponent
    uint32_t r = x + 0xfffu + ((x >> 13) & 1u) - 0x38000000u;
    return {uint16_t(sign | (r >> 13))};
  }
  if (x <= 0x33000000u) return {sign};  // below half the smallest subnormal (2^-25 ties to 0)
  uint32_t e = x >> 23;
  uint32_t m = (x & 0x7fffffu) | 0x800000u;
  uint32_t shift = 126 - e;  // subnormal units of 2^-24
  uint32_t h = m >> shift;
  uint32_t rem = m & ((1u << shift) - 1), halfway = 1u << (shift - 1);
  if (rem > halfway || (rem == halfway && (h & 1u))) ++h;
  return {uint16_t(sign | h)};
}

GSHMEM_HD inline float bf16_to_float(bfloat16_t h) {
  return detail::bit_cast<float>(uint32_t(h.bits) << 16);
}

GSHMEM_HD inline bfloat16_t float_to_bf16(float f) {
  uint32_t x = detail::bit_cast<uint32_t>(f);
  if ((x & 0x7fffffffu) > 0x7f800000u) return {uint16_t((x >> 16) | 0x40u)};  // quiet NaN
  x += 0x7fffu + ((x >> 16) & 1u);
  return {uint16_t(x >> 16)};
}

// The type a reduction computes in, and the conversions to and from it.
template <class T>
struct Arith {
  using A = T;
  GSHMEM_HD GSHMEM_INLINE static A load(T v) { return v; }
  GSHMEM_HD GSHMEM_INLINE static T store(A v) { return v; }
};
template <>
struct Arith<half_t> {
  using A = float;
  GSHMEM_HD GSHMEM_INLINE static A load(half_t v) { return half_to_float(v); }
  GSHMEM_HD GSHMEM_INLINE static half_t store(A v) { return float_to_half(v); }
};
template <>
struct Arith<bfloat16_t> {
  using A = float;
  GSHMEM_HD GSHMEM_INLINE static A load(bfloat16_t v) { return bf16_to_float(v); }
  GSHMEM_HD GSHMEM_INLINE static bfloat16_t store(A v) { return float_to_bf16(v); }
};

template <class A>
inline constexpr bool is_complex_v = std::is_same_v<A, complexf_t> || std::is_same_v<A, complexd_t>;

// Integer arithmetic that wraps: computed in an unsigned type at least as wide as `unsigned`, so
// neither signed overflow nor the promotion of narrow types to int is undefined.
template <class A>
using WrapT = std::conditional_t<(sizeof(A) < sizeof(unsigned)), unsigned, std::make_unsigned_t<A>>;

struct OpSum {
  template <class A>
  GSHMEM_HD GSHMEM_INLINE static A apply(A a, A b) {
    if constexpr (is_complex_v<A>) {
      return {a.re + b.re, a.im + b.im};
    } else if constexpr (std::is_integral_v<A>) {
      return A(WrapT<A>(a) + WrapT<A>(b));
    } else {
      return a + b;
    }
  }
};
struct OpProd {
  template <class A>
  GSHMEM_HD GSHMEM_INLINE static A apply(A a, A b) {
    if constexpr (is_complex_v<A>) {
      return {a.re * b.re - a.im * b.im, a.re * b.im + a.im * b.re};
    } else if constexpr (std::is_integral_v<A>) {
      return A(WrapT<A>(a) * WrapT<A>(b));
    } else {
      return a * b;
    }
  }
};
struct OpMin {
  template <class A>
  GSHMEM_HD GSHMEM_INLINE static A apply(A a, A b) {
    return b < a ? b : a;
  }
};
struct OpMax {
  template <class A>
  GSHMEM_HD GSHMEM_INLINE static A apply(A a, A b) {
    return a < b ? b : a;
  }
};
struct OpBand {
  template <class A>
  GSHMEM_HD GSHMEM_INLINE static A apply(A a, A b) {
    return A(a & b);
  }
};
struct OpBor {
  template <class A>
  GSHMEM_HD GSHMEM_INLINE static A apply(A a, A b) {
    return A(a | b);
  }
};
struct OpBxor {
  template <class A>
  GSHMEM_HD GSHMEM_INLINE static A apply(A a, A b) {
    return A(a ^ b);
  }
};

template <class T>
inline constexpr bool is_floating_v =
    std::is_floating_point_v<T> || std::is_same_v<T, half_t> || std::is_same_v<T, bfloat16_t>;

// Which (type, op) pairs exist: bitwise ops on integers; MIN/MAX on everything but complex; AVG on
// real floating types; SUM and PROD everywhere.
template <class T>
GSHMEM_HD constexpr bool op_supported(gshmem_redop_t op) {
  switch (op) {
    case GSHMEM_SUM:
    case GSHMEM_PROD:
      return true;
    case GSHMEM_MIN:
    case GSHMEM_MAX:
      return !is_complex_v<T>;
    case GSHMEM_AVG:
      return is_floating_v<T>;
    case GSHMEM_BAND:
    case GSHMEM_BOR:
    case GSHMEM_BXOR:
      return std::is_integral_v<T>;
    default:
      return false;
  }
}

// The (type, op) pairs as types (op_supported's table at compile time): what a reducer
// instantiates.
template <class T, class Op>
inline constexpr bool op_exists_v =
    !(is_complex_v<T> && (std::is_same_v<Op, OpMin> || std::is_same_v<Op, OpMax>)) &&
    (std::is_integral_v<T> ||
     !(std::is_same_v<Op, OpBand> || std::is_same_v<Op, OpBor> || std::is_same_v<Op, OpBxor>));

// Calls f(T{}) with the C++ type of a datatype (LONGDOUBLE only where `with_long_double`).
template <bool with_long_double = true, class F>
GSHMEM_HD auto visit_type(gshmem_datatype_t t, F&& f) {
  switch (t) {
    case GSHMEM_FLOAT:
      return f(float{});
    case GSHMEM_DOUBLE:
      return f(double{});
    case GSHMEM_HALF:
      return f(half_t{});
    case GSHMEM_BFLOAT16:
      return f(bfloat16_t{});
    case GSHMEM_INT8:
      return f(int8_t{});
    case GSHMEM_UINT8:
      return f(uint8_t{});
    case GSHMEM_INT16:
      return f(int16_t{});
    case GSHMEM_UINT16:
      return f(uint16_t{});
    case GSHMEM_INT32:
      return f(int32_t{});
    case GSHMEM_UINT32:
      return f(uint32_t{});
    case GSHMEM_INT64:
      return f(int64_t{});
    case GSHMEM_UINT64:
      return f(uint64_t{});
    case GSHMEM_COMPLEXF:
      return f(complexf_t{});
    case GSHMEM_COMPLEXD:
      return f(complexd_t{});
    default:
      if constexpr (with_long_double) {
        return f(static_cast<long double>(0));
      } else {
        return f(double{});  // never reached: callers reject LONGDOUBLE on the device
      }
  }
}

// Calls f(Op{}, op) for a reduction operator (AVG reduces as SUM).
template <class F>
GSHMEM_HD auto visit_op(gshmem_redop_t op, F&& f) {
  switch (op) {
    case GSHMEM_PROD:
      return f(OpProd{});
    case GSHMEM_MIN:
      return f(OpMin{});
    case GSHMEM_MAX:
      return f(OpMax{});
    case GSHMEM_BAND:
      return f(OpBand{});
    case GSHMEM_BOR:
      return f(OpBor{});
    case GSHMEM_BXOR:
      return f(OpBxor{});
    default:
      return f(OpSum{});
  }
}

// out[i] = srcs[0][i] op srcs[1][i] op ... op srcs[nsrc-1][i], left to right, for i < count, by
// the whole group G (elements strided over its threads; no sync at the end). out may be one of
// the sources. The order is fixed, so every algorithm that reduces the same inputs in the same
// order gets the same bits.
template <class G, class T, class Op>
GSHMEM_HD void reduce_elements(void* out, const void* const* srcs, int nsrc, size_t count) {
  using Ar = Arith<T>;
  T* o = static_cast<T*>(out);
  for (size_t i = G::rank(); i < count; i += G::size()) {
    auto acc = Ar::load(static_cast<const T*>(srcs[0])[i]);
    for (int k = 1; k < nsrc; ++k)
      acc = Op::apply(acc, Ar::load(static_cast<const T*>(srcs[k])[i]));
    o[i] = Ar::store(acc);
  }
}

// AVG's last step: divides every element by n.
template <class G, class T>
GSHMEM_HD void divide_elements(void* out, size_t count, int n) {
  using Ar = Arith<T>;
  T* o = static_cast<T*>(out);
  for (size_t i = G::rank(); i < count; i += G::size()) {
    o[i] = Ar::store(Ar::load(o[i]) / static_cast<typename Ar::A>(n));
  }
}

// The reducer the algorithms are written against (see HostReducer for the CPU PE one): the
// element size, an n-way reduction and the AVG division. This one is fixed at compile time, for
// kernels.
template <class T, class Op, bool kAvg = false>
struct StaticReducer {
  GSHMEM_HD GSHMEM_INLINE size_t esize() const { return sizeof(T); }
  template <class G>
  GSHMEM_HD GSHMEM_INLINE void reduce(void* out, const void* const* srcs, int nsrc,
                                      size_t count) const {
    reduce_elements<G, T, Op>(out, srcs, nsrc, count);
  }
  template <class G>
  GSHMEM_HD GSHMEM_INLINE void finish(void* out, size_t count, int n) const {
    if constexpr (kAvg) divide_elements<G, T>(out, count, n);
  }
};

}  // namespace gshmem::coll
