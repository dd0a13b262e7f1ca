// A failed CUDA runtime call, reported the one way gshmem reports it. No CUDA headers here (the
// error code travels as an int), so a caller's header stays toolkit-free.
#pragma once

#include <string_view>

#include "gshmem/types.h"

namespace gshmem::gpu {

// Throws Error(status, call, argument, "<what>: <CUDA's error string> (<error name>)"), after
// clearing CUDA's last error so that the next check does not report this failure again.
// rc: a cudaError_t other than cudaSuccess; call: the gshmem call that failed ("gshmem_init");
// what: the CUDA call and what it was for ("cudaMalloc for the team table").
[[noreturn]] void cuda_fail(int rc, const char* call, std::string_view what,
                            int status = GSHMEM_ERROR_INTERNAL, const char* argument = "");

// cuda_fail unless rc is cudaSuccess (0).
inline void cuda_check(int rc, const char* call, std::string_view what,
                       int status = GSHMEM_ERROR_INTERNAL, const char* argument = "") {
  if (rc != 0) cuda_fail(rc, call, what, status, argument);
}

}  // namespace gshmem::gpu
