// Default sizes and iteration counts of each point-to-point test, shared by the gshmem programs
// and the MPI baseline so that runs without flags measure the same work. Chosen so that each
// program finishes in a few seconds on two CPU PEs.
#pragma once

#include "perftest/common/options.hpp"

namespace perftest::pt2pt {

inline Options bandwidth_defaults() {
  Options o;
  o.max_size = size_t(4) << 20;
  o.iters = 20;
  o.warmup = 5;
  return o;
}

// Message latencies over the size range (put_latency).
inline Options rma_latency_defaults() {
  return Options{};
}

// One-element operations (p, atomics): cheap, so many iterations.
inline Options element_latency_defaults() {
  Options o;
  o.iters = 20000;
  o.warmup = 1000;
  return o;
}

inline Options barrier_defaults() {
  Options o;
  o.iters = 2000;
  o.warmup = 200;
  return o;
}

}  // namespace perftest::pt2pt
