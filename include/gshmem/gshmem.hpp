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

#if defined(__CUDACC__) || defined(CUDART_VERSION)
// gshmem.h includes launch.h only when the CUDA runtime was in scope there; it may have come in
// since (libcu++ brings it), so the typed launch below asks for it itself.
#include "gshmem/launch.h"

#include <tuple>
#include <type_traits>
#include <utility>

namespace gshmem {

namespace detail {
template <class Tuple, size_t... I>
int launch_packed(const void* fn, dim3 grid, dim3 block, size_t shared_mem, cudaStream_t stream,
                  Tuple& values, std::index_sequence<I...>) {
  void* ptrs[sizeof...(I) + 1] = {static_cast<void*>(&std::get<I>(values))...};
  return gshmemx_collective_launch(fn, {grid.x, grid.y, grid.z}, {block.x, block.y, block.z}, ptrs,
                                   shared_mem, stream);
}
}  // namespace detail

// gshmemx_collective_launch for a typed kernel: collective_launch(kernel, grid, block, smem,
// stream, args...) with the arguments converted to the kernel's parameter types.
template <class... Params, class... Args>
int collective_launch(void (*kernel)(Params...), dim3 grid, dim3 block, size_t shared_mem,
                      cudaStream_t stream, Args&&... args) {
  static_assert(sizeof...(Params) == sizeof...(Args), "one argument per kernel parameter");
  std::tuple<std::decay_t<Params>...> values(std::forward<Args>(args)...);
  return detail::launch_packed(reinterpret_cast<const void*>(kernel), grid, block, shared_mem,
                               stream, values, std::index_sequence_for<Params...>{});
}

template <class... Params>
int collective_launch_query_gridsize(void (*kernel)(Params...), dim3 block, size_t shared_mem,
                                     int* gridsize) {
  return gshmemx_collective_launch_query_gridsize(
      reinterpret_cast<const void*>(kernel), {block.x, block.y, block.z}, shared_mem, gridsize);
}

}  // namespace gshmem
#endif
