// Host-side hooks of the collectives for gshmem's own tests, perftests and tools (not installed):
// the planner's view of a team, what it would choose, and overrides that replace GSHMEM_ALGO /
// GSHMEM_NCHANNELS / GSHMEM_CHUNK_SIZE inside one process.
#pragma once

#include "collectives/planner.hpp"
#include "gshmem/collectives.h"

namespace gshmem::coll {

// Below this many bytes per PE (the larger of src and dst), copying a symmetric buffer into the
// pool is cheaper than the extra synchronisation of letting peers read it in place (the call must
// wait for them to finish). From it on, a call publishes src when this PE does not write it during
// the call, and AllReduce (but AVG) publishes dst too (CallArgs::src_pub, dst_pub).
inline constexpr uint64_t kPublishInPlaceMin = 256u << 10;

// The shape of a team the calling PE belongs to (n == 0 when it does not).
TeamShape team_shape(gshmem_team_t team);

// The plan a call of `coll` with `bytes` (nccl-tests size) on `team` gets now.
Plan plan_for(Coll coll, gshmem_team_t team, uint64_t bytes);

// Replaces the environment's overrides for this process; nullptr restores them. Every PE must
// set the same overrides before the same calls.
void set_overrides(const Overrides* o);

// The overrides in force (the environment's unless set_overrides replaced them).
const Overrides& overrides();

}  // namespace gshmem::coll
