// The C++ device API with an explicit context (what several PEs in one process would each pass):
// gshmem::putmem<Warp>, gshmem::get<Block>, gshmem::atomic<FetchAdd> and gshmem::barrier_all on
// the context gshmem::device_context() returns, passed to the kernel by value.
#include "tests/gpu/gpu_util.cuh"

using namespace gshmem_gpu_test;

namespace {

class GpuCxx : public testing::Test {
 protected:
  void SetUp() override { GPU_TEST_SETUP(); }
};

constexpr size_t kBytes = 65536 + 48;

__global__ void cxx_kernel(gshmem::DeviceContext c, char* remote, const char* local,
                           uint64_t* counter, int* out) {
  const int next = (c.my_pe + 1) % c.n_pes;
  if (threadIdx.x < 32) gshmem::putmem_nbi<gshmem::Warp>(c, remote, local, kBytes, next);
  gshmem::quiet<gshmem::Block>(c);
  if (threadIdx.x == 0) {
    gshmem::atomic<gshmem::AmoOp::FetchAdd>(c, counter, uint64_t(c.my_pe + 1), uint64_t(0), next);
    out[0] = c.my_pe == gshmem_my_pe();  // the explicit context and the default one agree
    out[1] = c.n_pes == gshmem_n_pes();
  }
  gshmem::barrier_all<gshmem::Block>(c);
}

TEST_F(GpuCxx, ExplicitContext) {
  const int me = gshmem_my_pe(), npes = gshmem_n_pes();
  const int prev = (me + npes - 1) % npes;
  SCOPED_TRACE(seed_note());
  Sym remote(kBytes), counter(sizeof(uint64_t));
  DevBuf local(kBytes), out(2 * sizeof(int));
  const uint64_t tag = key(job_seed(), "cxx");
  std::vector<unsigned char> mine = make_data<unsigned char>(kBytes, key(tag, me));
  to_dev(local.get(), mine.data(), kBytes);
  poison_dev(remote.get(), kBytes);
  GPU_CHECK(cudaMemset(counter.get(), 0, sizeof(uint64_t)));
  GPU_CHECK(cudaDeviceSynchronize());
  gshmem_barrier_all();
  cxx_kernel<<<1, 128>>>(gshmem::device_context(), remote.get<char>(), local.get<char>(),
                         counter.get<uint64_t>(), out.get<int>());
  kernel_done("cxx_kernel");
  gshmem_barrier_all();
  std::vector<unsigned char> want = make_data<unsigned char>(kBytes, key(tag, prev));
  EXPECT_TRUE(same_bytes(from_dev(remote.get(), kBytes).data(), want.data(), kBytes));
  EXPECT_EQ(from_dev<uint64_t>(counter.get(), 1)[0], uint64_t(prev + 1));
  std::vector<int> o = from_dev<int>(out.get(), 2);
  EXPECT_EQ(o[0], 1) << "device_context().my_pe differs from the kernels' default context";
  EXPECT_EQ(o[1], 1) << "device_context().n_pes differs from the kernels' default context";
  gshmem_barrier_all();
}

}  // namespace
