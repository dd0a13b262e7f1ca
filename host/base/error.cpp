#include "host/base/error.hpp"

#include <unistd.h>

#include <atomic>
#include <cstdio>

#include "host/base/log.hpp"

namespace gshmem {

namespace {
std::atomic<int> g_error_mode{GSHMEMX_ERROR_ABORT};
}  // namespace

Error::Error(int status, std::string call, std::string argument, std::string reason)
    : std::runtime_error(call + ": " + reason),
      status_(status),
      call_(std::move(call)),
      argument_(std::move(argument)),
      reason_(std::move(reason)) {}

int error_mode() {
  return g_error_mode.load(std::memory_order_relaxed);
}
void set_error_mode(int mode) {
  g_error_mode.store(mode, std::memory_order_relaxed);
}

void raise(const Error& e, const std::function<void(const std::string&)>& end_job) {
  if (error_mode() == GSHMEMX_ERROR_THROW) throw e;
  log::error("%s", e.what());
  if (end_job) end_job(e.what());
  std::fflush(nullptr);
  ::_exit(1);
}

}  // namespace gshmem
