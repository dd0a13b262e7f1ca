// The reduction operators of the active-set reductions (shmem_TYPE_OP_to_all), applied locally.
#pragma once

#include <algorithm>

namespace gshmem::compat {

enum class RedOp { And, Or, Xor, Max, Min, Sum, Prod };

// The spec's operation names, as the generated wrappers paste them (kRedOp_##OP).
inline constexpr RedOp kRedOp_and = RedOp::And;
inline constexpr RedOp kRedOp_or = RedOp::Or;
inline constexpr RedOp kRedOp_xor = RedOp::Xor;
inline constexpr RedOp kRedOp_max = RedOp::Max;
inline constexpr RedOp kRedOp_min = RedOp::Min;
inline constexpr RedOp kRedOp_sum = RedOp::Sum;
inline constexpr RedOp kRedOp_prod = RedOp::Prod;

template <RedOp Op, class T>
inline T combine(T a, T b) {
  if constexpr (Op == RedOp::And) {
    return T(a & b);
  } else if constexpr (Op == RedOp::Or) {
    return T(a | b);
  } else if constexpr (Op == RedOp::Xor) {
    return T(a ^ b);
  } else if constexpr (Op == RedOp::Max) {
    return std::max(a, b);
  } else if constexpr (Op == RedOp::Min) {
    return std::min(a, b);
  } else if constexpr (Op == RedOp::Sum) {
    return T(a + b);
  } else {
    static_assert(Op == RedOp::Prod);
    return T(a * b);
  }
}

}  // namespace gshmem::compat
