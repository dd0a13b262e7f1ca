// Instantiates the collective algorithms for a thread block under nvcc with the compile-time
// reducer of run_block (what an application's kernel uses), so an algorithm header that does
// not compile that way breaks the build. Nothing here runs (there may be no GPU); the kernel the
// stream-ordered host API launches is collectives/coll_kernel.cu. One reducer per kind of
// element (fp32, 16-bit float, integer, complex) keeps the build short; the algorithms are the
// same code for every type.
#include "gshmem/coll/device.cuh"

namespace gshmem::coll {

template <class T, class Op, bool kAvg>
__global__ void check_kernel(Workspace ws, Coll coll, CallArgs a) {
  run_block<T, Op, kAvg>(ws, coll, a);
}

template __global__ void check_kernel<float, OpSum, true>(Workspace, Coll, CallArgs);
template __global__ void check_kernel<half_t, OpMax, false>(Workspace, Coll, CallArgs);
template __global__ void check_kernel<int8_t, OpBxor, false>(Workspace, Coll, CallArgs);
template __global__ void check_kernel<complexd_t, OpProd, false>(Workspace, Coll, CallArgs);

}  // namespace gshmem::coll
