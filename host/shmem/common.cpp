#include "host/shmem/common.hpp"

#include <unistd.h>

#include <cstdio>

#include "host/log.hpp"
#include "host/runtime.hpp"

namespace gshmem::compat {

void fail(const char* call, const char* arg, const std::string& why) {
  Error e(GSHMEM_ERROR_INVALID_ARGUMENT, call, arg, why);
  if (Runtime* rt = detail::default_runtime()) rt->fail(e);
  if (detail::error_mode() == GSHMEMX_ERROR_THROW) throw e;
  log::error("%s", e.what());
  std::fflush(nullptr);
  ::_exit(1);
}

}  // namespace gshmem::compat
