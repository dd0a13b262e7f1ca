// An NVSHMEM CUDA program, unchanged: kernels with device calls at thread and block scope,
// host set-up, on-stream calls, a collective launch. tests/install/install_test.sh builds it
// against the installed package with find_package(NVSHMEM), -rdc=true and sm_90a (compile and
// device-link; running it needs a GPU).
#include <nvshmem.h>
#include <nvshmemx.h>
#include <cstdio>
__global__ void ring(int* dst, const int* src, size_t n, uint64_t* sig) {
  int me = nvshmem_my_pe(), npes = nvshmem_n_pes();
  int peer = (me + 1) % npes;
  nvshmemx_int_put_signal_nbi_block(dst, src, n, sig, 1, NVSHMEM_SIGNAL_ADD, peer);
  if (threadIdx.x == 0) {
    nvshmem_signal_wait_until(sig, NVSHMEM_CMP_GE, 1);
    nvshmem_int_p(dst, 7, peer);
    nvshmem_quiet();
    nvshmem_uint64_atomic_add(sig, 0, peer);
  }
  nvshmemx_barrier_all_block();
  // Collectives on a team, from the kernel: one thread, then the whole block.
  if (threadIdx.x == 0) nvshmem_int_sum_reduce(NVSHMEM_TEAM_WORLD, dst, dst, 4);
  nvshmemx_int_fcollect_block(NVSHMEM_TEAM_WORLD, dst + 8 * npes, dst, 8);
  if (threadIdx.x < 32) nvshmemx_int_max_reduce_warp(NVSHMEM_TEAM_WORLD, dst, dst, 4);
  cooperative_groups::this_thread_block().sync();
}
int main() {
  nvshmem_init();
  int* d = (int*)nvshmem_malloc(1024 * sizeof(int));
  uint64_t* s = (uint64_t*)nvshmem_calloc(1, 8);
  cudaStream_t st;
  cudaStreamCreate(&st);
  ring<<<1, 128, 0, st>>>(d, d, 1024, s);
  nvshmemx_barrier_all_on_stream(st);
  nvshmemx_int_sum_reduce_on_stream(NVSHMEM_TEAM_WORLD, d, d, 4, st);
  void* args[] = {&d, &d, nullptr, &s};
  nvshmemx_collective_launch((const void*)ring, dim3(1), dim3(32), args, 0, st);
  cudaStreamSynchronize(st);
  nvshmem_free(d);
  nvshmem_finalize();
}
