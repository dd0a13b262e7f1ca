// Collectives on teams called from kernels (gshmem/coll/capi.cuh): reductions, fcollect,
// alltoall and broadcast at thread, warp and block scope, on the world and on the even PEs'
// team, checked exactly against the values every PE can compute. The same code runs on CPU PEs
// in tests/coll/team_call_test.cpp.
#include "gshmem/coll/capi.cuh"
#include "tests/gpu/gpu_util.cuh"

using namespace gshmem_gpu_test;

namespace {

class GpuTeamColl : public testing::Test {
 protected:
  void SetUp() override { GPU_TEST_SETUP(); }
};

constexpr size_t kN = 3000;

__device__ int value(int pe, size_t i) {
  return (pe * 3 + int(i % 7)) % 5 + 1;
}

// scope 0: one thread; 1: the first warp; 2: the whole block.
__global__ void coll_kernel(gshmem_team_t team, int scope, int* src, int* sum, int* maxv,
                            int* gathered, int* exchanged, int* bcast, int root, int* rc) {
  const int me = gshmem_team_my_pe(team);
  for (size_t i = threadIdx.x; i < kN; i += blockDim.x) src[i] = value(gshmem_my_pe(), i);
  __syncthreads();
  int r = 0;
  if (scope == 0 && threadIdx.x == 0) {
    r |= gshmem_int_sum_reduce(team, sum, src, kN);
    r |= gshmem_int_max_reduce(team, maxv, src, kN);
    r |= gshmem_int_fcollect(team, gathered, src, kN);
    r |= gshmem_int_alltoall(team, exchanged, gathered, kN);
    r |= gshmem_int_broadcast(team, bcast, src, kN, root);
  } else if (scope == 1 && threadIdx.x < 32) {
    r |= gshmem_int_sum_reduce_warp(team, sum, src, kN);
    r |= gshmem_int_max_reduce_warp(team, maxv, src, kN);
    r |= gshmem_int_fcollect_warp(team, gathered, src, kN);
    r |= gshmem_int_alltoall_warp(team, exchanged, gathered, kN);
    r |= gshmem_int_broadcast_warp(team, bcast, src, kN, root);
  } else if (scope == 2) {
    r |= gshmem_int_sum_reduce_block(team, sum, src, kN);
    r |= gshmem_int_max_reduce_block(team, maxv, src, kN);
    r |= gshmem_int_fcollect_block(team, gathered, src, kN);
    r |= gshmem_int_alltoall_block(team, exchanged, gathered, kN);
    r |= gshmem_int_broadcast_block(team, bcast, src, kN, root);
  }
  if (r) atomicOr(rc, 1);
  (void)me;
}

int host_value(int pe, size_t i) {
  return (pe * 3 + int(i % 7)) % 5 + 1;
}

void run(gshmem_team_t team, int first, int stride, int scope) {
  const int n = gshmem_team_n_pes(team), me = gshmem_team_my_pe(team);
  SCOPED_TRACE("scope " + std::to_string(scope) + ", team of " + std::to_string(n));
  DevBuf src(kN * 4), sum(kN * 4), maxv(kN * 4), gathered(size_t(n) * kN * 4),
      exchanged(size_t(n) * kN * 4), bcast(kN * 4), rc(4);
  GPU_CHECK(cudaMemset(rc.get(), 0, 4));
  const int root = n - 1;
  coll_kernel<<<1, 128>>>(team, scope, src.get<int>(), sum.get<int>(), maxv.get<int>(),
                          gathered.get<int>(), exchanged.get<int>(), bcast.get<int>(), root,
                          rc.get<int>());
  kernel_done("coll_kernel");
  EXPECT_EQ(from_dev<int>(rc.get(), 1)[0], 0);
  std::vector<int> s = from_dev<int>(sum.get(), kN), m = from_dev<int>(maxv.get(), kN),
                   g = from_dev<int>(gathered.get(), size_t(n) * kN),
                   x = from_dev<int>(exchanged.get(), size_t(n) * kN),
                   b = from_dev<int>(bcast.get(), kN);
  for (size_t i = 0; i < kN; ++i) {
    int want_sum = 0, want_max = 0;
    for (int k = 0; k < n; ++k) {
      int v = host_value(first + k * stride, i);
      want_sum += v;
      want_max = std::max(want_max, v);
    }
    ASSERT_EQ(s[i], want_sum) << i;
    ASSERT_EQ(m[i], want_max) << i;
    ASSERT_EQ(b[i], host_value(first + root * stride, i)) << i;
    for (int k = 0; k < n; ++k) {
      ASSERT_EQ(g[size_t(k) * kN + i], host_value(first + k * stride, i)) << i;
      // Block me of member k's gathered array is member me's values.
      ASSERT_EQ(x[size_t(k) * kN + i], host_value(first + me * stride, i)) << i;
    }
  }
  gshmem_barrier_all();
}

}  // namespace

TEST_F(GpuTeamColl, World) {
  for (int scope = 0; scope < 3; ++scope) run(GSHMEM_TEAM_WORLD, 0, 1, scope);
}

TEST_F(GpuTeamColl, EvenTeam) {
  const int n = gshmem_n_pes();
  gshmem_team_t evens = GSHMEM_TEAM_INVALID;
  ASSERT_EQ(gshmem_team_split_strided(GSHMEM_TEAM_WORLD, 0, 2, (n + 1) / 2, nullptr, 0, &evens), 0);
  if (evens != GSHMEM_TEAM_INVALID) {
    for (int scope = 0; scope < 3; ++scope) run(evens, 0, 2, scope);
  } else {
    for (int scope = 0; scope < 3; ++scope) gshmem_barrier_all();
  }
  gshmem_barrier_all();
  if (evens != GSHMEM_TEAM_INVALID) gshmem_team_destroy(evens);
}
