// gshmem C++ API (host): the error type and the default context. The device API templates live in
// <gshmem/device.cuh> and take a DeviceContext; default_context() is the one the C API uses.
#pragma once

#include <stdexcept>
#include <string>

#include "gshmem/device/context.cuh"
#include "gshmem/gshmem.h"

namespace gshmem {

// Every host-side failure: which call, which argument was wrong (empty when none), and why.
class Error : public std::runtime_error {
 public:
  Error(int status, std::string call, std::string argument, std::string reason);
  int status() const { return status_; }
  const std::string& call() const { return call_; }
  const std::string& argument() const { return argument_; }
  const std::string& reason() const { return reason_; }

 private:
  int status_;
  std::string call_;
  std::string argument_;
  std::string reason_;
};

// The calling process's PE as the C API sees it. Valid between gshmem_init and gshmem_finalize;
// before and after, n_pes is 0 and every call through it reports "not initialised".
const DeviceContext& default_context();

}  // namespace gshmem
