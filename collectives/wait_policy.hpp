// How long the waits of team-wide operations (the collectives, moe's dispatch and combine) spin
// before they give the core away.
#pragma once

#include <algorithm>
#include <cstdint>

#include "host/base/env.hpp"

namespace gshmem::coll {

// A collective waits for every member, so a PE that spins while the member it waits for is
// descheduled (a loaded machine, or a peer still on this PE's core at start-up) delays the whole
// team. Its waits therefore give the core away sooner than the runtime's waits: 512 pauses is
// ~5-15 us on current x86, longer than a step between running PEs takes.
inline constexpr uint32_t kCollSpinsBeforeYield = 512;

// The spins_before_yield for a team-wide operation's waits, given the runtime's
// (DeviceContext::spins_before_yield, decided in host/runtime from GSHMEM_SPIN_BEFORE_YIELD).
// When the user set the variable, its value applies as it is; otherwise at most
// kCollSpinsBeforeYield.
inline uint32_t coll_spins_before_yield(uint32_t runtime_spins) {
  static const bool user_set = Env::get().is_set("GSHMEM_SPIN_BEFORE_YIELD");
  return user_set ? runtime_spins : std::min(runtime_spins, kCollSpinsBeforeYield);
}

}  // namespace gshmem::coll
