/* Collective kernel launch (NVSHMEM's nvshmemx_collective_launch): a kernel whose blocks wait for
 * each other (grid-wide barriers, collectives) must have every block resident at once, so it is
 * launched cooperatively after checking that the grid fits.
 *
 * Inline on purpose: the kernel is registered with the application's CUDA runtime, and libgshmem
 * carries a private static runtime that cannot see it; the occupancy query and the launch must be
 * made from the application's own code. Included by gshmem.h when the CUDA runtime is in scope. */
#ifndef GSHMEM_LAUNCH_H
#define GSHMEM_LAUNCH_H

#include <cuda_runtime_api.h>
#include <stdio.h>

#include "gshmem/types.h"

#ifdef __cplusplus
extern "C" {
#endif
int gshmemx_heap_kind(void);
#ifdef __cplusplus
}
#endif

/* Not collective. *gridsize = the most blocks of func, with `block` threads and shared_mem bytes
 * of dynamic shared memory, that are resident at once on the current device (blocks per SM x SM
 * count). Returns GSHMEM_SUCCESS, or GSHMEM_ERROR_INVALID_ARGUMENT after printing why. */
static inline int gshmemx_collective_launch_query_gridsize(const void* func, gshmemx_dim3_t block,
                                                           size_t shared_mem, int* gridsize) {
  int dev = 0, sms = 0, per_sm = 0;
  unsigned int threads = block.x * block.y * block.z;
  cudaError_t rc;
  if (!func || !gridsize || threads == 0) {
    fprintf(stderr,
            "gshmem: gshmemx_collective_launch_query_gridsize: func, gridsize and a "
            "non-empty block are required\n");
    return GSHMEM_ERROR_INVALID_ARGUMENT;
  }
  rc = cudaGetDevice(&dev);
  if (rc == cudaSuccess) rc = cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev);
  if (rc == cudaSuccess) {
    rc = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, func, (int)threads, shared_mem);
  }
  if (rc != cudaSuccess) {
    fprintf(stderr, "gshmem: gshmemx_collective_launch_query_gridsize: %s\n",
            cudaGetErrorString(rc));
    return GSHMEM_ERROR_INVALID_ARGUMENT;
  }
  *gridsize = per_sm * sms;
  return GSHMEM_SUCCESS;
}

/* Called by each PE that takes part (collective in the sense of NVSHMEM: every PE launches its
 * part of the job's collective kernel). Launches func<<<grid, block, shared_mem, stream>>>(args)
 * with cudaLaunchCooperativeKernel once the grid is known to be co-resident; `args` as for
 * cudaLaunchKernel. A grid that cannot be co-resident is an error naming its size and the
 * maximum; nothing is launched. Needs a GPU heap (gshmemx_heap_kind). Returns a gshmem_status. */
static inline int gshmemx_collective_launch(const void* func, gshmemx_dim3_t grid,
                                            gshmemx_dim3_t block, void** args, size_t shared_mem,
                                            void* stream) {
  int max_blocks = 0;
  unsigned long long blocks = (unsigned long long)grid.x * grid.y * grid.z;
  dim3 g, b;
  cudaError_t rc;
  int status;
  if (gshmemx_heap_kind() != GSHMEMX_HEAP_DEVICE) {
    fprintf(stderr,
            "gshmem: gshmemx_collective_launch: needs gshmem initialised with a GPU heap "
            "(GSHMEM_HEAP=device or auto with a GPU)\n");
    return GSHMEM_ERROR_INVALID_ARGUMENT;
  }
  status = gshmemx_collective_launch_query_gridsize(func, block, shared_mem, &max_blocks);
  if (status != GSHMEM_SUCCESS) return status;
  if (blocks == 0 || blocks > (unsigned long long)max_blocks) {
    fprintf(stderr,
            "gshmem: gshmemx_collective_launch: a grid of %llu blocks (%ux%ux%u) cannot be "
            "co-resident: at most %d blocks of %u threads with %zu bytes of dynamic shared memory "
            "fit on this device at once (see gshmemx_collective_launch_query_gridsize)\n",
            blocks, grid.x, grid.y, grid.z, max_blocks, block.x * block.y * block.z, shared_mem);
    return GSHMEM_ERROR_INVALID_ARGUMENT;
  }
  g.x = grid.x;
  g.y = grid.y;
  g.z = grid.z;
  b.x = block.x;
  b.y = block.y;
  b.z = block.z;
  rc = cudaLaunchCooperativeKernel(func, g, b, args, shared_mem, (cudaStream_t)stream);
  if (rc != cudaSuccess) {
    fprintf(stderr, "gshmem: gshmemx_collective_launch: cudaLaunchCooperativeKernel: %s\n",
            cudaGetErrorString(rc));
    return GSHMEM_ERROR_INVALID_ARGUMENT;
  }
  return GSHMEM_SUCCESS;
}

#endif /* GSHMEM_LAUNCH_H */
