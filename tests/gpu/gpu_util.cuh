// Shared by the GPU tests: whether this machine can run them (and why not), device buffers,
// random data from the job-wide seed, poison, and CUDA error checks that name the call.
//
// Every test fixture calls gpu_usable() first: without a usable GPU each test reports SKIPPED
// with the reason. With a GPU, a context kernels cannot use is a failure, not a skip.
#pragma once

#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "gshmem/device/capi.cuh"
#include "gshmem/gshmem.hpp"
#include "tests/common/mp_util.hpp"

// From the runtime; weak so these tests also build against a libgshmem without it.
extern "C" __attribute__((weak)) int gshmemx_gpu_available(char* why, size_t len);

namespace gshmem_gpu_test {

using gshmem_test::key;
using gshmem_test::kPoison;
using gshmem_test::make_data;
using gshmem_test::same_bytes;

#define GPU_CHECK(call)                                                                          \
  do {                                                                                           \
    cudaError_t gpu_check_e = (call);                                                            \
    if (gpu_check_e != cudaSuccess) {                                                            \
      std::fprintf(stderr, "[PE %d] %s:%d: %s failed: %s\n", gshmem_my_pe(), __FILE__, __LINE__, \
                   #call, cudaGetErrorString(gpu_check_e));                                      \
      std::fflush(stderr);                                                                       \
      /* A sticky CUDA error leaves this PE unable to reach the next collective */               \
      gshmem_global_exit(3);                                                                     \
    }                                                                                            \
  } while (0)

// "" when kernels can run here; else why not (the runtime's reason when it has one).
inline std::string no_gpu_reason() {
  char why[256] = "";
  if (gshmemx_gpu_available) {
    if (!gshmemx_gpu_available(why, sizeof why)) {
      return std::string("no usable GPU: ") + (why[0] ? why : "(no reason given)");
    }
    return "";
  }
  int n = 0;
  cudaError_t e = cudaGetDeviceCount(&n);
  if (e != cudaSuccess) {
    cudaGetLastError();
    return std::string("no usable GPU: cudaGetDeviceCount: ") + cudaGetErrorString(e);
  }
  if (n == 0) return "no usable GPU: cudaGetDeviceCount found 0 devices";
  return "";
}

// The line ctest's SKIP_REGULAR_EXPRESSION looks for (tests/gpu/CMakeLists.txt), printed once
// per process by PE 0, only when the whole program skips for want of a GPU.
inline void note_skip(const std::string& reason) {
  static bool said = false;
  if (said || gshmem_my_pe() != 0) return;
  said = true;
  std::printf("gshmem gpu tests: SKIPPED (%s)\n", reason.c_str());
  std::fflush(stdout);
}

// For SetUp(): skips without a GPU, fails when the default context is unusable by kernels.
#define GPU_TEST_SETUP()                                                                           \
  do {                                                                                             \
    std::string gpu_reason = ::gshmem_gpu_test::no_gpu_reason();                                   \
    if (!gpu_reason.empty()) {                                                                     \
      ::gshmem_gpu_test::note_skip(gpu_reason);                                                    \
      GTEST_SKIP() << gpu_reason;                                                                  \
    }                                                                                              \
    std::string gpu_problem = gshmem::device_context_problem(gshmem::device_context());            \
    ASSERT_TRUE(gpu_problem.empty()) << "kernels cannot use the default context: " << gpu_problem; \
  } while (0)

// A test on a GPU heap with a non-blocking stream of its own (stream_).
class StreamTest : public testing::Test {
 protected:
  void SetUp() override {
    GPU_TEST_SETUP();
    ASSERT_EQ(gshmemx_heap_kind(), GSHMEMX_HEAP_DEVICE) << "the GPU tests need a GPU heap";
    GPU_CHECK(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking));
  }
  void TearDown() override {
    if (stream_) GPU_CHECK(cudaStreamDestroy(stream_));
  }
  cudaStream_t stream_ = nullptr;
};

// The job-wide seed: PE 0's clock (or MP_TEST_SEED), shared through the symmetric heap and read
// back with cudaMemcpy (the heap may be GPU memory the host cannot load from). Collective.
inline uint64_t job_seed() {
  static uint64_t seed = [] {
    uint64_t mine = 0;
    if (const char* s = std::getenv("MP_TEST_SEED")) {
      mine = std::strtoull(s, nullptr, 0);
    } else {
      mine = uint64_t(std::chrono::system_clock::now().time_since_epoch().count()) ^
             (uint64_t(getpid()) << 32);
    }
    auto* slot = static_cast<uint64_t*>(gshmem_calloc(1, sizeof(uint64_t)));
    if (gshmem_my_pe() == 0) {
      for (int pe = 0; pe < gshmem_n_pes(); ++pe) gshmem_uint64_p(slot, mine, pe);
    }
    gshmem_barrier_all();
    uint64_t shared = 0;
    GPU_CHECK(cudaMemcpy(&shared, slot, sizeof shared, cudaMemcpyDefault));
    gshmem_barrier_all();
    gshmem_free(slot);
    if (gshmem_my_pe() == 0) {
      std::printf("gpu tests: seed %llu (rerun with MP_TEST_SEED=%llu)\n",
                  (unsigned long long)shared, (unsigned long long)shared);
    }
    return shared;
  }();
  return seed;
}

inline std::string seed_note() {
  return "seed " + std::to_string(job_seed()) + ", PE " + std::to_string(gshmem_my_pe()) + " of " +
         std::to_string(gshmem_n_pes());
}

// A symmetric allocation (collective) or a private device buffer, freed at scope end.
class Sym {
 public:
  explicit Sym(size_t bytes) : bytes_(bytes), p_(gshmem_malloc(bytes ? bytes : 1)) {
    if (!p_) {
      std::fprintf(stderr, "[PE %d] gshmem_malloc(%zu) failed\n", gshmem_my_pe(), bytes);
      gshmem_global_exit(3);
    }
  }
  ~Sym() { gshmem_free(p_); }
  Sym(const Sym&) = delete;
  Sym& operator=(const Sym&) = delete;
  template <class T = unsigned char>
  T* get() const {
    return static_cast<T*>(p_);
  }

 private:
  size_t bytes_;
  void* p_;
};

class DevBuf {
 public:
  explicit DevBuf(size_t bytes) { GPU_CHECK(cudaMalloc(&p_, bytes ? bytes : 1)); }
  ~DevBuf() { cudaFree(p_); }
  DevBuf(const DevBuf&) = delete;
  DevBuf& operator=(const DevBuf&) = delete;
  template <class T = unsigned char>
  T* get() const {
    return static_cast<T*>(p_);
  }

 private:
  void* p_ = nullptr;
};

inline void poison_dev(void* p, size_t bytes) {
  GPU_CHECK(cudaMemset(p, kPoison, bytes));
  GPU_CHECK(cudaDeviceSynchronize());
}

// Complete on return, also for the peers: a pageable host-to-device cudaMemcpy may return once
// the source is staged, before the data is in place, and a host barrier that follows orders
// nothing on the GPU, so a peer's g or iget right after it could read the old bytes.
inline void to_dev(void* dst, const void* src, size_t bytes) {
  GPU_CHECK(cudaMemcpy(dst, src, bytes, cudaMemcpyDefault));
  GPU_CHECK(cudaDeviceSynchronize());
}

template <class T = unsigned char>
std::vector<T> from_dev(const void* src, size_t n) {
  std::vector<T> v(n);
  GPU_CHECK(cudaMemcpy(v.data(), src, n * sizeof(T), cudaMemcpyDefault));
  return v;
}

// After a kernel: waits for it and turns a launch or run-time error into a job-ending message.
inline void kernel_done(const char* what) {
  cudaError_t e = cudaGetLastError();
  if (e == cudaSuccess) e = cudaDeviceSynchronize();
  if (e != cudaSuccess) {
    std::fprintf(stderr, "[PE %d] kernel %s failed: %s\n", gshmem_my_pe(), what,
                 cudaGetErrorString(e));
    std::fflush(stderr);
    gshmem_global_exit(3);
  }
}

inline testing::AssertionResult all_poison(const std::vector<unsigned char>& v, size_t from,
                                           size_t to) {
  for (size_t i = from; i < to; ++i) {
    if (v[i] != kPoison) {
      return testing::AssertionFailure() << "byte " << i << " was overwritten (value " << int(v[i])
                                         << "): a write went past its range";
    }
  }
  return testing::AssertionSuccess();
}

// The scopes every family is exercised at; kernels are launched as <<<kBlocks, kThreads>>>
// and split their work by the group they run at (thread, warp or block).
enum class Scope { Thread, Warp, Block };
inline const char* scope_name(Scope s) {
  return s == Scope::Thread ? "thread" : s == Scope::Warp ? "warp" : "block";
}
constexpr int kBlocks = 2;
constexpr int kThreads = 128;

// Which slice of `units` work items this group owns, for kBlocks x kThreads launches.
template <Scope S>
__device__ inline void my_slice(size_t units, size_t* begin, size_t* end, bool* leader) {
  unsigned groups, index;
  if constexpr (S == Scope::Thread) {
    groups = gridDim.x * blockDim.x;
    index = blockIdx.x * blockDim.x + threadIdx.x;
    *leader = true;
  } else if constexpr (S == Scope::Warp) {
    groups = gridDim.x * (blockDim.x / 32);
    index = blockIdx.x * (blockDim.x / 32) + threadIdx.x / 32;
    *leader = (threadIdx.x & 31) == 0;
  } else {
    groups = gridDim.x;
    index = blockIdx.x;
    *leader = threadIdx.x == 0;
  }
  size_t per = units / groups, extra = units % groups;
  *begin = index * per + (index < extra ? index : extra);
  *end = *begin + per + (index < extra ? 1 : 0);
}

}  // namespace gshmem_gpu_test
