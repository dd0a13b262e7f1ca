// A job that makes one bad device call (argv[1] names it) on PE 0 with device checks on, so its
// kernel must print a message naming the call and trap. Run by gpu_badinput_test under
// gshmemrun; prints "SKIPPED: reason" and exits 0 without a GPU.
//
// Device checks are the runtime's kCtxChecks flag (GSHMEM_DEVICE_CHECKS=1). When the runtime
// has not set it, this program sets it on a copy of the default context and installs that, so
// the C names still run exactly as in a user's kernel.
#include <cuda_runtime.h>

#include <cstdio>
#include <cstring>
#include <string>

#include "gshmem/device/capi.cuh"
#include "gshmem/gshmem.hpp"

extern "C" __attribute__((weak)) int gshmemx_gpu_available(char* why, size_t len);

namespace {

__global__ void bad_kernel(int which, char* sym, char* priv, uint64_t* sig, size_t heap_size) {
  const int n = gshmem_n_pes();
  switch (which) {
    case 0:
      if (threadIdx.x == 0) gshmem_putmem(sym, priv, 8, n + 3);
      break;
    case 1:
      if (threadIdx.x == 0) gshmem_putmem(priv, sym, 8, 1);
      break;
    case 2:
      if (threadIdx.x == 0) gshmem_getmem(priv, sym, heap_size + 4096, 1);
      break;
    case 3:
      if (threadIdx.x == 0) gshmem_signal_op(sig, 1, 7, 1);
      break;
    case 4:
      if (threadIdx.x == 0) gshmem_uint64_wait_until(sig, 99, 0);
      break;
    case 5:
      gshmem_putmem_nbi_warp(sym, priv, 64, -1);
      break;
    case 6:
      gshmem_barrier_block(GSHMEM_MAX_TEAMS + 1);
      break;
    case 7:
      if (threadIdx.x == 0) gshmem_int_atomic_add(reinterpret_cast<int*>(sym + 1), 1, 1);
      break;
    case 8:  // launched with 48 threads: the second warp has 16 lanes
      gshmem_putmem_warp(sym, priv, 4096, 1);
      break;
  }
}

// Case names and the call each must name in its message.
const char* const kCases[][2] = {
    {"pe", "gshmem_putmem"},
    {"address", "gshmem_putmem"},
    {"size", "gshmem_getmem"},
    {"signal_op", "gshmem_signal_op"},
    {"cmp", "gshmem_uint64_wait_until"},
    {"warp_pe", "gshmem_putmem_nbi_warp"},
    {"team", "gshmem_barrier_block"},
    {"misaligned", "gshmem_int_atomic_add"},
    {"warp_shape", "gshmem_putmem_warp"},
};
constexpr int kWarpShape = 8;

}  // namespace

int main(int argc, char** argv) {
  int which = -1;
  for (int i = 0; i < int(sizeof kCases / sizeof kCases[0]); ++i) {
    if (argc > 1 && std::strcmp(argv[1], kCases[i][0]) == 0) which = i;
  }
  gshmem_init();
  const int me = gshmem_my_pe();
  int status = 0;
  char why[256] = "";
  int n = 0;
  bool gpu = gshmemx_gpu_available ? gshmemx_gpu_available(why, sizeof why) == 1
                                   : (cudaGetDeviceCount(&n) == cudaSuccess && n > 0);
  if (which < 0) {
    if (me == 0) std::fprintf(stderr, "usage: %s CASE (pe, address, size, ...)\n", argv[0]);
    status = 2;
  } else if (!gpu) {
    if (me == 0) std::printf("SKIPPED: no usable GPU %s\n", why);
  } else {
    gshmem::DeviceContext c = gshmem::device_context();
    if (!(c.flags & gshmem::kCtxChecks)) {
      if (me == 0) std::printf("note: the runtime did not set kCtxChecks; setting it here\n");
      c.flags |= gshmem::kCtxChecks;
      cudaMemcpyToSymbol(gshmemi_device_ctx, &c, sizeof c);
    }
    char* sym = static_cast<char*>(gshmem_malloc(4096));
    auto* sig = static_cast<uint64_t*>(gshmem_calloc(1, sizeof(uint64_t)));
    char* priv = nullptr;
    cudaMalloc(&priv, 1 << 20);
    gshmem_barrier_all();
    if (me == 0) {
      std::printf("case %s: expecting a trap naming %s\n", kCases[which][0], kCases[which][1]);
      std::fflush(stdout);
      bad_kernel<<<1, which == kWarpShape ? 48 : 64>>>(which, sym, priv, sig, c.heap.size);
      cudaError_t e = cudaDeviceSynchronize();
      std::printf("kernel ended: %s\n", cudaGetErrorString(e));
      std::fflush(stdout);
      // A kernel that trapped leaves this process's CUDA context unusable: end the job here.
      if (e != cudaSuccess) gshmem_global_exit(1);
      std::printf("ERROR: the bad call returned normally\n");
      status = 1;
    }
    gshmem_barrier_all();
    cudaFree(priv);
    gshmem_free(sig);
    gshmem_free(sym);
  }
  gshmem_finalize();
  return status;
}
