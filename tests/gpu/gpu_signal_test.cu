// Put-with-signal from kernels at thread, warp and block scope (putmem_signal(+_nbi), typed
// put_signal(+_nbi)), with SET and ADD; signal_op, signal_fetch and signal_wait_until. The
// receiver's kernel waits for the signal and only then copies what arrived: whatever it copies
// must be complete, which is put-with-signal's contract.
#include "tests/gpu/gpu_util.cuh"

using namespace gshmem_gpu_test;

namespace {

class GpuSignal : public testing::Test {
 protected:
  void SetUp() override { GPU_TEST_SETUP(); }
};

constexpr size_t kGuard = 64;
constexpr uint64_t kSetBase = 1000;

template <Scope S>
__device__ unsigned group_count() {
  if constexpr (S == Scope::Thread) return gridDim.x * blockDim.x;
  if constexpr (S == Scope::Warp) return gridDim.x * (blockDim.x / 32);
  return gridDim.x;
}
template <Scope S>
__device__ unsigned group_index() {
  if constexpr (S == Scope::Thread) return blockIdx.x * blockDim.x + threadIdx.x;
  if constexpr (S == Scope::Warp) return blockIdx.x * (blockDim.x / 32) + threadIdx.x / 32;
  return blockIdx.x;
}

#define SCOPED_CALL(S, NAME, ...)            \
  do {                                       \
    if constexpr (S == Scope::Thread) {      \
      NAME(__VA_ARGS__);                     \
    } else if constexpr (S == Scope::Warp) { \
      NAME##_warp(__VA_ARGS__);              \
    } else {                                 \
      NAME##_block(__VA_ARGS__);             \
    }                                        \
  } while (0)

// Each group sends its slice to `pe` with a signal: ADD 1 on sig[0], or SET kSetBase + g on
// sig[g] (its own word). Then every thread waits for all of this PE's incoming signals and
// copies its share of what arrived into `check`.
#define SIGNAL_KERNEL(KERNEL, T, PUT, PUT_NBI)                                                   \
  template <Scope S, bool Nbi, int Op>                                                           \
  __global__ void KERNEL(T* remote, const T* local, size_t n, uint64_t* sig, int pe, T* check) { \
    size_t b, e;                                                                                 \
    bool leader;                                                                                 \
    my_slice<S>(n, &b, &e, &leader);                                                             \
    unsigned g = group_index<S>(), groups = group_count<S>();                                    \
    uint64_t* word = Op == GSHMEM_SIGNAL_ADD ? sig : sig + g;                                    \
    uint64_t value = Op == GSHMEM_SIGNAL_ADD ? 1 : kSetBase + g;                                 \
    if constexpr (Nbi) {                                                                         \
      SCOPED_CALL(S, PUT_NBI, remote + b, local + b, e - b, word, value, Op, pe);                \
    } else {                                                                                     \
      SCOPED_CALL(S, PUT, remote + b, local + b, e - b, word, value, Op, pe);                    \
    }                                                                                            \
    if (Op == GSHMEM_SIGNAL_ADD) {                                                               \
      gshmem_signal_wait_until(sig, GSHMEM_CMP_EQ, groups);                                      \
    } else {                                                                                     \
      for (unsigned k = 0; k < groups; ++k) {                                                    \
        gshmem_signal_wait_until(sig + k, GSHMEM_CMP_EQ, kSetBase + k);                          \
      }                                                                                          \
    }                                                                                            \
    size_t t = blockIdx.x * size_t(blockDim.x) + threadIdx.x;                                    \
    for (size_t i = t; i < n; i += size_t(gridDim.x) * blockDim.x) check[i] = remote[i];         \
    gshmem_quiet();                                                                              \
  }

SIGNAL_KERNEL(mem_signal_kernel, char, gshmem_putmem_signal, gshmem_putmem_signal_nbi)
SIGNAL_KERNEL(int_signal_kernel, int, gshmem_int_put_signal, gshmem_int_put_signal_nbi)
SIGNAL_KERNEL(double_signal_kernel, double, gshmem_double_put_signal, gshmem_double_put_signal_nbi)

template <class T>
using SignalKernel = void (*)(T*, const T*, size_t, uint64_t*, int, T*);

template <class T>
void run_signal(const char* family, SignalKernel<T> kernel, Scope scope, bool nbi, int op,
                size_t n) {
  const int me = gshmem_my_pe(), npes = gshmem_n_pes();
  const int next = (me + 1) % npes, prev = (me + npes - 1) % npes;
  const size_t bytes = n * sizeof(T);
  SCOPED_TRACE(std::string(family) + (nbi ? "_nbi" : "") + " " +
               (op == GSHMEM_SIGNAL_ADD ? "ADD" : "SET") + " at " + scope_name(scope) + " scope, " +
               std::to_string(n) + " elements; " + seed_note());
  const size_t words = size_t(kBlocks) * kThreads;  // at most one per group
  Sym remote(bytes + kGuard);
  Sym sig(words * sizeof(uint64_t));
  DevBuf local(bytes), check(bytes);
  const uint64_t tag = key(job_seed(), family, nbi, op, scope_name(scope), n);
  std::vector<unsigned char> mine = make_data<unsigned char>(bytes, key(tag, me));
  to_dev(local.get(), mine.data(), bytes);
  poison_dev(remote.get(), bytes + kGuard);
  poison_dev(check.get(), bytes);
  GPU_CHECK(cudaMemset(sig.get(), 0, words * sizeof(uint64_t)));
  GPU_CHECK(cudaDeviceSynchronize());
  gshmem_barrier_all();
  kernel<<<kBlocks, kThreads>>>(remote.get<T>(), local.get<T>(), n, sig.get<uint64_t>(), next,
                                check.get<T>());
  kernel_done(family);
  gshmem_barrier_all();
  std::vector<unsigned char> want = make_data<unsigned char>(bytes, key(tag, prev));
  std::vector<unsigned char> seen = from_dev(check.get(), bytes);
  EXPECT_TRUE(same_bytes(seen.data(), want.data(), bytes))
      << "data copied after the signal arrived (from PE " << prev << ")";
  std::vector<unsigned char> landed = from_dev(remote.get(), bytes + kGuard);
  EXPECT_TRUE(same_bytes(landed.data(), want.data(), bytes));
  EXPECT_TRUE(all_poison(landed, bytes, bytes + kGuard));
  gshmem_barrier_all();
}

#define RUN_SIGNAL_SCOPE(FAMILY, T, KERNEL, S)                                                \
  run_signal<T>(FAMILY, KERNEL<S, false, GSHMEM_SIGNAL_ADD>, S, false, GSHMEM_SIGNAL_ADD, n); \
  run_signal<T>(FAMILY, KERNEL<S, true, GSHMEM_SIGNAL_ADD>, S, true, GSHMEM_SIGNAL_ADD, n);   \
  run_signal<T>(FAMILY, KERNEL<S, false, GSHMEM_SIGNAL_SET>, S, false, GSHMEM_SIGNAL_SET, n); \
  run_signal<T>(FAMILY, KERNEL<S, true, GSHMEM_SIGNAL_SET>, S, true, GSHMEM_SIGNAL_SET, n);
#define RUN_SIGNAL(FAMILY, T, KERNEL)                                     \
  for (size_t n : {size_t(0), size_t(5), size_t(4097), size_t(300001)}) { \
    RUN_SIGNAL_SCOPE(FAMILY, T, KERNEL, Scope::Thread)                    \
    RUN_SIGNAL_SCOPE(FAMILY, T, KERNEL, Scope::Warp)                      \
    RUN_SIGNAL_SCOPE(FAMILY, T, KERNEL, Scope::Block)                     \
  }

TEST_F(GpuSignal, PutmemSignal){
    RUN_SIGNAL("gshmem_putmem_signal", char, mem_signal_kernel)} TEST_F(GpuSignal, IntPutSignal){
    RUN_SIGNAL("gshmem_int_put_signal", int, int_signal_kernel)} TEST_F(GpuSignal, DoublePutSignal){
    RUN_SIGNAL("gshmem_double_put_signal", double, double_signal_kernel)}

// signal_op SET then ADD to every PE's slot for this PE, by one thread; then waits for every
// slot of its own and records what signal_wait_until returned and what signal_fetch reads.
__global__ void signal_op_kernel(uint64_t* slots, int me, int npes, uint64_t base, uint64_t* seen) {
  if (blockIdx.x != 0 || threadIdx.x != 0) return;
  for (int t = 0; t < npes; ++t) {
    gshmem_signal_op(&slots[me], base, GSHMEM_SIGNAL_SET, t);
    gshmem_fence();  // the ADD must not overtake the SET
    gshmem_signal_op(&slots[me], uint64_t(me) + 1, GSHMEM_SIGNAL_ADD, t);
  }
  for (int s = 0; s < npes; ++s) {
    seen[2 * s] = gshmem_signal_wait_until(&slots[s], GSHMEM_CMP_EQ, base + uint64_t(s) + 1);
    seen[2 * s + 1] = gshmem_signal_fetch(&slots[s]);
  }
  gshmem_quiet();
}

TEST_F(GpuSignal, SignalOpFetchWait) {
  const int me = gshmem_my_pe(), npes = gshmem_n_pes();
  SCOPED_TRACE(seed_note());
  const uint64_t base = key(job_seed(), "signal_op") >> 8;  // room for the ADDs
  Sym slots(size_t(npes) * sizeof(uint64_t));
  DevBuf seen(2 * size_t(npes) * sizeof(uint64_t));
  GPU_CHECK(cudaMemset(slots.get(), 0, size_t(npes) * sizeof(uint64_t)));
  GPU_CHECK(cudaDeviceSynchronize());
  gshmem_barrier_all();
  signal_op_kernel<<<1, 32>>>(slots.get<uint64_t>(), me, npes, base, seen.get<uint64_t>());
  kernel_done("signal_op_kernel");
  gshmem_barrier_all();
  std::vector<uint64_t> got = from_dev<uint64_t>(seen.get(), 2 * size_t(npes));
  for (int s = 0; s < npes; ++s) {
    EXPECT_EQ(got[2 * s], base + uint64_t(s) + 1) << "signal_wait_until's value, slot " << s;
    EXPECT_EQ(got[2 * s + 1], base + uint64_t(s) + 1) << "signal_fetch, slot " << s;
  }
  gshmem_barrier_all();
}

}  // namespace
