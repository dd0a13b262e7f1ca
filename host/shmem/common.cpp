#include "host/shmem/common.hpp"

#include "host/base/error.hpp"
#include "host/runtime/runtime.hpp"

namespace gshmem::compat {

void fail(const char* call, const char* arg, const std::string& why) {
  Error e(GSHMEM_ERROR_INVALID_ARGUMENT, call, arg, why);
  if (Runtime* rt = detail::default_runtime()) rt->fail(e);
  raise(e);
}

}  // namespace gshmem::compat
