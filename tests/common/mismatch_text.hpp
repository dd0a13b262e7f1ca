// The text a mismatched call reports (GSHMEM_CHECK_CALLS, collectives/call_check.hpp) when the
// last PE is the odd one out: "PE 0..n-2 = <common>, PE n-1 = <odd>". For the collective and MoE
// mismatch tests.
#pragma once

#include <string>

#include "gshmem/gshmem.h"

namespace gshmem_test {

inline bool odd_one() {
  return gshmem_my_pe() == gshmem_n_pes() - 1;
}

// "PE 0,1" for the world PEs in [lo, hi).
inline std::string pes(int lo, int hi) {
  std::string s = "PE ";
  for (int i = lo; i < hi; ++i) s += (i > lo ? "," : "") + std::to_string(i);
  return s;
}

inline std::string split(const std::string& common, const std::string& odd) {
  const int n = gshmem_n_pes();
  return pes(0, n - 1) + " = " + common + ", " + pes(n - 1, n) + " = " + odd;
}

}  // namespace gshmem_test
