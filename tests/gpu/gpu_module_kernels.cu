// A module the test program loads itself with the driver API (cuModuleLoadData, cuLibraryLoadData)
// instead of linking it: tests/gpu/CMakeLists.txt compiles it with -rdc=true and device-links it
// against gshmem::device into a fatbinary of its own. Its kernels reach the device API through
// the module's own copy of the default context, which gshmemx_cumodule_init and
// gshmemx_culibrary_init (NVSHMEM's nvshmemx_cumodule_init / culibrary_init) keep current.
#include "gshmem/device/capi.cuh"

// out[0..1]: the PE and PE count the module's context says. Then one thread puts
// base + my PE into dst on the right-hand neighbour, and quiets.
extern "C" __global__ void module_ring_put(int* dst, int base, int* out) {
  if (threadIdx.x || blockIdx.x) return;
  out[0] = gshmem_my_pe();
  out[1] = gshmem_n_pes();
  const int right = (gshmem_my_pe() + 1) % gshmem_n_pes();
  gshmem_int_p(dst, base + gshmem_my_pe(), right);
  gshmem_quiet();
}
