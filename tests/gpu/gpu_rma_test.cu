// Device RMA from kernels through the C names, at thread, warp and block scope: putmem/getmem
// (+_nbi), typed put/get (+_nbi), sized put/get, p/g, iput/iget. Every PE writes to (or reads
// from) its successor in the ring; data is fresh random data from the job seed, destinations are
// poisoned first and have a poisoned guard after them that must survive.
#include "tests/gpu/gpu_util.cuh"

using namespace gshmem_gpu_test;

namespace {

class GpuRma : public testing::Test {
 protected:
  void SetUp() override { GPU_TEST_SETUP(); }
};

constexpr size_t kGuard = 64;
enum class Rma { Put, PutNbi, Get, GetNbi };
const char* rma_name(Rma r) {
  return r == Rma::Put ? "put" : r == Rma::PutNbi ? "put_nbi" : r == Rma::Get ? "get" : "get_nbi";
}
bool is_put(Rma r) {
  return r == Rma::Put || r == Rma::PutNbi;
}

// NAME at the kernel's scope: NAME, NAME_warp or NAME_block.
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

// One family: four operations over one element type. `remote` is symmetric, `local` private.
#define RMA_KERNEL(KERNEL, T, PUT, PUT_NBI, GET, GET_NBI)                               \
  template <Scope S, Rma R>                                                             \
  __global__ void KERNEL(T* remote, T* local, size_t n, int pe) {                       \
    size_t b, e;                                                                        \
    bool leader;                                                                        \
    my_slice<S>(n, &b, &e, &leader);                                                    \
    if constexpr (R == Rma::Put) SCOPED_CALL(S, PUT, remote + b, local + b, e - b, pe); \
    if constexpr (R == Rma::PutNbi) {                                                   \
      SCOPED_CALL(S, PUT_NBI, remote + b, local + b, e - b, pe);                        \
    }                                                                                   \
    if constexpr (R == Rma::Get) SCOPED_CALL(S, GET, local + b, remote + b, e - b, pe); \
    if constexpr (R == Rma::GetNbi) {                                                   \
      SCOPED_CALL(S, GET_NBI, local + b, remote + b, e - b, pe);                        \
    }                                                                                   \
    gshmem_quiet();                                                                     \
  }

RMA_KERNEL(mem_kernel, char, gshmem_putmem, gshmem_putmem_nbi, gshmem_getmem, gshmem_getmem_nbi)
RMA_KERNEL(int_kernel, int, gshmem_int_put, gshmem_int_put_nbi, gshmem_int_get, gshmem_int_get_nbi)
RMA_KERNEL(double_kernel, double, gshmem_double_put, gshmem_double_put_nbi, gshmem_double_get,
           gshmem_double_get_nbi)
RMA_KERNEL(longlong_kernel, long long, gshmem_longlong_put, gshmem_longlong_put_nbi,
           gshmem_longlong_get, gshmem_longlong_get_nbi)
RMA_KERNEL(uint8_kernel, uint8_t, gshmem_uint8_put, gshmem_uint8_put_nbi, gshmem_uint8_get,
           gshmem_uint8_get_nbi)
// The sized forms take void*: the kernels pass a uint32_t/uint64_t view.
RMA_KERNEL(sized32_kernel, uint32_t, gshmem_put32, gshmem_put32_nbi, gshmem_get32, gshmem_get32_nbi)
RMA_KERNEL(sized64_kernel, uint64_t, gshmem_put64, gshmem_put64_nbi, gshmem_get64, gshmem_get64_nbi)

template <class T>
using RmaKernel = void (*)(T*, T*, size_t, int);

// Runs one (family, scope, op, size) case on every PE and checks it. Collective.
template <class T>
void run_rma(const char* family, RmaKernel<T> kernel, Scope scope, Rma op, size_t n) {
  const int me = gshmem_my_pe(), npes = gshmem_n_pes();
  const int next = (me + 1) % npes, prev = (me + npes - 1) % npes;
  const size_t bytes = n * sizeof(T);
  SCOPED_TRACE(std::string(family) + " " + rma_name(op) + " at " + scope_name(scope) + " scope, " +
               std::to_string(n) + " elements; " + seed_note());
  Sym remote(bytes + kGuard);
  DevBuf local(bytes + kGuard);
  const uint64_t tag = key(job_seed(), family, rma_name(op), scope_name(scope), n);
  // Put: my local data lands in next's remote. Get: next's remote data lands in my local.
  std::vector<unsigned char> mine = make_data<unsigned char>(bytes, key(tag, me));
  if (is_put(op)) {
    to_dev(local.get(), mine.data(), bytes);
    poison_dev(remote.get(), bytes + kGuard);
  } else {
    poison_dev(remote.get(), bytes + kGuard);
    to_dev(remote.get(), mine.data(), bytes);
    poison_dev(local.get(), bytes + kGuard);
  }
  gshmem_barrier_all();
  kernel<<<kBlocks, kThreads>>>(remote.get<T>(), local.get<T>(), n, next);
  kernel_done(family);
  gshmem_barrier_all();
  std::vector<unsigned char> got =
      from_dev(is_put(op) ? remote.get() : local.get(), bytes + kGuard);
  std::vector<unsigned char> want =
      make_data<unsigned char>(bytes, key(tag, is_put(op) ? prev : next));
  EXPECT_TRUE(same_bytes(got.data(), want.data(), bytes))
      << (is_put(op) ? "from PE " : "read from PE ") << (is_put(op) ? prev : next);
  EXPECT_TRUE(all_poison(got, bytes, bytes + kGuard));
  gshmem_barrier_all();
}

// Every op and scope of one family, over a few sizes (odd ones: unaligned tails and slices).
#define RUN_FAMILY(FAMILY, T, KERNEL)                                                      \
  for (size_t n : {size_t(1), size_t(37), size_t(4099), size_t(65537)}) {                  \
    run_rma<T>(FAMILY, KERNEL<Scope::Thread, Rma::Put>, Scope::Thread, Rma::Put, n);       \
    run_rma<T>(FAMILY, KERNEL<Scope::Thread, Rma::PutNbi>, Scope::Thread, Rma::PutNbi, n); \
    run_rma<T>(FAMILY, KERNEL<Scope::Thread, Rma::Get>, Scope::Thread, Rma::Get, n);       \
    run_rma<T>(FAMILY, KERNEL<Scope::Thread, Rma::GetNbi>, Scope::Thread, Rma::GetNbi, n); \
    run_rma<T>(FAMILY, KERNEL<Scope::Warp, Rma::Put>, Scope::Warp, Rma::Put, n);           \
    run_rma<T>(FAMILY, KERNEL<Scope::Warp, Rma::PutNbi>, Scope::Warp, Rma::PutNbi, n);     \
    run_rma<T>(FAMILY, KERNEL<Scope::Warp, Rma::Get>, Scope::Warp, Rma::Get, n);           \
    run_rma<T>(FAMILY, KERNEL<Scope::Warp, Rma::GetNbi>, Scope::Warp, Rma::GetNbi, n);     \
    run_rma<T>(FAMILY, KERNEL<Scope::Block, Rma::Put>, Scope::Block, Rma::Put, n);         \
    run_rma<T>(FAMILY, KERNEL<Scope::Block, Rma::PutNbi>, Scope::Block, Rma::PutNbi, n);   \
    run_rma<T>(FAMILY, KERNEL<Scope::Block, Rma::Get>, Scope::Block, Rma::Get, n);         \
    run_rma<T>(FAMILY, KERNEL<Scope::Block, Rma::GetNbi>, Scope::Block, Rma::GetNbi, n);   \
  }

TEST_F(GpuRma, Putmem){RUN_FAMILY("gshmem_putmem/getmem", char, mem_kernel)} TEST_F(GpuRma,
                                                                                    TypedInt){
    RUN_FAMILY("gshmem_int_put/get", int, int_kernel)} TEST_F(GpuRma, TypedDouble){
    RUN_FAMILY("gshmem_double_put/get", double, double_kernel)} TEST_F(GpuRma, TypedLongLong){
    RUN_FAMILY("gshmem_longlong_put/get", long long, longlong_kernel)} TEST_F(GpuRma, TypedUint8){
    RUN_FAMILY("gshmem_uint8_put/get", uint8_t, uint8_kernel)} TEST_F(GpuRma, Sized32){
    RUN_FAMILY("gshmem_put32/get32", uint32_t, sized32_kernel)} TEST_F(GpuRma, Sized64){
    RUN_FAMILY("gshmem_put64/get64", uint64_t, sized64_kernel)}

// ---- p/g and strided, by single threads ----------------------------------------------------

// Thread i < n: p of element i to pe, or g of element i from pe.
#define PG_KERNEL(NAME, T)                                                                 \
  __global__ void NAME##_pg_kernel(T* remote, T* local, size_t n, int pe, bool put) {      \
    size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x;                              \
    if (i < n) {                                                                           \
      if (put) {                                                                           \
        gshmem_##NAME##_p(remote + i, local[i], pe);                                       \
      } else {                                                                             \
        local[i] = gshmem_##NAME##_g(remote + i, pe);                                      \
      }                                                                                    \
    }                                                                                      \
    gshmem_quiet();                                                                        \
  }                                                                                        \
  __global__ void NAME##_strided_kernel(T* remote, T* local, size_t n, int pe, bool put) { \
    if (blockIdx.x == 0 && threadIdx.x == 0) {                                             \
      if (put) {                                                                           \
        gshmem_##NAME##_iput(remote, local, 2, 3, n, pe);                                  \
      } else {                                                                             \
        gshmem_##NAME##_iget(local, remote, 3, 2, n, pe);                                  \
      }                                                                                    \
      gshmem_quiet();                                                                      \
    }                                                                                      \
  }
PG_KERNEL(int, int) PG_KERNEL(float, float) PG_KERNEL(ulonglong, unsigned long long)
    PG_KERNEL(short, short) PG_KERNEL(size, size_t)

        template <class T>
        using PgKernel = void(*)(T*, T*, size_t, int, bool);

// p/g move element i to element i; iput moves local[3i] to remote[2i], iget remote[2i] to
// local[3i]; every other element of the destination must keep its poison.
template <class T>
void run_pg(const char* family, PgKernel<T> kernel, bool put, bool strided, size_t n) {
  const int me = gshmem_my_pe(), npes = gshmem_n_pes();
  const int next = (me + 1) % npes, prev = (me + npes - 1) % npes;
  SCOPED_TRACE(std::string(family) + (put ? " put side" : " get side") + ", " + std::to_string(n) +
               " elements; " + seed_note());
  const size_t span = strided ? 3 * n : n;  // elements each buffer holds
  const size_t bytes = span * sizeof(T);
  Sym remote(bytes + kGuard);
  DevBuf local(bytes + kGuard);
  const uint64_t tag = key(job_seed(), family, put, strided, n);
  std::vector<T> mine = make_data<T>(span, key(tag, me));
  poison_dev(remote.get(), bytes + kGuard);
  poison_dev(local.get(), bytes + kGuard);
  to_dev(put ? local.get() : remote.get(), mine.data(), bytes);
  gshmem_barrier_all();
  unsigned blocks = unsigned((n + 255) / 256);
  kernel<<<strided ? 1 : blocks, strided ? 1 : 256>>>(remote.get<T>(), local.get<T>(), n, next,
                                                      put);
  kernel_done(family);
  gshmem_barrier_all();
  const void* out = put ? remote.get() : local.get();
  std::vector<unsigned char> got = from_dev(out, bytes + kGuard);
  std::vector<T> theirs = make_data<T>(span, key(tag, put ? prev : next));
  // What the destination must hold: poison everywhere except where elements land.
  std::vector<unsigned char> want(bytes, kPoison);
  for (size_t i = 0; i < n; ++i) {
    size_t to = !strided ? i : put ? 2 * i : 3 * i;
    size_t from = !strided ? i : put ? 3 * i : 2 * i;
    std::memcpy(want.data() + to * sizeof(T), &theirs[from], sizeof(T));
  }
  EXPECT_TRUE(same_bytes(got.data(), want.data(), bytes));
  EXPECT_TRUE(all_poison(got, bytes, bytes + kGuard));
  gshmem_barrier_all();
}

#define RUN_PG(NAME, T)                                                        \
  for (size_t n : {size_t(1), size_t(300)}) {                                  \
    run_pg<T>("gshmem_" #NAME "_p", NAME##_pg_kernel, true, false, n);         \
    run_pg<T>("gshmem_" #NAME "_g", NAME##_pg_kernel, false, false, n);        \
    run_pg<T>("gshmem_" #NAME "_iput", NAME##_strided_kernel, true, true, n);  \
    run_pg<T>("gshmem_" #NAME "_iget", NAME##_strided_kernel, false, true, n); \
  }

TEST_F(GpuRma, PAndGAndStrided) {
  RUN_PG(int, int)
  RUN_PG(float, float)
  RUN_PG(ulonglong, unsigned long long)
  RUN_PG(short, short)
  RUN_PG(size, size_t)
}

}  // namespace
