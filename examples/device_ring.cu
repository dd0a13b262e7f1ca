// Each PE sends a buffer to its right-hand neighbour from a kernel with
// gshmem_putmem_signal_nbi_block, then waits on its own signal for the buffer from its left.
// The same names (gshmem_my_pe, gshmem_barrier_all, ...) work in host code and in kernels.
//
//   gshmemrun -n 2 ./gshmem_device_ring      (several PEs may share one GPU)
#include <cuda_runtime.h>

#include <cstdio>
#include <vector>

#include "gshmem/device/capi.cuh"  // the device C API; includes gshmem/gshmem.h
#include "gshmem/gshmem.h"

namespace {

// Called by every thread of one block: the block moves the buffer, one thread waits.
__global__ void ring(char* recv, const char* send, size_t bytes, uint64_t* sig, uint64_t round) {
  const int right = (gshmem_my_pe() + 1) % gshmem_n_pes();
  gshmem_putmem_signal_nbi_block(recv, send, bytes, sig, round, GSHMEM_SIGNAL_SET, right);
  if (threadIdx.x == 0) gshmem_signal_wait_until(sig, GSHMEM_CMP_EQ, round);
  __syncthreads();  // recv is complete for the whole block from here on
}

bool ok(cudaError_t e, const char* what) {
  if (e == cudaSuccess) return true;
  std::fprintf(stderr, "device_ring: PE %d: %s: %s\n", gshmem_my_pe(), what, cudaGetErrorString(e));
  return false;
}

}  // namespace

int main() {
  gshmem_init();
  const int me = gshmem_my_pe(), npes = gshmem_n_pes();
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
    if (me == 0) std::printf("device_ring: SKIPPED: no usable GPU\n");
    gshmem_finalize();
    return 0;
  }
  const size_t bytes = size_t(1) << 20;
  char* recv = static_cast<char*>(gshmem_malloc(bytes));  // symmetric: the neighbour writes it
  uint64_t* sig = static_cast<uint64_t*>(gshmem_calloc(1, sizeof(uint64_t)));
  char* send = nullptr;
  int bad = !recv || !sig || !ok(cudaMalloc(&send, bytes), "cudaMalloc");
  std::vector<char> host(bytes);
  const int left = (me + npes - 1) % npes;
  for (uint64_t round = 1; round <= 3 && !bad; ++round) {
    bad |= !ok(cudaMemset(send, int(me * 16 + round), bytes), "cudaMemset");
    gshmem_barrier_all();  // the neighbour has checked the last round before we overwrite it
    ring<<<1, 256>>>(recv, send, bytes, sig, round);
    bad |= !ok(cudaDeviceSynchronize(), "ring kernel");
    bad |= !ok(cudaMemcpy(host.data(), recv, bytes, cudaMemcpyDeviceToHost), "cudaMemcpy");
    for (size_t i = 0; i < bytes && !bad; ++i) {
      if (host[i] != char(left * 16 + round)) {
        std::fprintf(stderr, "device_ring: PE %d: round %d byte %zu is %d, expected %d\n", me,
                     int(round), i, host[i], char(left * 16 + round));
        bad = 1;
      }
    }
  }
  gshmem_barrier_all();
  if (me == 0 && !bad) std::printf("device_ring: %d PEs, 3 rounds of %zu bytes: OK\n", npes, bytes);
  cudaFree(send);
  gshmem_free(sig);
  gshmem_free(recv);
  gshmem_finalize();
  return bad;
}
