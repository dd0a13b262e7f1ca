// Modules and libraries a program loads itself with the driver API get the kernels' default
// context from gshmemx_cumodule_init / gshmemx_culibrary_init (NVSHMEM's nvshmemx_cumodule_init
// and nvshmemx_culibrary_init): their kernels then reach peers as the program's own do, also in
// memory the heap grew into after the attach. A module without gshmem's device library, and a
// NULL handle, are refused with an error. The images are built by tests/gpu/CMakeLists.txt
// (GPU_MODULE_FATBIN: gpu_module_kernels.cu device-linked against gshmem::device;
// GPU_PLAIN_FATBIN: gpu_plain_kernels.cu alone). The driver is reached through the runtime's
// entry points: the test does not link libcuda.
#include <cuda.h>

#include <cstring>
#include <fstream>
#include <iterator>

#include "gshmem/device_module.h"
#include "tests/gpu/gpu_util.cuh"
#include "tests/gpu/test_files.hpp"

using namespace gshmem_gpu_test;

namespace {

class GpuModule : public testing::Test {
 protected:
  void SetUp() override { GPU_TEST_SETUP(); }
};

// A driver entry point by name, typed as the driver's own declaration.
template <class F>
F driver_entry(const char* name) {
  void* fn = nullptr;
  cudaDriverEntryPointQueryResult found{};
  if (cudaGetDriverEntryPointByVersion(name, &fn, 12000, cudaEnableDefault, &found) !=
          cudaSuccess ||
      !fn) {
    cudaGetLastError();
    return nullptr;
  }
  return reinterpret_cast<F>(fn);
}
#define DRIVER(name) driver_entry<decltype(&name)>(#name)

#define CU_CHECK(call)                                                                  \
  do {                                                                                  \
    CUresult cu_check_rc = (call);                                                      \
    ASSERT_EQ(cu_check_rc, CUDA_SUCCESS) << #call << " failed (" << cu_check_rc << ")"; \
  } while (0)

// A module image the build made beside this test (GPU_MODULE_FATBIN / GPU_PLAIN_FATBIN).
std::vector<char> read_image(const char* built) {
  const char* name = std::strrchr(built, '/') ? std::strrchr(built, '/') + 1 : built;
  std::ifstream in(test_file(nullptr, built, name), std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// Runs module_ring_put (f) on every PE into dst and checks what each PE got: the left-hand
// neighbour's base + PE, and the context's PE and PE count as the module saw them.
void ring_through(CUfunction f, int* dst, int base) {
  const int me = gshmem_my_pe(), n = gshmem_n_pes(), left = (me + n - 1) % n;
  int* out = nullptr;
  GPU_CHECK(cudaMalloc(&out, 2 * sizeof(int)));
  GPU_CHECK(cudaMemset(out, 0xff, 2 * sizeof(int)));
  GPU_CHECK(cudaMemset(dst, 0, sizeof(int)));
  gshmem_barrier_all();  // every PE's dst is zero before any put
  void* args[] = {&dst, &base, &out};
  auto launch = DRIVER(cuLaunchKernel);
  ASSERT_NE(launch, nullptr);
  CU_CHECK(launch(f, 1, 1, 1, 32, 1, 1, 0, nullptr, args, nullptr));
  GPU_CHECK(cudaDeviceSynchronize());
  gshmem_barrier_all();
  int got = 0, seen[2] = {};
  GPU_CHECK(cudaMemcpy(&got, dst, sizeof got, cudaMemcpyDeviceToHost));
  GPU_CHECK(cudaMemcpy(seen, out, sizeof seen, cudaMemcpyDeviceToHost));
  GPU_CHECK(cudaFree(out));
  EXPECT_EQ(seen[0], me) << "the module's gshmem_my_pe()";
  EXPECT_EQ(seen[1], n) << "the module's gshmem_n_pes()";
  EXPECT_EQ(got, base + left) << "the value PE " << left << "'s module kernel put";
}

TEST_F(GpuModule, ModuleKernelsReachPeersAlsoAfterTheHeapGrows) {
  SCOPED_TRACE(seed_note());
  std::vector<char> image = read_image(GPU_MODULE_FATBIN);
  ASSERT_FALSE(image.empty()) << "cannot read " << GPU_MODULE_FATBIN;
  GPU_CHECK(cudaFree(nullptr));  // the runtime's primary context is current for the driver calls
  CUmodule mod{};
  CU_CHECK(DRIVER(cuModuleLoadData)(&mod, image.data()));
  ASSERT_EQ(gshmemx_cumodule_init(mod), 0);
  ASSERT_EQ(gshmemx_cumodule_init(mod), 0) << "attaching twice is attaching once";
  CUfunction f{};
  CU_CHECK(DRIVER(cuModuleGetFunction)(&f, mod, "module_ring_put"));
  Sym small(sizeof(int));
  ring_through(f, small.get<int>(), 1000);
  {
    // Past the memory backed so far: the heap grows, and the module's copy of the context
    // must follow (its bounds and peer table) for the put into the new part to go through.
    const size_t big = size_t(256) << 20;
    Sym grown(big);
    ring_through(f, reinterpret_cast<int*>(grown.get() + big - 64), 2000);
  }
  EXPECT_EQ(gshmemx_cumodule_finalize(mod), 0);
  CU_CHECK(DRIVER(cuModuleUnload)(mod));
}

TEST_F(GpuModule, LibraryKernelsReachPeers) {
  SCOPED_TRACE(seed_note());
  std::vector<char> image = read_image(GPU_MODULE_FATBIN);
  ASSERT_FALSE(image.empty()) << "cannot read " << GPU_MODULE_FATBIN;
  GPU_CHECK(cudaFree(nullptr));
  CUlibrary lib{};
  CU_CHECK(DRIVER(cuLibraryLoadData)(&lib, image.data(), nullptr, nullptr, 0, nullptr, nullptr, 0));
  ASSERT_EQ(gshmemx_culibrary_init(lib), 0);
  CUkernel k{};
  CU_CHECK(DRIVER(cuLibraryGetKernel)(&k, lib, "module_ring_put"));
  CUfunction f{};
  CU_CHECK(DRIVER(cuKernelGetFunction)(&f, k));
  Sym small(sizeof(int));
  ring_through(f, small.get<int>(), 3000);
  EXPECT_EQ(gshmemx_culibrary_finalize(lib), 0);
  CU_CHECK(DRIVER(cuLibraryUnload)(lib));
}

TEST_F(GpuModule, ModulesWithoutTheDeviceLibraryAreRefused) {
  std::vector<char> image = read_image(GPU_PLAIN_FATBIN);
  ASSERT_FALSE(image.empty()) << "cannot read " << GPU_PLAIN_FATBIN;
  GPU_CHECK(cudaFree(nullptr));
  CUmodule mod{};
  CU_CHECK(DRIVER(cuModuleLoadData)(&mod, image.data()));
  EXPECT_EQ(gshmemx_cumodule_init(mod), GSHMEM_ERROR_INVALID_ARGUMENT);
  CU_CHECK(DRIVER(cuModuleUnload)(mod));
  EXPECT_EQ(gshmemx_cumodule_init(nullptr), GSHMEM_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(gshmemx_culibrary_init(nullptr), GSHMEM_ERROR_INVALID_ARGUMENT);
}

}  // namespace
