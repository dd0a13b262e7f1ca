// The planner's calibration file (collectives/calibration.hpp): a file in the user's cache that
// anything may have written. What parses must format and parse back to the same text, and every
// curve must interpolate to a positive, finite time at any size; what does not parse says why.
#include <cmath>
#include <cstdint>
#include <string>
#include <string_view>

#include "collectives/calibration.hpp"

namespace gc = gshmem::coll;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  gc::Calibration c;
  std::string why;
  if (!gc::parse_calibration(text, &c, &why)) {
    if (why.empty()) __builtin_trap();
    return 0;
  }
  const std::string again = gc::format_calibration(c);
  gc::Calibration d;
  if (!gc::parse_calibration(again, &d, &why) || gc::format_calibration(d) != again) {
    __builtin_trap();
  }
  for (const gc::CalTable& t : c.tables) {
    for (const gc::CalCurve& cv : t.curves) {
      for (uint64_t b :
           {uint64_t(0), uint64_t(1), uint64_t(4096), uint64_t(1) << 40, ~uint64_t(0)}) {
        const double us = gc::interpolate(cv, b);
        if (!(us > 0) || !std::isfinite(us)) __builtin_trap();
      }
    }
  }
  return 0;
}
