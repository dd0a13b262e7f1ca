// Stream-ordered calls captured in a CUDA graph: putmem + quiet, putmem_signal, a wait on the
// signal, a kernel that reads what arrived, and barrier_all, all on one stream, captured once
// and launched several times with fresh data (the graph holds addresses, not values).
#include "tests/gpu/gpu_util.cuh"

using namespace gshmem_gpu_test;

namespace {

class GpuGraph : public testing::Test {
 protected:
  void SetUp() override {
    GPU_TEST_SETUP();
#if !GSHMEM_TEST_HAVE_ON_STREAM
    GTEST_SKIP() << "this gshmem.h has no gshmem_*_on_stream calls";
#endif
  }
};

__global__ void copy_kernel(unsigned char* out, const unsigned char* in, size_t n) {
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n;
       i += size_t(gridDim.x) * blockDim.x) {
    out[i] = in[i];
  }
}

#define ON_STREAM_OK(call) EXPECT_EQ((call), GSHMEM_SUCCESS) << #call

TEST_F(GpuGraph, PutSignalWaitBarrier) {
#if GSHMEM_TEST_HAVE_ON_STREAM
  const int me = gshmem_my_pe(), npes = gshmem_n_pes();
  const int next = (me + 1) % npes, prev = (me + npes - 1) % npes;
  const size_t bytes = 100003;
  SCOPED_TRACE(seed_note());
  Sym dst1(bytes), dst2(bytes), sig(sizeof(uint64_t));
  DevBuf src1(bytes), src2(bytes), check(bytes);
  cudaStream_t stream;
  GPU_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  gshmem_barrier_all();

  cudaGraph_t graph;
  GPU_CHECK(cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal));
  ON_STREAM_OK(gshmem_putmem_on_stream(dst1.get(), src1.get(), bytes, next, stream));
  ON_STREAM_OK(gshmem_quiet_on_stream(stream));
  ON_STREAM_OK(gshmem_putmem_signal_on_stream(dst2.get(), src2.get(), bytes, sig.get<uint64_t>(), 1,
                                              GSHMEM_SIGNAL_ADD, next, stream));
  ON_STREAM_OK(gshmem_signal_wait_until_on_stream(sig.get<uint64_t>(), GSHMEM_CMP_GE, 1, stream));
  copy_kernel<<<8, 256, 0, stream>>>(check.get(), dst2.get(), bytes);
  ON_STREAM_OK(gshmem_barrier_all_on_stream(stream));
  GPU_CHECK(cudaStreamEndCapture(stream, &graph));
  cudaGraphExec_t exec;
  GPU_CHECK(cudaGraphInstantiate(&exec, graph, 0));

  for (int launch = 0; launch < 3; ++launch) {
    SCOPED_TRACE("graph launch " + std::to_string(launch));
    const uint64_t tag = key(job_seed(), "graph", launch);
    std::vector<unsigned char> a = make_data<unsigned char>(bytes, key(tag, 1, me));
    std::vector<unsigned char> b = make_data<unsigned char>(bytes, key(tag, 2, me));
    to_dev(src1.get(), a.data(), bytes);
    to_dev(src2.get(), b.data(), bytes);
    poison_dev(dst1.get(), bytes);
    poison_dev(dst2.get(), bytes);
    poison_dev(check.get(), bytes);
    GPU_CHECK(cudaMemset(sig.get(), 0, sizeof(uint64_t)));
    GPU_CHECK(cudaDeviceSynchronize());
    gshmem_barrier_all();  // every PE has reset before any graph signals it
    GPU_CHECK(cudaGraphLaunch(exec, stream));
    GPU_CHECK(cudaStreamSynchronize(stream));
    std::vector<unsigned char> want1 = make_data<unsigned char>(bytes, key(tag, 1, prev));
    std::vector<unsigned char> want2 = make_data<unsigned char>(bytes, key(tag, 2, prev));
    // The graph ended with a barrier: every PE's puts to us are complete.
    EXPECT_TRUE(same_bytes(from_dev(dst1.get(), bytes).data(), want1.data(), bytes)) << "putmem";
    EXPECT_TRUE(same_bytes(from_dev(dst2.get(), bytes).data(), want2.data(), bytes))
        << "putmem_signal";
    EXPECT_TRUE(same_bytes(from_dev(check.get(), bytes).data(), want2.data(), bytes))
        << "what a kernel after signal_wait_until_on_stream read";
    EXPECT_EQ(from_dev<uint64_t>(sig.get(), 1)[0], 1u);
    gshmem_barrier_all();
  }
  GPU_CHECK(cudaGraphExecDestroy(exec));
  GPU_CHECK(cudaGraphDestroy(graph));
  GPU_CHECK(cudaStreamDestroy(stream));
#endif
}

// p of one element (its value taken at capture), a typed wait, a team barrier and sync, all on
// the stream and replayed from a graph.
TEST_F(GpuGraph, PWaitAndTeamBarrierOnStream) {
#if GSHMEM_TEST_HAVE_ON_STREAM
  const int me = gshmem_my_pe(), npes = gshmem_n_pes();
  const int next = (me + 1) % npes, prev = (me + npes - 1) % npes;
  Sym word(sizeof(int64_t));
  cudaStream_t stream;
  GPU_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  gshmem_barrier_all();
  cudaGraph_t graph;
  GPU_CHECK(cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal));
  ON_STREAM_OK(gshmem_int64_p_on_stream(word.get<int64_t>(), int64_t(1000 + me), next, stream));
  ON_STREAM_OK(gshmem_int64_wait_until_on_stream(word.get<int64_t>(), GSHMEM_CMP_EQ,
                                                 int64_t(1000 + prev), stream));
  ON_STREAM_OK(gshmem_barrier_on_stream(GSHMEM_TEAM_WORLD, stream));
  ON_STREAM_OK(gshmem_team_sync_on_stream(GSHMEM_TEAM_WORLD, stream));
  GPU_CHECK(cudaStreamEndCapture(stream, &graph));
  cudaGraphExec_t exec;
  GPU_CHECK(cudaGraphInstantiate(&exec, graph, 0));
  for (int launch = 0; launch < 3; ++launch) {
    SCOPED_TRACE("graph launch " + std::to_string(launch));
    GPU_CHECK(cudaMemset(word.get(), 0, sizeof(int64_t)));
    GPU_CHECK(cudaDeviceSynchronize());
    gshmem_barrier_all();
    GPU_CHECK(cudaGraphLaunch(exec, stream));
    GPU_CHECK(cudaStreamSynchronize(stream));
    EXPECT_EQ(from_dev<int64_t>(word.get(), 1)[0], int64_t(1000 + prev));
    gshmem_barrier_all();
  }
  GPU_CHECK(cudaGraphExecDestroy(exec));
  GPU_CHECK(cudaGraphDestroy(graph));
  GPU_CHECK(cudaStreamDestroy(stream));
#endif
}

}  // namespace
