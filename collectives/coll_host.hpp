// Host-side hooks of the collectives for gshmem's own tests, perftests and tools (not installed):
// the planner's view of a team, what it would choose, and overrides that replace GSHMEM_ALGO /
// GSHMEM_NCHANNELS / GSHMEM_CHUNK_SIZE inside one process.
#pragma once

#include "collectives/planner.hpp"
#include "gshmem/coll/direct.cuh"
#include "gshmem/collectives.h"

namespace gshmem::coll {

// From this many bytes per PE (the larger of src and dst), a call on CPU PEs publishes its
// symmetric src for peers to read in place when this PE does not write it during the call, and
// AllReduce (but AVG) publishes dst too (CallArgs::src_pub, dst_pub). Below it src is copied into
// the pool, which lets the call return before its peers have read it. The copy costs more than
// that wait from 16 KiB: a peer reads the pool's freshly written lines out of another core's cache,
// and the user's buffer without the copy (2 PEs on 2 cores, Broadcast 16 / 64 KiB: 2.0 / 8.6 us
// through the pool, 1.0 / 2.0 us in place; AllReduce 16 / 64 KiB: 3.0 / 11.3 against 1.5 / 6.7).
inline constexpr uint64_t kPublishInPlaceMin = 16u << 10;
// On a GPU heap the kernels keep the earlier threshold: nobody has measured them at other ones.
inline constexpr uint64_t kPublishInPlaceMinGpu = 256u << 10;

// Whether a call in place (gshmem's "natural" overlap) may publish src: nothing writes a part of
// it while a peer may still read that part. AllGather's src is this PE's own block of dst, and
// Broadcast's root only sends. Two-shot AllReduce and Reduce (Direct2) write slice j of dst, which
// is slice j of src, only once member j has published its sum of slice j, made after reading it;
// slice me of src only this PE reads. Not with more members than one reduction pass takes: this
// PE's slice is then read from the pool's copy (own_input in direct.cuh).
inline bool in_place_publishes_src(Coll c, Algo a, int n) {
  switch (c) {
    case Coll::AllGather:
    case Coll::Broadcast:
      return true;
    case Coll::AllReduce:
    case Coll::Reduce:
      return a == Algo::Direct2 && n <= detail::kMaxSrcs;
    default:
      return false;
  }
}

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
