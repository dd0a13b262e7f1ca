// The last step of combine: each token's weighted sum of its top-k expert outputs, accumulated in
// fp32 in slot order (so every run, and the reference, rounds the same way), stored in the
// combine type with round-to-nearest-even (coll/numeric's conversions).
//
// The row loops are separate functions taking restrict pointers, and not inlined on the host:
// inlined into the token loop, GCC no longer proves the rows independent and leaves them scalar
// (3-4x slower on x86-64). They take no Plan, so other code (the MPI baseline) can use them.
#pragma once

#include "gshmem/coll/numeric.cuh"
#include "gshmem/device/group.cuh"
#include "moe/plan.cuh"

#if GSHMEM_ON_DEVICE
#define GSHMEM_MOE_ROW_LOOP
#else
#define GSHMEM_MOE_ROW_LOOP __attribute__((noinline))
#endif

namespace gshmem::moe::detail {

// One value as fp32. bf16 is widened from its raw bits (what coll::bf16_to_float does), which
// vectorises where a load of the wrapper struct does not.
GSHMEM_HD GSHMEM_INLINE float to_f32(const float* row, int32_t i) {
  return row[i];
}
GSHMEM_HD GSHMEM_INLINE float to_f32(const coll::bfloat16_t* row, int32_t i) {
  uint32_t bits = uint32_t(reinterpret_cast<const uint16_t*>(row)[i]) << 16;
  return coll::detail::bit_cast<float>(bits);
}
GSHMEM_HD GSHMEM_INLINE float to_f32(const coll::half_t* row, int32_t i) {
  return coll::half_to_float(row[i]);
}

// How far ahead of the row being summed a host thread asks for its lines. The rows a mapped peer
// stored are in that peer's core's cache; fetched on demand, one line at a time as the loop's
// window reaches it, summing them took twice as long as summing local rows (x86-64, SSE2 code).
constexpr int32_t kRowPrefetchBytes = 1024;

// The loop bodies; accumulate_row and store_row below are what callers use.
// acc[i] += w * row[i] for the group's share of i < n.
template <class G, class Y>
GSHMEM_HD GSHMEM_INLINE void accumulate_row_body(float* __restrict acc, const Y* __restrict row,
                                                 float w, int32_t n) {
  int32_t i = int32_t(G::rank());
#if !GSHMEM_ON_DEVICE
  // One cache line per step, with a prefetch of the line kRowPrefetchBytes ahead (past the row's
  // end it is harmless); the inner loop has a fixed trip count and vectorises.
  constexpr int32_t line = 64 / int32_t(sizeof(Y));
  if (G::size() == 1) {
    const char* bytes = reinterpret_cast<const char*>(row);
    for (; i + line <= n; i += line) {
      __builtin_prefetch(bytes + int64_t(i) * int64_t(sizeof(Y)) + kRowPrefetchBytes);
      for (int32_t j = i; j < i + line; ++j) acc[j] += w * to_f32(row, j);
    }
  }
#endif
  for (; i < n; i += int32_t(G::size())) acc[i] += w * to_f32(row, i);
}

// out[i] = acc[i] in Y, and acc[i] = 0 for the next token, for the group's share of i < n.
template <class G, class Y>
GSHMEM_HD GSHMEM_INLINE void store_row_body(Y* __restrict out, float* __restrict acc, int32_t n) {
  for (int32_t i = int32_t(G::rank()); i < n; i += int32_t(G::size())) {
    out[i] = coll::Arith<Y>::store(acc[i]);
    acc[i] = 0;
  }
}

// On x86-64 hosts the loops are also compiled for AVX2 and that copy runs where the CPU has it
// (about 1.5x faster than the SSE2 baseline on the bf16 rows of the DeepSeek shapes). AVX2 alone,
// without FMA or AVX-512 (whose fused multiply-add GCC would contract acc + w * y into): the sums
// round exactly as in the baseline copy and the reference. Not under nvcc, whose host pass gets the
// baseline loops.
#if !GSHMEM_ON_DEVICE && !defined(__CUDACC__) && defined(__x86_64__) && \
    (defined(__GNUC__) || defined(__clang__))
#define GSHMEM_MOE_AVX2_ROWS 1
inline bool host_has_avx2() {
  static const bool yes = [] {
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx2") != 0;
  }();
  return yes;
}
template <class Y>
__attribute__((target("avx2"), noinline)) void accumulate_row_avx2(float* __restrict acc,
                                                                   const Y* __restrict row, float w,
                                                                   int32_t n) {
  accumulate_row_body<Thread>(acc, row, w, n);
}
template <class Y>
__attribute__((target("avx2"), noinline)) void store_row_avx2(Y* __restrict out,
                                                              float* __restrict acc, int32_t n) {
  store_row_body<Thread>(out, acc, n);
}
#else
#define GSHMEM_MOE_AVX2_ROWS 0
#endif

// acc[i] += w * row[i] for the group's share of i < n.
template <class G, class Y>
GSHMEM_HD GSHMEM_MOE_ROW_LOOP void accumulate_row(float* __restrict acc, const Y* __restrict row,
                                                  float w, int32_t n) {
#if GSHMEM_MOE_AVX2_ROWS
  if (G::size() == 1 && host_has_avx2()) return accumulate_row_avx2(acc, row, w, n);
#endif
  accumulate_row_body<G>(acc, row, w, n);
}

// out[i] = acc[i] in Y, and acc[i] = 0 for the next token, for the group's share of i < n.
template <class G, class Y>
GSHMEM_HD GSHMEM_MOE_ROW_LOOP void store_row(Y* __restrict out, float* __restrict acc, int32_t n) {
#if GSHMEM_MOE_AVX2_ROWS
  if (G::size() == 1 && host_has_avx2()) return store_row_avx2(out, acc, n);
#endif
  store_row_body<G>(out, acc, n);
}

// out[t] = sum_k w[t][k] * y(t, k) for the tokens t = first, first + stride, ... below `tokens`,
// by the group G (its threads share each row): one group takes every token (first 0, stride 1),
// or several groups (a kernel's blocks) take turns. y(t, k) is y_in[pos[t][k]], or
// own[own_row[t][k]] where own_row has one and `own` is given: `own` is this member's expert
// outputs (combine_send's expert_y), still valid, whose rows were not copied into its own y_in.
// `acc` is hidden floats of zeros, the group's own, left zeroed.
template <class G, class Y>
GSHMEM_HD void weighted_sum(const Plan& p, const float* weights, Y* out, int32_t tokens, float* acc,
                            const Y* own, int32_t first = 0, int32_t stride = 1) {
  const int32_t H = p.hidden, K = p.topk;
  const Y* y = reinterpret_cast<const Y*>(p.y_in);
  for (int32_t t = first; t < tokens; t += stride) {
    for (int32_t k = 0; k < K; ++k) {
      const int32_t i = t * K + k, pos = p.pos[i];
      if (pos < 0) continue;
      const Y* row =
          own && p.own_row[i] >= 0 ? own + int64_t(p.own_row[i]) * H : y + int64_t(pos) * H;
      accumulate_row<G>(acc, row, weights[i], H);
    }
    // Each thread stores the elements it accumulated: no sync between the two.
    store_row<G>(out + int64_t(t) * H, acc, H);
  }
  G::sync();
}

}  // namespace gshmem::moe::detail
