// Host-side hooks of the collectives for gshmem's own tests, perftests and tools (not installed):
// the planner's view of a team, what it would choose, and overrides that replace GSHMEM_ALGO /
// GSHMEM_NCHANNELS / GSHMEM_CHUNK_SIZE inside one process.
#pragma once

#include "collectives/planner.hpp"
#include "gshmem/collectives.h"

namespace gshmem::coll {

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
