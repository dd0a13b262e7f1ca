// The host side of the GPU collective test: the CPU tests' inputs and reference
// (tests/coll/coll_check.hpp), compiled by the host compiler in gpu_coll_ref.cpp (its type
// visitors are __host__ __device__ templates that nvcc refuses to instantiate with host lambdas).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "gshmem/coll/workspace.cuh"
#include "gshmem/collectives.h"

namespace gpu_coll_ref {

using gshmem::coll::Algo;
using gshmem::coll::Coll;

struct Case {
  Coll coll;
  gshmem_datatype_t dtype;
  gshmem_redop_t op = GSHMEM_SUM;
  size_t count = 0;
  int root = 0;  // team index
  bool in_place = false;
  bool symmetric = false;  // buffers from the symmetric heap
  uint64_t salt = 1;
};

bool reduces(Coll c);
const char* coll_name(Coll c);
const char* algo_name(Algo a);
// The case in words, with the algorithm forced now (if any).
std::string describe(const Case& c);

// Member pe's `elems` input elements of the case, into out (element size of c.dtype each).
void make_input(const Case& c, int pe, size_t elems, void* out);

// Checks this PE's dst of the case (count elements, or n * count for AllGather and AlltoAll) as
// read back from the device. Reports the first few wrong elements (gtest failures, with `note`);
// returns how many were wrong. Not for a non-root of Reduce (it has no result).
size_t check_output(const Case& c, int me, int n, const void* dst, const std::string& note);

// Forces `algo` for every collective, with nch channels and chunks of `chunk` bytes, until
// unforce(); the algorithms that implement coll on the world team here.
void force(Algo algo, int nch, uint64_t chunk);
void unforce();
std::vector<Algo> algorithms_for(Coll coll);

}  // namespace gpu_coll_ref
