// Remote atomics from kernels, every family of typelist.h: a fixed sequence of operations by one
// thread on the successor's word, whose every fetched value the host predicts, and contended
// fetch_add/inc from every thread of two blocks (fetched values must be distinct, the total
// exact).
#include <algorithm>

#include "tests/gpu/gpu_util.cuh"

using namespace gshmem_gpu_test;

namespace {

class GpuAmo : public testing::Test {
 protected:
  void SetUp() override { GPU_TEST_SETUP(); }
};

// What the sequences return, in order; `v` are the operands.
constexpr int kStdSteps = 9;
constexpr int kBitSteps = 5;
constexpr int kExtSteps = 3;

template <class T>
void expect_std(const T* v, T* out) {
  T x = v[0];                   // set(v0)
  out[0] = x;                   // fetch
  out[1] = x, x = v[1];         // swap(v1)
  out[2] = x, x = v[2];         // compare_swap(v1 -> v2): succeeds
  out[3] = x;                   // compare_swap(v3 -> v4): fails, v3 != v2
  out[4] = x, x = T(x + v[5]);  // fetch_add(v5)
  x = T(x + v[5]);              // add(v5)
  out[5] = x, x = T(x + 1);     // fetch_inc
  x = T(x + 1);                 // inc
  out[6] = x;                   // fetch
  out[7] = T(x + 0);            // fetch again after nothing
  out[8] = x;
}
template <class T>
void expect_bit(const T* v, T* out) {
  T x = v[0];
  out[0] = x, x = T(x & v[1]);  // fetch_and
  x = T(x & v[2]);              // and
  out[1] = x, x = T(x | v[3]);  // fetch_or
  x = T(x | v[4]);              // or
  out[2] = x, x = T(x ^ v[5]);  // fetch_xor
  x = T(x ^ v[6]);              // xor
  out[3] = x;                   // fetch
  out[4] = x;
}
template <class T>
void expect_ext(const T* v, T* out) {
  out[0] = v[0];  // fetch after set(v0)
  out[1] = v[0];  // swap(v1)
  out[2] = v[1];  // fetch
}

#define AMO_STD_KERNEL(NAME, T)                                                            \
  __global__ void NAME##_std_kernel(T* w, const T* v, T* out, int pe) {                    \
    if (threadIdx.x || blockIdx.x) return;                                                 \
    gshmem_##NAME##_atomic_set(w, v[0], pe);                                               \
    gshmem_fence();                                                                        \
    out[0] = gshmem_##NAME##_atomic_fetch(w, pe);                                          \
    out[1] = gshmem_##NAME##_atomic_swap(w, v[1], pe);                                     \
    out[2] = gshmem_##NAME##_atomic_compare_swap(w, v[1], v[2], pe);                       \
    out[3] = gshmem_##NAME##_atomic_compare_swap(w, v[3], v[4], pe);                       \
    out[4] = gshmem_##NAME##_atomic_fetch_add(w, v[5], pe);                                \
    gshmem_##NAME##_atomic_add(w, v[5], pe);                                               \
    gshmem_fence();                                                                        \
    out[5] = gshmem_##NAME##_atomic_fetch_inc(w, pe);                                      \
    gshmem_##NAME##_atomic_inc(w, pe);                                                     \
    gshmem_quiet();                                                                        \
    out[6] = gshmem_##NAME##_atomic_fetch(w, pe);                                          \
    out[7] = gshmem_##NAME##_atomic_fetch(w, pe);                                          \
    out[8] = gshmem_##NAME##_g(w, pe);                                                     \
  }                                                                                        \
  /* Every thread: fetch_add(1) or inc on the successor's counter; fetched values kept. */ \
  __global__ void NAME##_contended_kernel(T* counter, T* fetched, int pe) {                \
    size_t t = blockIdx.x * size_t(blockDim.x) + threadIdx.x;                              \
    fetched[t] = gshmem_##NAME##_atomic_fetch_add(counter, (T)1, pe);                      \
    gshmem_##NAME##_atomic_inc(counter + 1, pe);                                           \
    gshmem_quiet();                                                                        \
  }
#define AMO_BIT_KERNEL(NAME, T)                                         \
  __global__ void NAME##_bit_kernel(T* w, const T* v, T* out, int pe) { \
    if (threadIdx.x || blockIdx.x) return;                              \
    gshmem_##NAME##_atomic_set(w, v[0], pe);                            \
    gshmem_fence();                                                     \
    out[0] = gshmem_##NAME##_atomic_fetch_and(w, v[1], pe);             \
    gshmem_##NAME##_atomic_and(w, v[2], pe);                            \
    gshmem_fence();                                                     \
    out[1] = gshmem_##NAME##_atomic_fetch_or(w, v[3], pe);              \
    gshmem_##NAME##_atomic_or(w, v[4], pe);                             \
    gshmem_fence();                                                     \
    out[2] = gshmem_##NAME##_atomic_fetch_xor(w, v[5], pe);             \
    gshmem_##NAME##_atomic_xor(w, v[6], pe);                            \
    gshmem_quiet();                                                     \
    out[3] = gshmem_##NAME##_atomic_fetch(w, pe);                       \
    out[4] = gshmem_##NAME##_g(w, pe);                                  \
  }
#define AMO_EXT_KERNEL(NAME, T)                                         \
  __global__ void NAME##_ext_kernel(T* w, const T* v, T* out, int pe) { \
    if (threadIdx.x || blockIdx.x) return;                              \
    gshmem_##NAME##_atomic_set(w, v[0], pe);                            \
    gshmem_fence();                                                     \
    out[0] = gshmem_##NAME##_atomic_fetch(w, pe);                       \
    out[1] = gshmem_##NAME##_atomic_swap(w, v[1], pe);                  \
    out[2] = gshmem_##NAME##_atomic_fetch(w, pe);                       \
  }
GSHMEM_FOR_AMO_TYPES(AMO_STD_KERNEL)
GSHMEM_FOR_AMO_BITWISE_TYPES(AMO_BIT_KERNEL)
GSHMEM_FOR_AMO_EXTENDED_TYPES(AMO_EXT_KERNEL)

template <class T>
using SeqKernel = void (*)(T*, const T*, T*, int);

// One thread on each PE runs the sequence on its successor's word; the host predicts it.
template <class T>
void run_sequence(const char* family, SeqKernel<T> kernel, int steps,
                  void (*expect)(const T*, T*)) {
  const int me = gshmem_my_pe(), npes = gshmem_n_pes();
  SCOPED_TRACE(std::string(family) + "; " + seed_note());
  std::vector<T> v = make_data<T>(8, key(job_seed(), family, me));
  if constexpr (!std::is_floating_point_v<T>) v[3] = T(v[2] + 1);  // must differ from v2
  Sym word(sizeof(T) * 2);
  DevBuf dv(sizeof(T) * 8), out(sizeof(T) * size_t(steps));
  to_dev(dv.get(), v.data(), sizeof(T) * 8);
  poison_dev(out.get(), sizeof(T) * size_t(steps));
  gshmem_barrier_all();
  kernel<<<1, 32>>>(word.get<T>(), dv.get<T>(), out.get<T>(), (me + 1) % npes);
  kernel_done(family);
  gshmem_barrier_all();
  std::vector<T> got = from_dev<T>(out.get(), size_t(steps));
  std::vector<T> want(size_t(steps) > 9 ? size_t(steps) : 9);
  expect(v.data(), want.data());
  for (int i = 0; i < steps; ++i) {
    EXPECT_TRUE(same_bytes(&got[size_t(i)], &want[size_t(i)], sizeof(T))) << "step " << i;
  }
  gshmem_barrier_all();
}

template <class T>
void run_contended(const char* family, void (*kernel)(T*, T*, int)) {
  const int me = gshmem_my_pe(), npes = gshmem_n_pes();
  SCOPED_TRACE(std::string(family) + " contended; " + seed_note());
  const size_t threads = size_t(kBlocks) * kThreads;
  Sym counter(2 * sizeof(T));
  DevBuf fetched(threads * sizeof(T));
  GPU_CHECK(cudaMemset(counter.get(), 0, 2 * sizeof(T)));
  GPU_CHECK(cudaDeviceSynchronize());
  gshmem_barrier_all();
  kernel<<<kBlocks, kThreads>>>(counter.get<T>(), fetched.get<T>(), (me + 1) % npes);
  kernel_done(family);
  gshmem_barrier_all();
  std::vector<T> c = from_dev<T>(counter.get(), 2);
  EXPECT_EQ(uint64_t(c[0]), threads) << "fetch_add total from PE " << (me + npes - 1) % npes;
  EXPECT_EQ(uint64_t(c[1]), threads) << "inc total";
  // The fetched values were read on the predecessor; here we check our own launch's values.
  std::vector<T> f = from_dev<T>(fetched.get(), threads);
  std::sort(f.begin(), f.end());
  for (size_t i = 0; i < threads; ++i) {
    if (uint64_t(f[i]) != i) {
      ADD_FAILURE() << "fetched values are not 0.." << threads - 1 << ": position " << i
                    << " holds " << uint64_t(f[i]);
      break;
    }
  }
  gshmem_barrier_all();
}

TEST_F(GpuAmo, StandardSequence) {
#define RUN_STD(NAME, T) \
  run_sequence<T>("gshmem_" #NAME "_atomic_*", NAME##_std_kernel, kStdSteps, expect_std<T>);
  GSHMEM_FOR_AMO_TYPES(RUN_STD)
#undef RUN_STD
}

TEST_F(GpuAmo, BitwiseSequence) {
#define RUN_BIT(NAME, T)                                                                \
  run_sequence<T>("gshmem_" #NAME "_atomic_(and|or|xor)", NAME##_bit_kernel, kBitSteps, \
                  expect_bit<T>);
  GSHMEM_FOR_AMO_BITWISE_TYPES(RUN_BIT)
#undef RUN_BIT
}

TEST_F(GpuAmo, ExtendedSequence) {
#define RUN_EXT(NAME, T)                                                                    \
  run_sequence<T>("gshmem_" #NAME "_atomic_(fetch|set|swap)", NAME##_ext_kernel, kExtSteps, \
                  expect_ext<T>);
  GSHMEM_FOR_AMO_EXTENDED_TYPES(RUN_EXT)
#undef RUN_EXT
}

TEST_F(GpuAmo, Contended) {
#define RUN_CONTENDED(NAME, T) \
  run_contended<T>("gshmem_" #NAME "_atomic_fetch_add/inc", NAME##_contended_kernel);
  GSHMEM_FOR_AMO_TYPES(RUN_CONTENDED)
#undef RUN_CONTENDED
}

}  // namespace
