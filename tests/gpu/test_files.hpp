// Where a GPU test finds a file the build made beside it (a program it runs, a module image it
// loads): $env when set (env may be null), else the path the build wrote, else `rel` from the
// test's own folder, so a build tree copied to another machine (scripts/gpu_bundle.sh) keeps
// working.
#pragma once

#include <unistd.h>

#include <cstdlib>
#include <string>

namespace gshmem_gpu_test {

inline std::string test_file(const char* env, const char* built, const char* rel) {
  if (const char* v = env ? std::getenv(env) : nullptr; v && *v) return v;
  if (access(built, R_OK) == 0) return built;
  char self[4096];
  ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
  std::string dir = n > 0 ? std::string(self, size_t(n)) : std::string("./x");
  return dir.substr(0, dir.rfind('/') + 1) + rel;
}

}  // namespace gshmem_gpu_test
