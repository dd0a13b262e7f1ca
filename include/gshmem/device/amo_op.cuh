// The atomic operations of the AMO family, as a type that selects one code path at compile time.
#pragma once

#include <cstdint>

namespace gshmem {

enum class AmoOp : uint8_t {
  Fetch,
  Set,
  Swap,
  CompareSwap,
  FetchAdd,
  Add,
  FetchInc,
  Inc,
  FetchAnd,
  And,
  FetchOr,
  Or,
  FetchXor,
  Xor,
};

}  // namespace gshmem
