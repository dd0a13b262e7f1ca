// Block-level collectives for kernels: the whole thread block of block `blockIdx.x` runs channel
// blockIdx.x of a planned call (launch ws.nch blocks). The host builds the Workspace (team,
// scratch, call number, plan) and passes it by value; every member launches the same plan.
//
//   __global__ void my_allreduce(gshmem::coll::Workspace ws, gshmem::coll::CallArgs a) {
//     gshmem::coll::run_block<float, gshmem::coll::OpSum>(ws, gshmem::coll::Coll::AllReduce, a);
//   }
//
// A kernel may also call a single algorithm (ring_allreduce<Block>(...), direct_gather<Block>(...))
// for one channel; see algorithms.cuh. Everything waits through the device API's wait helper, so
// GSHMEM_TIMEOUT and job aborts end a stuck kernel.
#pragma once

#include "gshmem/coll/algorithms.cuh"

namespace gshmem::coll {

// On the host, inside a gshmem::simt::run of ws.nch blocks, it runs the same (CPU PE tests).
template <class T, class Op, bool kAvg = false>
GSHMEM_HD void run_block(const Workspace& ws, Coll coll, const CallArgs& a) {
  run_channel<Block>(ws, coll, StaticReducer<T, Op, kAvg>{}, a, int(block_in_grid()));
  if (a.src_pub || a.dst_pub) release_user_buffers<Block>(ws);
}

}  // namespace gshmem::coll
