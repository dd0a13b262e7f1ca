// gshmem_moe_a2a_perf's memory on a GPU heap: device memory, one non-blocking stream for every
// call, CUDA events around each timed call, and the device-to-device copy bandwidth that the
// table's floor columns use.
#include <cuda_runtime_api.h>

#include <string>

#include "perftest/moe/moe_memory.hpp"

namespace perftest::moe {

namespace {

void check(cudaError_t e, const char* what) {
  if (e != cudaSuccess) {
    throw gshmem::Error(GSHMEM_ERROR_INTERNAL, "gshmem_moe_a2a_perf", "",
                        std::string(what) + ": " + cudaGetErrorString(e));
  }
}

class GpuMemory : public Memory {
 public:
  GpuMemory() {
    check(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking), "cudaStreamCreate");
    check(cudaEventCreate(&start_), "cudaEventCreate");
    check(cudaEventCreate(&stop_), "cudaEventCreate");
  }
  ~GpuMemory() override {
    cudaStreamSynchronize(stream_);
    for (void* p : blocks_) cudaFree(p);
    cudaEventDestroy(start_);
    cudaEventDestroy(stop_);
    cudaStreamDestroy(stream_);
  }
  void* upload(const void* host, size_t bytes) override {
    void* p = scratch(bytes);
    // On the calls' stream, complete on return: a pageable host-to-device cudaMemcpy (legacy
    // stream) may return once the source is staged, and stream_ is non-blocking, so the next
    // kernel (combine's, reading expert_y) could read the old bytes.
    if (bytes) {
      check(cudaMemcpyAsync(p, host, bytes, cudaMemcpyHostToDevice, stream_),
            "cudaMemcpyAsync (inputs)");
      check(cudaStreamSynchronize(stream_), "cudaStreamSynchronize (inputs)");
    }
    return p;
  }
  void* scratch(size_t bytes) override {
    void* p = nullptr;
    check(cudaMalloc(&p, bytes ? bytes : 1), "cudaMalloc");
    blocks_.push_back(p);
    return p;
  }
  void download(void* host, const void* src, size_t bytes) override {
    check(cudaMemcpyAsync(host, src, bytes, cudaMemcpyDeviceToHost, stream_), "cudaMemcpy");
    check(cudaStreamSynchronize(stream_), "cudaStreamSynchronize (results)");
  }
  void* stream() override { return stream_; }
  double time(const std::function<void()>& f) override {
    check(cudaEventRecord(start_, stream_), "cudaEventRecord");
    f();
    check(cudaEventRecord(stop_, stream_), "cudaEventRecord");
    check(cudaEventSynchronize(stop_), "cudaEventSynchronize (the timed call)");
    float ms = 0;
    check(cudaEventElapsedTime(&ms, start_, stop_), "cudaEventElapsedTime");
    return double(ms) * 1e-3;
  }
  double copy_bandwidth() override {
    if (bandwidth_ > 0) return bandwidth_;
    // 1 GiB, far past the L2: best of 5 copies, bytes counted once (cudaMemcpy's convention).
    constexpr size_t kBytes = size_t(1) << 30;
    void *a = nullptr, *b = nullptr;
    check(cudaMalloc(&a, kBytes), "cudaMalloc (copy bandwidth)");
    check(cudaMalloc(&b, kBytes), "cudaMalloc (copy bandwidth)");
    check(cudaMemsetAsync(a, 1, kBytes, stream_), "cudaMemset");
    double best = 1e30;
    for (int i = 0; i < 6; ++i) {
      double t = time([&] {
        check(cudaMemcpyAsync(b, a, kBytes, cudaMemcpyDeviceToDevice, stream_), "cudaMemcpy");
      });
      if (i > 0 && t < best) best = t;
    }
    cudaFree(a);
    cudaFree(b);
    bandwidth_ = double(kBytes) / best;
    return bandwidth_;
  }

 private:
  cudaStream_t stream_ = nullptr;
  cudaEvent_t start_ = nullptr, stop_ = nullptr;
  std::vector<void*> blocks_;
  double bandwidth_ = 0;
};

}  // namespace

std::unique_ptr<Memory> gpu_memory() {
  return std::make_unique<GpuMemory>();
}

}  // namespace perftest::moe
