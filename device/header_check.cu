// Compiles the shared __host__ __device__ headers with nvcc and instantiates the device API for
// every thread group, so a header that breaks under nvcc breaks the build.
#include "gshmem/device.cuh"

namespace gshmem {

template <class G>
__device__ void exercise(const DeviceContext& c, uint64_t* buf, uint64_t* sig, int pe) {
  putmem_nbi<G>(c, buf, buf + 8, 64, pe);
  getmem<G>(c, buf, buf + 8, 64, pe);
  putmem_signal_nbi<G>(c, buf, buf + 8, 64, sig, 1, GSHMEM_SIGNAL_ADD, pe);
  iput<G>(c, buf, buf + 8, 2, 1, 4, pe);
  fence<G>(c);
  quiet<G>(c);
  barrier<G>(c, GSHMEM_TEAM_WORLD);
  team_sync<G>(c, GSHMEM_TEAM_NODE);
}

__global__ void header_check_kernel(DeviceContext c, uint64_t* buf, uint64_t* sig, int pe) {
  exercise<Thread>(c, buf, sig, pe);
  exercise<Warp>(c, buf, sig, pe);
  exercise<Block>(c, buf, sig, pe);
  p(c, buf, uint64_t(3), pe);
  buf[1] = g(c, buf, pe);
  atomic<AmoOp::FetchAdd>(c, buf, uint64_t(1), uint64_t(0), pe);
  atomic<AmoOp::CompareSwap>(c, reinterpret_cast<int*>(buf), 1, 0, pe);
  atomic<AmoOp::Swap>(c, reinterpret_cast<double*>(buf), 1.0, 0.0, pe);
  signal_op(c, sig, 1, GSHMEM_SIGNAL_SET, pe);
  signal_wait_until(c, sig, GSHMEM_CMP_GE, 1);
  wait_until(c, buf, GSHMEM_CMP_NE, uint64_t(0));
  size_t idx[4];
  wait_until_some(c, buf, 4, idx, nullptr, GSHMEM_CMP_EQ, uint64_t(1));
}

}  // namespace gshmem
