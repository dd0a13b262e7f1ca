#include "perftest/moe/moe_memory.hpp"

#include <cstring>

#include "perftest/moe/moe_bench.hpp"

namespace perftest::moe {

gshmem::moe::ExpertBatch Memory::to_host(const gshmem::moe::ExpertBatch& d,
                                         std::vector<std::vector<uint8_t>>& keep) {
  if (!stream()) return d;  // host memory: the batch is readable where it is
  const size_t rows = size_t(d.num_local_experts) * size_t(d.expert_capacity);
  const size_t sizes[3] = {size_t(d.num_local_experts) * sizeof(int32_t), rows * d.token_bytes,
                           d.scales ? rows * size_t(d.scales_per_token) * sizeof(float) : 0};
  const void* from[3] = {d.counts, d.x, d.scales};
  keep.assign(3, {});
  for (int i = 0; i < 3; ++i) {
    keep[size_t(i)].resize(sizes[i]);
    if (sizes[i]) download(keep[size_t(i)].data(), from[i], sizes[i]);
  }
  gshmem::moe::ExpertBatch h = d;
  h.counts = reinterpret_cast<const int32_t*>(keep[0].data());
  h.x = keep[1].data();
  h.scales = d.scales ? reinterpret_cast<float*>(keep[2].data()) : nullptr;
  return h;
}

namespace {

class HostMemory : public Memory {
 public:
  void* upload(const void* host, size_t bytes) override {
    void* p = scratch(bytes);
    if (bytes) std::memcpy(p, host, bytes);
    return p;
  }
  void* scratch(size_t bytes) override {
    blocks_.emplace_back(bytes ? bytes : 1);
    return blocks_.back().data();
  }
  void download(void* host, const void* src, size_t bytes) override {
    std::memcpy(host, src, bytes);
  }
  void* stream() override { return nullptr; }
  double time(const std::function<void()>& f) override { return host_seconds(f); }
  double copy_bandwidth() override { return 0; }

 private:
  std::vector<std::vector<uint8_t>> blocks_;
};

}  // namespace

std::unique_ptr<Memory> host_memory() {
  return std::make_unique<HostMemory>();
}

#ifndef GSHMEM_PERF_MOE_GPU
std::unique_ptr<Memory> gpu_memory() {
  throw gshmem::Error(GSHMEM_ERROR_INVALID_ARGUMENT, "gshmem_moe_a2a_perf", "",
                      "the symmetric heap is in GPU memory, and this program was built without "
                      "CUDA: run it with GSHMEM_HEAP=host, or build gshmem with the CUDA toolkit");
}
#endif

}  // namespace perftest::moe
