// Bad input to device calls, with device checks on (GSHMEM_DEVICE_CHECKS=1): each case runs as
// its own gshmemrun job (gpu_badinput_child), whose kernel must trap after printing a message
// that names the call; the job must fail. One process, no gshmem_init here.
#include <cuda_runtime.h>
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <cstdio>
#include <string>

#include "tests/gpu/test_files.hpp"

#ifndef GSHMEMRUN_PATH
#error "GSHMEMRUN_PATH and BADINPUT_CHILD_PATH come from tests/gpu/CMakeLists.txt"
#endif

namespace {

std::string run(const std::string& cmd, int* status) {
  std::string out;
  FILE* p = popen((cmd + " 2>&1").c_str(), "r");
  if (!p) {
    *status = -1;
    return "popen failed";
  }
  char buf[512];
  while (fgets(buf, sizeof buf, p)) out += buf;
  int w = pclose(p);
  *status = WIFEXITED(w) ? WEXITSTATUS(w) : 128 + (WIFSIGNALED(w) ? WTERMSIG(w) : 0);
  return out;
}

class GpuBadInput : public testing::TestWithParam<std::pair<const char*, const char*>> {
 protected:
  void SetUp() override {
    int n = 0;
    cudaError_t e = cudaGetDeviceCount(&n);
    if (e != cudaSuccess || n == 0) {
      std::string why = e != cudaSuccess ? cudaGetErrorString(e) : "no device";
      static bool said = false;
      if (!said) std::printf("gshmem gpu tests: SKIPPED (no usable GPU: %s)\n", why.c_str());
      said = true;
      GTEST_SKIP() << "no usable GPU: " << why;
    }
  }
};

TEST_P(GpuBadInput, TrapsNamingTheCall) {
  auto [name, call] = GetParam();
  int status = 0;
  using gshmem_gpu_test::test_file;
  const std::string gshmemrun = test_file("GSHMEMRUN", GSHMEMRUN_PATH, "../../gshmemrun");
  const std::string child =
      test_file("GPU_BADINPUT_CHILD", BADINPUT_CHILD_PATH, "gpu_badinput_child");
  std::string out = run("GSHMEM_DEVICE_CHECKS=1 GSHMEM_TIMEOUT=30 " + gshmemrun +
                            " -n 2 --timeout 60 " + child + " " + name,
                        &status);
  if (out.find("SKIPPED") != std::string::npos) GTEST_SKIP() << out;
  EXPECT_NE(status, 0) << "the job succeeded; output:\n" << out;
  EXPECT_NE(out.find(std::string(call) + ": bad input"), std::string::npos)
      << "no device message naming " << call << "; output:\n"
      << out;
  EXPECT_EQ(out.find("ERROR: the bad call returned normally"), std::string::npos) << out;
}

INSTANTIATE_TEST_SUITE_P(Cases, GpuBadInput,
                         testing::Values(std::make_pair("pe", "gshmem_putmem"),
                                         std::make_pair("address", "gshmem_putmem"),
                                         std::make_pair("size", "gshmem_getmem"),
                                         std::make_pair("signal_op", "gshmem_signal_op"),
                                         std::make_pair("cmp", "gshmem_uint64_wait_until"),
                                         std::make_pair("warp_pe", "gshmem_putmem_nbi_warp"),
                                         std::make_pair("team", "gshmem_barrier_block"),
                                         std::make_pair("misaligned", "gshmem_int_atomic_add"),
                                         std::make_pair("warp_shape", "gshmem_putmem_warp")),
                         [](const testing::TestParamInfo<std::pair<const char*, const char*>>& i) {
                           return std::string(i.param.first);
                         });

}  // namespace
