// Where gshmem_moe_a2a_perf keeps a sweep point's inputs and outputs, and how it times a call:
// host memory and the host clock on CPU PEs; on a GPU heap (moe_memory_gpu.cu, CUDA builds),
// device memory, one stream the calls are enqueued on, and CUDA events around each call.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include "gshmem/moe.hpp"

namespace perftest::moe {

class Memory {
 public:
  virtual ~Memory() = default;
  // A copy of `bytes` of host memory that the calls may read, valid while this object lives.
  virtual void* upload(const void* host, size_t bytes) = 0;
  template <class T>
  T* upload(const std::vector<T>& v) {
    return static_cast<T*>(upload(v.data(), v.size() * sizeof(T)));
  }
  // `bytes` of uninitialised memory the calls may write.
  virtual void* scratch(size_t bytes) = 0;
  // Copies `bytes` at `src` (memory of this kind) to the host, after the calls before it.
  virtual void download(void* host, const void* src, size_t bytes) = 0;
  // The stream the calls are enqueued on (nullptr on CPU PEs).
  virtual void* stream() = 0;
  // Seconds that the work `f` enqueues (or does) takes.
  virtual double time(const std::function<void()>& f) = 0;
  // This memory's copy bandwidth (bytes/s, a cudaMemcpy of 1 GiB on the GPU), measured at the
  // first call; 0 on CPU PEs, where the table has no floor columns.
  virtual double copy_bandwidth() = 0;
  // What a batch that dispatch returned in this memory holds, copied to host memory (`keep`
  // holds the copies); on CPU PEs the batch itself.
  gshmem::moe::ExpertBatch to_host(const gshmem::moe::ExpertBatch& b,
                                   std::vector<std::vector<uint8_t>>& keep);
};

// Host memory and the host clock.
std::unique_ptr<Memory> host_memory();
// Device memory of this PE's GPU, a stream and CUDA events; throws gshmem::Error when the
// program was built without CUDA.
std::unique_ptr<Memory> gpu_memory();

}  // namespace perftest::moe
