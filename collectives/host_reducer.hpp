// The reducer CPU PEs run the algorithms with: one compiled n-way reduction per (type, op),
// chosen at run time, so each algorithm is compiled once for the host instead of once per type.
#pragma once

#include <cstddef>
#include <type_traits>

#include "gshmem/coll/numeric.cuh"
#include "gshmem/device/group.cuh"

namespace gshmem::coll {

using ReduceFn = void (*)(void* out, const void* const* srcs, int nsrc, size_t count);
using FinishFn = void (*)(void* out, size_t count, int n);

struct HostReducer {
  size_t es = 0;
  ReduceFn reduce_fn = nullptr;  // nullptr: the (type, op) pair does not exist
  FinishFn finish_fn = nullptr;  // AVG only

  size_t esize() const { return es; }
  template <class G>
  void reduce(void* out, const void* const* srcs, int nsrc, size_t count) const {
    static_assert(std::is_same_v<G, Thread>, "CPU PEs run collectives as one thread");
    reduce_fn(out, srcs, nsrc, count);
  }
  template <class G>
  void finish(void* out, size_t count, int n) const {
    if (finish_fn) finish_fn(out, count, n);
  }
};

// The reducer for (dtype, op); reduce_fn is nullptr when op does not apply to dtype. For
// collectives without reduction pass GSHMEM_SUM (any type has it) to get the element size.
HostReducer host_reducer(gshmem_datatype_t dtype, gshmem_redop_t op);

// "GSHMEM_FLOAT" / "float" and "GSHMEM_SUM" / "sum", or "?" for values out of range.
const char* dtype_name(gshmem_datatype_t dtype);
const char* dtype_short_name(gshmem_datatype_t dtype);
const char* op_name(gshmem_redop_t op);
const char* op_short_name(gshmem_redop_t op);

}  // namespace gshmem::coll
