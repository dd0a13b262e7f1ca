// Point-to-point waits and tests (wait_until, _all/_any/_some, _vector, test*), fence, quiet,
// barrier_all / sync_all / barrier(team) / team_sync at thread, warp and block scope, and the
// queries (my_pe, n_pes, ptr, team_my_pe, team_n_pes), all from kernels.
#include "tests/gpu/gpu_util.cuh"

using namespace gshmem_gpu_test;

namespace {

class GpuSync : public testing::Test {
 protected:
  void SetUp() override { GPU_TEST_SETUP(); }
};

constexpr int kVars = 8;

// The predecessor sets ivars[i] = base + i (p, then fence) one by one; this kernel waits with
// every form and records what each returned in out[]. status masks out element 0 where used.
#define WAIT_KERNEL(NAME, T)                                                                     \
  __global__ void NAME##_wait_kernel(T* ivars, T base, int pe, uint64_t* out) {                  \
    using V = T; /* T() does not parse for `long long` */                                        \
    if (threadIdx.x || blockIdx.x) return;                                                       \
    for (int i = 0; i < kVars; ++i) {                                                            \
      gshmem_##NAME##_p(ivars + i, V(base + V(i)), pe);                                          \
      gshmem_fence();                                                                            \
    }                                                                                            \
    gshmem_quiet();                                                                              \
    int status[kVars] = {1};                                                                     \
    T want[kVars];                                                                               \
    for (int i = 0; i < kVars; ++i) want[i] = V(base + V(i));                                    \
    size_t idx[kVars];                                                                           \
    gshmem_##NAME##_wait_until(ivars + kVars - 1, GSHMEM_CMP_EQ, want[kVars - 1]);               \
    gshmem_##NAME##_wait_until_all(ivars, kVars, nullptr, GSHMEM_CMP_GE, base);                  \
    out[0] = gshmem_##NAME##_wait_until_any(ivars, kVars, status, GSHMEM_CMP_EQ, want[3]);       \
    out[1] = gshmem_##NAME##_wait_until_some(ivars, kVars, idx, status, GSHMEM_CMP_GE, want[5]); \
    out[2] = idx[0];                                                                             \
    gshmem_##NAME##_wait_until_all_vector(ivars, kVars, nullptr, GSHMEM_CMP_EQ, want);           \
    out[3] = gshmem_##NAME##_wait_until_any_vector(ivars, kVars, status, GSHMEM_CMP_EQ, want);   \
    out[4] =                                                                                     \
        gshmem_##NAME##_wait_until_some_vector(ivars, kVars, idx, nullptr, GSHMEM_CMP_EQ, want); \
    out[5] = uint64_t(gshmem_##NAME##_test(ivars + 2, GSHMEM_CMP_EQ, want[2]));                  \
    out[6] = uint64_t(gshmem_##NAME##_test(ivars + 2, GSHMEM_CMP_NE, want[2]));                  \
    out[7] = uint64_t(                                                                           \
        gshmem_##NAME##_test_all(ivars, kVars, nullptr, GSHMEM_CMP_LT, V(base + V(kVars))));     \
    out[8] = gshmem_##NAME##_test_any(ivars, kVars, status, GSHMEM_CMP_GT, want[6]);             \
    out[9] = gshmem_##NAME##_test_some(ivars, kVars, idx, nullptr, GSHMEM_CMP_LE, want[1]);      \
    out[10] =                                                                                    \
        uint64_t(gshmem_##NAME##_test_all_vector(ivars, kVars, nullptr, GSHMEM_CMP_EQ, want));   \
    out[11] = gshmem_##NAME##_test_any_vector(ivars, kVars, status, GSHMEM_CMP_NE, want);        \
    out[12] = gshmem_##NAME##_test_some_vector(ivars, kVars, idx, status, GSHMEM_CMP_EQ, want);  \
  }
WAIT_KERNEL(int, int)
WAIT_KERNEL(uint64, uint64_t)
WAIT_KERNEL(longlong, long long)
WAIT_KERNEL(size, size_t)

// What the kernel records: index 3 (any EQ want[3]), some GE want[5] with element 0 masked out
// -> 3 of them, first index 5, ...
const uint64_t kWaitWant[13] = {3, 3, 5, 1, kVars, 1, 0, 1, 7, 2, 1, SIZE_MAX, kVars - 1};

template <class T>
void run_wait(const char* family, void (*kernel)(T*, T, int, uint64_t*)) {
  const int me = gshmem_my_pe(), npes = gshmem_n_pes();
  SCOPED_TRACE(std::string(family) + "; " + seed_note());
  // Leave room above base so base + i never wraps, and keep it positive for signed types.
  T base = T((key(job_seed(), family) % 1000) + 1);
  Sym ivars(kVars * sizeof(T));
  DevBuf out(13 * sizeof(uint64_t));
  GPU_CHECK(cudaMemset(ivars.get(), 0, kVars * sizeof(T)));
  GPU_CHECK(cudaDeviceSynchronize());
  gshmem_barrier_all();
  kernel<<<1, 32>>>(ivars.get<T>(), base, (me + 1) % npes, out.get<uint64_t>());
  kernel_done(family);
  gshmem_barrier_all();
  std::vector<uint64_t> got = from_dev<uint64_t>(out.get(), 13);
  for (int i = 0; i < 13; ++i) EXPECT_EQ(got[size_t(i)], kWaitWant[i]) << "result " << i;
  gshmem_barrier_all();
}

TEST_F(GpuSync, WaitAndTest) {
  run_wait<int>("gshmem_int_wait_until/test", int_wait_kernel);
  run_wait<uint64_t>("gshmem_uint64_wait_until/test", uint64_wait_kernel);
  run_wait<long long>("gshmem_longlong_wait_until/test", longlong_wait_kernel);
  run_wait<size_t>("gshmem_size_wait_until/test", size_wait_kernel);
}

// Fence: data then flag to the successor (p, fence, p); the successor waits for the flag and
// must see the data. Rounds reuse the words, so a stale value shows.
__global__ void fence_kernel(uint64_t* data, uint64_t* flag, int pe, int rounds, uint64_t seed,
                             uint64_t* bad) {
  if (threadIdx.x || blockIdx.x) return;
  for (int r = 1; r <= rounds; ++r) {
    gshmem_uint64_p(data, seed + uint64_t(r), pe);
    gshmem_fence();
    gshmem_uint64_p(flag, uint64_t(r), pe);
    gshmem_uint64_wait_until(flag, GSHMEM_CMP_GE, uint64_t(r));
    uint64_t seen = gshmem_uint64_atomic_fetch(data, gshmem_my_pe());
    if (seen < seed + uint64_t(r)) ++*bad;
    // Both sides must be done with round r before either starts r + 1.
    gshmem_sync_all();
  }
  gshmem_quiet();
}

TEST_F(GpuSync, FenceOrdersPuts) {
  const int me = gshmem_my_pe(), npes = gshmem_n_pes();
  SCOPED_TRACE(seed_note());
  Sym data(sizeof(uint64_t)), flag(sizeof(uint64_t));
  DevBuf bad(sizeof(uint64_t));
  GPU_CHECK(cudaMemset(data.get(), 0, 8));
  GPU_CHECK(cudaMemset(flag.get(), 0, 8));
  GPU_CHECK(cudaMemset(bad.get(), 0, 8));
  GPU_CHECK(cudaDeviceSynchronize());
  gshmem_barrier_all();
  fence_kernel<<<1, 1>>>(data.get<uint64_t>(), flag.get<uint64_t>(), (me + 1) % npes, 20,
                         key(job_seed(), "fence") >> 16, bad.get<uint64_t>());
  kernel_done("fence_kernel");
  gshmem_barrier_all();
  EXPECT_EQ(from_dev<uint64_t>(bad.get(), 1)[0], 0u) << "rounds where the flag overtook the data";
  gshmem_barrier_all();
}

// Barriers: in round r every PE puts r into its slot on every PE, enters the barrier at the
// kernel's scope, then checks that every slot holds r. One block: one barrier per PE at a time.
enum class Sync { BarrierAll, Barrier, SyncAllFenced, TeamSyncFenced };
const char* sync_name(Sync s) {
  return s == Sync::BarrierAll      ? "barrier_all"
         : s == Sync::Barrier       ? "barrier(TEAM_WORLD)"
         : s == Sync::SyncAllFenced ? "quiet + sync_all"
                                    : "quiet + team_sync(TEAM_WORLD)";
}

template <Scope S, Sync K>
__device__ void enter() {
  if constexpr (S == Scope::Thread) {
    if (threadIdx.x == 0) {
      if constexpr (K == Sync::BarrierAll) gshmem_barrier_all();
      if constexpr (K == Sync::Barrier) gshmem_barrier(GSHMEM_TEAM_WORLD);
      if constexpr (K == Sync::SyncAllFenced) gshmem_quiet(), gshmem_sync_all();
      if constexpr (K == Sync::TeamSyncFenced) gshmem_quiet(), gshmem_team_sync(GSHMEM_TEAM_WORLD);
    }
  } else if constexpr (S == Scope::Warp) {
    if (threadIdx.x < 32) {
      if constexpr (K == Sync::BarrierAll) gshmem_barrier_all_warp();
      if constexpr (K == Sync::Barrier) gshmem_barrier_warp(GSHMEM_TEAM_WORLD);
      if constexpr (K == Sync::SyncAllFenced) gshmem_quiet_warp(), gshmem_sync_all_warp();
      if constexpr (K == Sync::TeamSyncFenced) {
        gshmem_quiet_warp(), gshmem_team_sync_warp(GSHMEM_TEAM_WORLD);
      }
    }
  } else {
    if constexpr (K == Sync::BarrierAll) gshmem_barrier_all_block();
    if constexpr (K == Sync::Barrier) gshmem_barrier_block(GSHMEM_TEAM_WORLD);
    if constexpr (K == Sync::SyncAllFenced) gshmem_quiet_block(), gshmem_sync_all_block();
    if constexpr (K == Sync::TeamSyncFenced) {
      gshmem_quiet_block(), gshmem_team_sync_block(GSHMEM_TEAM_WORLD);
    }
  }
  __syncthreads();
}

template <Scope S, Sync K>
__global__ void barrier_kernel(uint64_t* slots, int rounds, uint64_t* bad) {
  const int me = gshmem_my_pe(), npes = gshmem_n_pes();
  for (int r = 1; r <= rounds; ++r) {
    for (int t = int(threadIdx.x); t < npes; t += int(blockDim.x)) {
      gshmem_uint64_p(&slots[me], uint64_t(r), t);
    }
    __syncthreads();
    enter<S, K>();
    for (int s = int(threadIdx.x); s < npes; s += int(blockDim.x)) {
      if (gshmem_uint64_atomic_fetch(&slots[s], me) != uint64_t(r))
        atomicAdd(reinterpret_cast<unsigned long long*>(bad), 1ull);
    }
    // Nobody may overwrite a slot of round r before everyone has checked it.
    enter<S, Sync::SyncAllFenced>();
  }
}

template <Scope S, Sync K>
void run_barrier() {
  const int npes = gshmem_n_pes();
  SCOPED_TRACE(std::string(sync_name(K)) + " at " + scope_name(S) + " scope; " + seed_note());
  Sym slots(size_t(npes) * sizeof(uint64_t));
  DevBuf bad(sizeof(uint64_t));
  GPU_CHECK(cudaMemset(slots.get(), 0, size_t(npes) * sizeof(uint64_t)));
  GPU_CHECK(cudaMemset(bad.get(), 0, 8));
  GPU_CHECK(cudaDeviceSynchronize());
  gshmem_barrier_all();
  barrier_kernel<S, K><<<1, kThreads>>>(slots.get<uint64_t>(), 5, bad.get<uint64_t>());
  kernel_done(sync_name(K));
  gshmem_barrier_all();
  EXPECT_EQ(from_dev<uint64_t>(bad.get(), 1)[0], 0u) << "slots not up to date after the sync";
  gshmem_barrier_all();
}

#define RUN_BARRIER_SCOPES(K)      \
  run_barrier<Scope::Thread, K>(); \
  run_barrier<Scope::Warp, K>();   \
  run_barrier<Scope::Block, K>();

TEST_F(GpuSync, BarrierAll){RUN_BARRIER_SCOPES(Sync::BarrierAll)} TEST_F(GpuSync, BarrierTeam){
    RUN_BARRIER_SCOPES(Sync::Barrier)} TEST_F(GpuSync, SyncAll){
    RUN_BARRIER_SCOPES(Sync::SyncAllFenced)} TEST_F(GpuSync, TeamSync){
    RUN_BARRIER_SCOPES(Sync::TeamSyncFenced)}

// Queries from a kernel, against the host's answers; gshmem_ptr to every PE must be usable
// (all PEs of these tests share a node), and NULL for an address outside the heap.
__global__ void query_kernel(int* out, uint64_t* sym, const int* not_sym) {
  if (threadIdx.x || blockIdx.x) return;
  out[0] = gshmem_my_pe();
  out[1] = gshmem_n_pes();
  out[2] = gshmem_team_my_pe(GSHMEM_TEAM_WORLD);
  out[3] = gshmem_team_n_pes(GSHMEM_TEAM_WORLD);
  out[4] = gshmem_team_my_pe(GSHMEM_TEAM_SHARED);
  out[5] = gshmem_team_n_pes(GSHMEM_TEAM_SHARED);
  out[6] = gshmem_team_n_pes(GSHMEM_MAX_TEAMS + 3);
  out[7] = gshmem_ptr(not_sym, 0) == nullptr;
  out[8] = gshmem_ptr(sym, gshmem_n_pes()) == nullptr;
  int n = gshmem_n_pes(), me = gshmem_my_pe();
  // Through the pointer: this PE's number into slot me of every PE.
  int usable = 0;
  for (int pe = 0; pe < n; ++pe) {
    auto* p = static_cast<uint64_t*>(gshmem_ptr(sym + me, pe));
    if (p) {
      *reinterpret_cast<volatile uint64_t*>(p) = uint64_t(me) + 100;
      ++usable;
    }
  }
  __threadfence_system();
  out[9] = usable;
}

TEST_F(GpuSync, Queries) {
  const int me = gshmem_my_pe(), npes = gshmem_n_pes();
  Sym sym(size_t(npes) * sizeof(uint64_t));
  DevBuf out(10 * sizeof(int)), not_sym(sizeof(int));
  GPU_CHECK(cudaMemset(sym.get(), 0, size_t(npes) * sizeof(uint64_t)));
  GPU_CHECK(cudaDeviceSynchronize());
  gshmem_barrier_all();
  query_kernel<<<1, 1>>>(out.get<int>(), sym.get<uint64_t>(), not_sym.get<int>());
  kernel_done("query_kernel");
  gshmem_barrier_all();
  std::vector<int> got = from_dev<int>(out.get(), 10);
  EXPECT_EQ(got[0], me);
  EXPECT_EQ(got[1], npes);
  EXPECT_EQ(got[2], gshmem_team_my_pe(GSHMEM_TEAM_WORLD));
  EXPECT_EQ(got[3], gshmem_team_n_pes(GSHMEM_TEAM_WORLD));
  EXPECT_EQ(got[4], gshmem_team_my_pe(GSHMEM_TEAM_SHARED));
  EXPECT_EQ(got[5], gshmem_team_n_pes(GSHMEM_TEAM_SHARED));
  EXPECT_EQ(got[6], -1) << "team_n_pes of an invalid team";
  EXPECT_EQ(got[7], 1) << "gshmem_ptr of a private address";
  EXPECT_EQ(got[8], 1) << "gshmem_ptr to PE n_pes";
  EXPECT_EQ(got[9], gshmem_team_n_pes(GSHMEM_TEAM_SHARED)) << "peers reachable by pointer";
  std::vector<uint64_t> slots = from_dev<uint64_t>(sym.get(), size_t(npes));
  for (int s = 0; s < npes; ++s) {
    if (gshmem_ptr(sym.get(), s) || s == me) {
      EXPECT_EQ(slots[size_t(s)], uint64_t(s) + 100) << "written through gshmem_ptr by PE " << s;
    }
  }
  gshmem_barrier_all();
}

}  // namespace
