#include "collectives/host_reducer.hpp"

#include <algorithm>
#include <array>

namespace gshmem::coll {

namespace {

// The reduction loops are built for x86-64's baseline (16-byte SSE2 vectors) and for AVX2, and
// the loader picks what the CPU runs (GCC's target_clones, an ifunc of glibc). A CPU PE's
// reduction of four sources ran at half the memory rate with 16-byte vectors: a 4-PE
// ReduceScatter of 16 MiB on 2 cores reached 0.5 of the memory floor. Every element is computed by
// the same operations either way (element-wise, and no multiply is contracted into an add:
// -ffp-contract=off in collectives/CMakeLists.txt), so both give the same bits. Baseline only
// with clang and nvc++ (no clones of templates), under ThreadSanitizer (the loader runs the
// clones' resolver before TSan's runtime is up, and the library crashed at start), and with
// GSHMEM_REDUCE_CLONES=OFF (CI's sanitizer build, so that the tests check the baseline too).
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && !defined(__NVCOMPILER) && \
    defined(__GLIBC__) && !defined(__SANITIZE_THREAD__) && !defined(GSHMEM_NO_REDUCE_CLONES)
#define GSHMEM_REDUCE_CLONES __attribute__((target_clones("avx2", "default")))
#else
#define GSHMEM_REDUCE_CLONES
#endif

// A long reduction asks for each source's lines kPrefetchAhead bytes ahead (the hardware's
// prefetchers stop at every 4 KiB page, which is likely what the loop waited on). Measured with
// CPU PEs on 2 cores, the two builds alternating job by job, GB/s of the reduction's traffic per
// PE: ReduceScatter of 32 MiB at 2 PEs 16.2 -> 20.0 (mean of 6 pairs, faster in all 6), of
// 16 MiB at 4 PEs 7.7 -> 8.3 (8 pairs, faster in 7); AllReduce within the noise. Reductions of up
// to 4 sources only: more go by tiles of 1024 elements (reduce_host), each pass below the
// threshold. Near a source's end the last element is asked for again, so the address stays in
// the buffer (an address computed as an integer instead made GCC 12 load the sources float by
// float: the AVX2 loop 1.3 times its size, and slower).
constexpr size_t kPrefetchAhead = 2048;
constexpr size_t kPrefetchMinBytes = 64 << 10;

// Element i + kPrefetchAhead bytes' worth of elements of p, or its last element near the end.
template <class E>
GSHMEM_INLINE void prefetch_ahead(const E* p, size_t i, size_t count) {
  constexpr size_t kAhead = kPrefetchAhead / sizeof(E);
  __builtin_prefetch(p + (i + kAhead < count ? i + kAhead : count - 1), 0, 0);
}

// out[i] = first[i] op rest[0][i] op ... op rest[N-2][i], left to right as reduce_elements does
// on the device, computed in Arith<T>::A. In and Out are T (converted on the way in or out) or A
// (an accumulator that stays in A). Blocks of 64 bytes of A are reduced in registers: the block
// loops have a fixed trip count and write only a local array, so the compiler turns them into
// SIMD without alias checks, and out may be one of the inputs (every load of a block comes before
// its stores).
template <class T, class Op, int N, class In, class Out>
GSHMEM_REDUCE_CLONES void fuse(Out* out, const In* first, const T* const* rest, size_t count) {
  using Ar = Arith<T>;
  using A = typename Ar::A;
  constexpr size_t kV = sizeof(A) < 64 ? 64 / sizeof(A) : 1;
  auto in = [](In v) -> A {
    if constexpr (std::is_same_v<In, A>) {
      return v;
    } else {
      return Ar::load(v);
    }
  };
  auto put = [](A v) -> Out {
    if constexpr (std::is_same_v<Out, A>) {
      return v;
    } else {
      return Ar::store(v);
    }
  };
  size_t i = 0;
  const bool ahead = count * sizeof(T) >= kPrefetchMinBytes;
  for (; i + kV <= count; i += kV) {
    if (ahead) {
      prefetch_ahead(first, i, count);
      for (int k = 0; k < N - 1; ++k) prefetch_ahead(rest[k], i, count);
    }
    A acc[kV];
    for (size_t j = 0; j < kV; ++j) acc[j] = in(first[i + j]);
    for (int k = 0; k < N - 1; ++k) {
      for (size_t j = 0; j < kV; ++j) acc[j] = Op::apply(acc[j], Ar::load(rest[k][i + j]));
    }
    for (size_t j = 0; j < kV; ++j) out[i + j] = put(acc[j]);
  }
  for (; i < count; ++i) {
    A acc = in(first[i]);
    for (int k = 0; k < N - 1; ++k) acc = Op::apply(acc, Ar::load(rest[k][i]));
    out[i] = put(acc);
  }
}

// fuse() with N = 1 + nrest, nrest from 0 to 3.
template <class T, class Op, class In, class Out>
void fuse_n(int nrest, Out* out, const In* first, const T* const* rest, size_t count) {
  switch (nrest) {
    case 0:
      return fuse<T, Op, 1>(out, first, rest, count);
    case 1:
      return fuse<T, Op, 2>(out, first, rest, count);
    case 2:
      return fuse<T, Op, 3>(out, first, rest, count);
    default:
      return fuse<T, Op, 4>(out, first, rest, count);
  }
}

// Up to 4 sources in one pass. More: tiles of an accumulator in A that stay in L1, each pass over
// a tile taking 3 more sources, so every source still streams through memory once and the
// accumulator never leaves A (half and bfloat16 round once, at the end).
template <class T, class Op>
void reduce_host(void* out, const void* const* srcs, int nsrc, size_t count) {
  using A = typename Arith<T>::A;
  T* o = static_cast<T*>(out);
  const T* rest[3] = {};
  auto gather = [&](int from, int to, size_t base) {
    for (int k = from; k < to; ++k) rest[k - from] = static_cast<const T*>(srcs[k]) + base;
  };
  const T* s0 = static_cast<const T*>(srcs[0]);
  if (nsrc <= 4) {
    gather(1, nsrc, 0);
    return fuse_n<T, Op>(nsrc - 1, o, s0, rest, count);
  }
  constexpr size_t kTile = 1024;
  A acc[kTile];
  for (size_t base = 0; base < count; base += kTile) {
    const size_t m = std::min(kTile, count - base);
    gather(1, 4, base);
    fuse<T, Op, 4>(acc, s0 + base, rest, m);
    int k = 4;
    for (; nsrc - k > 3; k += 3) {
      gather(k, k + 3, base);
      fuse<T, Op, 4>(acc, acc, rest, m);
    }
    gather(k, nsrc, base);
    fuse_n<T, Op>(nsrc - k, o + base, acc, rest, m);
  }
}

template <class T>
void divide(void* out, size_t count, int n) {
  divide_elements<Thread, T>(out, count, n);
}

// The reducer of one (dtype, op) pair, both in range.
HostReducer make_reducer(gshmem_datatype_t dtype, gshmem_redop_t op) {
  return visit_type(dtype, [&](auto t) -> HostReducer {
    using T = decltype(t);
    HostReducer r;
    r.es = sizeof(T);
    if (!op_supported<T>(op)) return r;
    r.reduce_fn = visit_op(op, [](auto o) -> ReduceFn {
      using Op = decltype(o);
      if constexpr (op_exists_v<T, Op>) {
        return &reduce_host<T, Op>;
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

}  // namespace

// Every pair's reducer made once: every collective call asks for one, and the two switches that
// make it were 9% of a 2-PE Broadcast of 8 bytes (which does not even reduce).
HostReducer host_reducer(gshmem_datatype_t dtype, gshmem_redop_t op) {
  if (dtype < 0 || dtype >= GSHMEM_DATATYPE_COUNT || op < 0 || op >= GSHMEM_REDOP_COUNT) return {};
  using Row = std::array<HostReducer, GSHMEM_REDOP_COUNT>;
  static const std::array<Row, GSHMEM_DATATYPE_COUNT> kTable = [] {
    std::array<Row, GSHMEM_DATATYPE_COUNT> t{};
    for (int d = 0; d < GSHMEM_DATATYPE_COUNT; ++d) {
      for (int o = 0; o < GSHMEM_REDOP_COUNT; ++o) {
        t[size_t(d)][size_t(o)] = make_reducer(gshmem_datatype_t(d), gshmem_redop_t(o));
      }
    }
    return t;
  }();
  return kTable[size_t(dtype)][size_t(op)];
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
