// Shared by the collective tests: crafted inputs whose results are exact in every type (so every
// algorithm must produce the same bits), an independent host reference, and one runner that
// calls a collective on this PE and checks its output.
//
// Inputs: member p's element k is a small integer (|x| <= 4; for PROD one of -1, 1, 2), so sums
// and products of up to 8 members are exact in half, bfloat16 and float, and the order of the
// reduction cannot change a bit. Integer types get full-range values (their SUM and PROD wrap,
// which the reference computes in uint64). AVG is that exact sum divided once by n in the type's
// arithmetic, as the library does.
#pragma once

#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

#include "collectives/coll_host.hpp"
#include "collectives/host_reducer.hpp"
#include "gshmem/coll/numeric.cuh"
#include "gshmem/collectives.h"
#include "gshmem/gshmem.h"
#include "tests/common/mp_util.hpp"

namespace coll_test {

using gshmem::coll::Algo;
using gshmem::coll::Coll;
namespace gc = gshmem::coll;

inline const gshmem_datatype_t kAllTypes[] = {
    GSHMEM_FLOAT, GSHMEM_DOUBLE, GSHMEM_HALF,       GSHMEM_BFLOAT16, GSHMEM_INT8,
    GSHMEM_UINT8, GSHMEM_INT16,  GSHMEM_UINT16,     GSHMEM_INT32,    GSHMEM_UINT32,
    GSHMEM_INT64, GSHMEM_UINT64, GSHMEM_LONGDOUBLE, GSHMEM_COMPLEXF, GSHMEM_COMPLEXD};
inline const gshmem_redop_t kAllOps[] = {GSHMEM_SUM, GSHMEM_PROD, GSHMEM_MIN, GSHMEM_MAX,
                                         GSHMEM_AVG, GSHMEM_BAND, GSHMEM_BOR, GSHMEM_BXOR};

inline bool reduces(Coll c) {
  return c == Coll::AllReduce || c == Coll::Reduce || c == Coll::ReduceScatter;
}

// Whether op applies to dtype (what the library accepts).
inline bool valid_op(gshmem_datatype_t t, gshmem_redop_t op) {
  return gc::visit_type(t, [&](auto v) { return gc::op_supported<decltype(v)>(op); });
}

inline uint64_t mix(uint64_t a, uint64_t b, uint64_t c) {
  uint64_t s = a * 0x9e3779b97f4a7c15ull ^ (b + 0x632be59bd9b4e019ull) * 0xbf58476d1ce4e5b9ull ^ c;
  return gshmem_test::splitmix64(s);
}

// Member p's element k for `op` (as an integer pattern; converted per type below).
inline int64_t small_value(uint64_t salt, int p, uint64_t k, gshmem_redop_t op) {
  uint64_t r = mix(salt, uint64_t(p), k);
  if (op == GSHMEM_PROD) {
    static const int v[] = {1, -1, 2, 1};
    return v[r % 4];
  }
  return int64_t(r % 9) - 4;
}

template <class T>
T make_value(uint64_t salt, int p, uint64_t k, gshmem_redop_t op) {
  int64_t s = small_value(salt, p, k, op);
  if constexpr (std::is_integral_v<T>) {
    if (op == GSHMEM_PROD || op == GSHMEM_SUM || op == GSHMEM_MIN || op == GSHMEM_MAX ||
        op >= GSHMEM_BAND) {
      return T(mix(salt ^ 0x5bd1e995u, uint64_t(p), k));  // full range
    }
    return T(s);
  } else if constexpr (std::is_same_v<T, gc::half_t>) {
    return gc::float_to_half(float(s));
  } else if constexpr (std::is_same_v<T, gc::bfloat16_t>) {
    return gc::float_to_bf16(float(s));
  } else if constexpr (std::is_same_v<T, gc::complexf_t>) {
    return {float(s % 2), float(small_value(salt + 1, p, k, op) % 2)};
  } else if constexpr (std::is_same_v<T, gc::complexd_t>) {
    return {double(s % 2), double(small_value(salt + 1, p, k, op) % 2)};
  } else {
    return T(s);
  }
}

template <class T>
long double as_ld(T v) {
  if constexpr (std::is_same_v<T, gc::half_t>) {
    return gc::half_to_float(v);
  } else if constexpr (std::is_same_v<T, gc::bfloat16_t>) {
    return gc::bf16_to_float(v);
  } else {
    return static_cast<long double>(v);
  }
}

template <class T>
T from_ld(long double v) {
  if constexpr (std::is_same_v<T, gc::half_t>) {
    return gc::float_to_half(float(v));
  } else if constexpr (std::is_same_v<T, gc::bfloat16_t>) {
    return gc::float_to_bf16(float(v));
  } else {
    return T(v);
  }
}

// The reference reduction of vals (one per member, in member order).
template <class T>
T reference(gshmem_redop_t op, const std::vector<T>& vals) {
  const int n = int(vals.size());
  if constexpr (gc::is_complex_v<T>) {
    long double re = vals[0].re, im = vals[0].im;
    for (int i = 1; i < n; ++i) {
      if (op == GSHMEM_SUM) {
        re += vals[size_t(i)].re;
        im += vals[size_t(i)].im;
      } else {
        long double r2 = re * vals[size_t(i)].re - im * vals[size_t(i)].im;
        im = re * vals[size_t(i)].im + im * vals[size_t(i)].re;
        re = r2;
      }
    }
    using C = decltype(vals[0].re);
    return {C(re), C(im)};
  } else if constexpr (std::is_integral_v<T>) {
    uint64_t acc = uint64_t(vals[0]);
    T m = vals[0];
    for (int i = 1; i < n; ++i) {
      T v = vals[size_t(i)];
      switch (op) {
        case GSHMEM_SUM:
          acc += uint64_t(v);
          break;
        case GSHMEM_PROD:
          acc *= uint64_t(v);
          break;
        case GSHMEM_BAND:
          acc &= uint64_t(v);
          break;
        case GSHMEM_BOR:
          acc |= uint64_t(v);
          break;
        case GSHMEM_BXOR:
          acc ^= uint64_t(v);
          break;
        case GSHMEM_MIN:
          m = v < m ? v : m;
          break;
        default:
          m = v > m ? v : m;
          break;
      }
    }
    return op == GSHMEM_MIN || op == GSHMEM_MAX ? m : T(acc);
  } else {
    long double acc = as_ld(vals[0]);
    for (int i = 1; i < n; ++i) {
      long double v = as_ld(vals[size_t(i)]);
      switch (op) {
        case GSHMEM_PROD:
          acc *= v;
          break;
        case GSHMEM_MIN:
          acc = v < acc ? v : acc;
          break;
        case GSHMEM_MAX:
          acc = v > acc ? v : acc;
          break;
        default:
          acc += v;
          break;
      }
    }
    T r = from_ld<T>(acc);
    if (op == GSHMEM_AVG) {
      using Ar = gc::Arith<T>;
      r = Ar::store(Ar::load(r) / static_cast<typename Ar::A>(n));
    }
    return r;
  }
}

// One call's description.
struct Case {
  Coll coll;
  gshmem_datatype_t dtype;
  gshmem_redop_t op = GSHMEM_SUM;
  size_t count;
  int root = 0;  // team index
  bool in_place = false;
  bool symmetric = false;  // buffers from the symmetric heap (lets direct algorithms skip copies)
  uint64_t salt = 1;
};

inline std::string describe(const Case& c, gshmem_team_t team) {
  return std::string(gc::coll_name(c.coll)) + " " + gc::dtype_short_name(c.dtype) + " " +
         gc::op_short_name(c.op) + " count=" + std::to_string(c.count) +
         " root=" + std::to_string(c.root) + (c.in_place ? " in-place" : " out-of-place") +
         (c.symmetric ? " symmetric" : " private") +
         " algo=" + gc::algo_name(gc::overrides().algo[int(c.coll)]) +
         " team=" + std::to_string(team) + " salt=" + std::to_string(c.salt);
}

// Symmetric scratch the runner takes buffers from (allocated once, collectively).
struct SymArena {
  char* base = nullptr;
  size_t bytes = 0;
};
inline SymArena& arena() {
  static SymArena a;
  return a;
}
// Collective over the world; call before tests that use symmetric buffers.
inline void ensure_arena(size_t bytes) {
  SymArena& a = arena();
  if (a.bytes >= bytes) return;
  if (a.base) gshmem_free(a.base);
  a.base = static_cast<char*>(gshmem_malloc(bytes));
  a.bytes = a.base ? bytes : 0;
}

constexpr size_t kGuard = 64;  // poisoned bytes after the output region

template <class T>
double as_ld_any(const T& v) {
  if constexpr (gc::is_complex_v<T>) {
    return double(v.re) + 1000.0 * double(v.im);
  } else {
    return double(as_ld(v));
  }
}

// Runs one collective on `team` and checks this PE's output, and that nothing else in the output
// region (or past it) changed. Returns the number of wrong elements; the first few are reported.
// Whether a result element is what the reference says. long double has 6 bytes of padding that
// copies need not preserve: compare its value. Complex products may differ in the sign of a zero
// with the order of evaluation.
template <class T>
bool same_bits(const T& got, const T& want) {
  if constexpr (std::is_same_v<T, long double>) {
    return got == want;
  } else if constexpr (gc::is_complex_v<T>) {
    return got.re == want.re && got.im == want.im;
  } else {
    return std::memcmp(&got, &want, sizeof(T)) == 0;
  }
}

// Calls want(i, value) for every element i of dst that the call writes on member `me` of an
// n-member team, with the value the reference says it must hold. Returns how many it writes.
template <class T, class Want>
size_t for_each_expected(const Case& c, int n, int me, Want&& want) {
  const size_t count = c.count;
  std::vector<T> vals(static_cast<size_t>(n));
  auto reduce_at = [&](size_t k) {
    for (int p = 0; p < n; ++p) vals[size_t(p)] = make_value<T>(c.salt, p, k, c.op);
    return reference<T>(c.op, vals);
  };
  switch (c.coll) {
    case Coll::Reduce:
      if (me != c.root) return 0;
      [[fallthrough]];
    case Coll::AllReduce:
      for (size_t i = 0; i < count; ++i) want(i, reduce_at(i));
      return count;
    case Coll::ReduceScatter:
      for (size_t i = 0; i < count; ++i) want(i, reduce_at(size_t(me) * count + i));
      return count;
    case Coll::AllGather:
      for (int p = 0; p < n; ++p) {
        for (size_t i = 0; i < count; ++i) {
          want(size_t(p) * count + i, make_value<T>(c.salt, p, i, c.op));
        }
      }
      return count * size_t(n);
    case Coll::Broadcast:
      for (size_t i = 0; i < count; ++i) want(i, make_value<T>(c.salt, c.root, i, c.op));
      return count;
    case Coll::AllToAll:
      for (int p = 0; p < n; ++p) {
        for (size_t i = 0; i < count; ++i) {
          want(size_t(p) * count + i, make_value<T>(c.salt, p, size_t(me) * count + i, c.op));
        }
      }
      return count * size_t(n);
  }
  return 0;
}

template <class T>
size_t run_case_typed(const Case& c, gshmem_team_t team) {
  const int n = gshmem_team_n_pes(team), me = gshmem_team_my_pe(team);
  const size_t count = c.count, es = sizeof(T), N = size_t(n);
  size_t src_elems = count, dst_elems = count;
  switch (c.coll) {
    case Coll::AllGather:
      dst_elems = count * N;
      break;
    case Coll::ReduceScatter:
      src_elems = count * N;
      break;
    case Coll::AllToAll:
      src_elems = dst_elems = count * N;
      break;
    default:
      break;
  }
  // The output region: dst (in place ReduceScatter: the whole src), then a guard.
  const bool rs_in_place = c.in_place && c.coll == Coll::ReduceScatter;
  const size_t reg_bytes = (rs_in_place ? src_elems : dst_elems) * es + kGuard;
  const size_t reg_span = (reg_bytes + 4095) / 4096 * 4096;
  std::vector<char> priv_reg, priv_src;
  char* reg;
  char* src_mem;
  if (c.symmetric) {
    if (arena().bytes < reg_span + src_elems * es + 64) {
      ADD_FAILURE() << "symmetric arena too small for " << describe(c, team);
      return 1;
    }
    reg = arena().base;
    src_mem = arena().base + reg_span;
  } else {
    priv_reg.resize(reg_bytes);
    priv_src.resize(src_elems * es + 1);
    reg = priv_reg.data();
    src_mem = priv_src.data();
  }
  std::memset(reg, 0xA5, reg_bytes);
  T* out = reinterpret_cast<T*>(reg);
  T* in = reinterpret_cast<T*>(src_mem);
  if (c.in_place) {
    in = c.coll == Coll::AllGather ? out + size_t(me) * count : out;
    if (rs_in_place) out = in + size_t(me) * count;
  }
  for (size_t k = 0; k < src_elems; ++k) in[k] = make_value<T>(c.salt, me, k, c.op);
  const std::vector<char> before(reg, reg + reg_bytes);

  int rc = GSHMEM_SUCCESS;
  switch (c.coll) {
    case Coll::AllReduce:
      rc = gshmem_allreduce(team, out, in, count, c.dtype, c.op, nullptr);
      break;
    case Coll::Reduce:
      rc = gshmem_reduce(team, out, in, count, c.dtype, c.op, c.root, nullptr);
      break;
    case Coll::ReduceScatter:
      rc = gshmem_reducescatter(team, out, in, count, c.dtype, c.op, nullptr);
      break;
    case Coll::AllGather:
      rc = gshmem_allgather(team, out, in, count, c.dtype, nullptr);
      break;
    case Coll::Broadcast:
      rc = gshmem_broadcast(team, out, in, count, c.dtype, c.root, nullptr);
      break;
    case Coll::AllToAll:
      rc = gshmem_alltoall(team, out, in, count, c.dtype, nullptr);
      break;
  }
  if (rc != GSHMEM_SUCCESS) {
    ADD_FAILURE() << "returned " << rc << ": " << describe(c, team);
    return 1;
  }

  size_t wrong = 0;
  const size_t written = for_each_expected<T>(c, n, me, [&](size_t i, const T& want) {
    if (same_bits(out[i], want) || ++wrong > 3) return;
    ADD_FAILURE() << describe(c, team) << ": element " << i << " is " << as_ld_any(out[i])
                  << ", expected " << as_ld_any(want) << " [" << gshmem_test::seed_note() << "]";
  });
  const size_t lo = size_t(reinterpret_cast<char*>(out) - reg), hi = lo + written * es;
  for (size_t b = 0; b < reg_bytes; ++b) {
    if (b >= lo && b < hi) continue;
    if (reg[b] != before[b]) {
      ++wrong;
      ADD_FAILURE() << describe(c, team) << ": byte " << b << " of the output region (result at ["
                    << lo << ", " << hi << ")) changed";
      break;
    }
  }
  return wrong;
}

inline size_t run_case(const Case& c, gshmem_team_t team = GSHMEM_TEAM_WORLD) {
  return gc::visit_type(c.dtype, [&](auto v) { return run_case_typed<decltype(v)>(c, team); });
}

// Forces `algo` for every collective (Auto: the planner's choice) until the object dies. The
// protocol stays as GSHMEM_PROTO says (the suite runs the matrix once with ll forced).
class ForceAlgo {
 public:
  explicit ForceAlgo(Algo algo, int nch = 0, uint64_t chunk = 0) {
    gc::Overrides o;
    o.proto = gc::overrides().proto;
    o.adapt = gc::overrides().adapt;
    for (Algo& a : o.algo) a = algo;
    o.nch = nch;
    o.chunk = chunk;
    gc::set_overrides(&o);
  }
  ~ForceAlgo() { gc::set_overrides(nullptr); }
  ForceAlgo(const ForceAlgo&) = delete;
  ForceAlgo& operator=(const ForceAlgo&) = delete;
};

// The algorithms that implement coll on the world team here (forced ones that do not apply fall
// back to the planner, which would only repeat it).
inline std::vector<Algo> algorithms_for(Coll coll, gshmem_team_t team = GSHMEM_TEAM_WORLD) {
  std::vector<Algo> out;
  gc::TeamShape s = gc::team_shape(team);
  for (int i = 1; i < gc::kNumAlgos; ++i) {
    if (gc::applicable(coll, Algo(i), s)) out.push_back(Algo(i));
  }
  return out;
}

}  // namespace coll_test
