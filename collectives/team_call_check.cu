// Compiles the collectives kernels call on teams (gshmem/coll/capi.cuh over coll/team.cuh) at
// thread, warp and block scope, for every kind of element (integer, fp32/fp64, half, bfloat16),
// under nvcc. Nothing here runs; tests/coll/team_call_test.cpp runs the same code on CPU PEs.
#include "gshmem/coll/capi.cuh"

__global__ void gshmem_team_call_check(gshmem_team_t team, int* i, float* f, double* d, __half* h,
                                       __nv_bfloat16* b, size_t n, int* rc) {
  int r = 0;
  if (threadIdx.x == 0) {
    r |= gshmem_int_sum_reduce(team, i, i, n);
    r |= gshmem_double_max_reduce(team, d, d, n);
    r |= gshmem_int_fcollect(team, i, i + n, n);
    r |= gshmem_float_alltoall(team, f, f + 4 * n, n);
    r |= gshmem_bfloat16_broadcast(team, b, b, n, 0);
  }
  if (threadIdx.x < 32) {
    r |= gshmem_long_xor_reduce_warp(team, reinterpret_cast<long*>(d), reinterpret_cast<long*>(d),
                                     n);
    r |= gshmem_half_prod_reduce_warp(team, h, h, n);
    r |= gshmem_uint8_fcollect_warp(team, reinterpret_cast<uint8_t*>(i),
                                    reinterpret_cast<uint8_t*>(f), n);
  }
  r |= gshmem_float_sum_reduce_block(team, f, f, n);
  r |= gshmem_bfloat16_min_reduce_block(team, b, b, n);
  r |= gshmem_size_alltoall_block(team, reinterpret_cast<size_t*>(d), reinterpret_cast<size_t*>(i),
                                  n);
  r |= gshmem_int64_broadcast_block(team, reinterpret_cast<int64_t*>(d),
                                    reinterpret_cast<int64_t*>(d), n, 1);
  if (r) atomicOr(rc, r);
}
