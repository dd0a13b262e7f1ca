// GSHMEM_CHECK_CALLS: before a team-wide call (a collective of gshmem/collectives.h, which the
// OpenSHMEM collectives go through, or MoE create / dispatch / combine) runs, every member posts a
// fixed-size descriptor of its arguments to every member and compares what it gets, so a call
// whose arguments differ across PEs fails on every PE with a message naming the call, the argument
// and the PEs on each side, instead of hanging or returning a wrong result.
//
// Where. Each team slot's collective area (collectives/team_area.cpp) grows by two rows of one
// descriptor per PE when the setting is on (nothing when off); header word 2 counts the team's
// checked calls. A call's descriptor goes to row (seq & 1): a member writes row p again only after
// it read every member's descriptor of the call between, so a slow reader's row is never
// overwritten. Calls on different teams (PE 0 on WORLD, PE 1 on NODE) would each wait on their own
// team forever; a waiting PE therefore also watches the other teams it is in, and when a member of
// both posted on another team a call this PE has not reached (and not this one), it posts its own
// descriptor there too, which names its real team: both sides then see 'team' differ and every
// team's count stays in step, so the teams remain usable after the error.
//
// CPU PEs only (host heap): with a GPU heap the host does not touch the heap for stream-ordered
// calls, and device-initiated collectives inside kernels are not checked either.
#pragma once

#include <cstdint>

#include "gshmem/collectives.h"
#include "gshmem/device/context.cuh"

namespace gshmem {
class Runtime;
}

namespace gshmem::coll {

// GSHMEM_CHECK_CALLS, read once.
bool call_checks_enabled();

// The call, as every member names it. The collectives are their Coll value.
enum class CallKind : uint32_t {
  AllReduce,
  Reduce,
  AllGather,
  ReduceScatter,
  Broadcast,
  AllToAll,
  MoeCreate,
  MoeDispatch,
  MoeCombine,
};

const char* call_kind_name(CallKind k);

// What members compare. Fields a call does not have are left as they are (zero / -1): every member
// of a matched call leaves them alike. Fixed size, in the heap; `tag` (the call's number on the
// team the row belongs to) is written last, by the signal of the put.
struct CallDesc {
  uint32_t kind = 0;
  int32_t team = -1;  // the team of the call (another one than the row's on a cross-post)
  int32_t team_size = 0;
  int32_t valid = 1;      // 0: the arguments failed this PE's own checks (it says why)
  uint64_t team_seq = 0;  // the call's number on `team`
  uint64_t count = 0;
  int32_t dtype = -1, op = -1, root = -1;
  // MoE: the config's key fields, a hash of all of it, and the handle (the number of its
  // creation on the team).
  int32_t hidden = 0, topk = 0, experts = 0, max_tokens = 0;
  int32_t dispatch_type = -1, combine_type = -1, scale_block = 0, dp_size = 0;
  double capacity_factor = 0;
  uint64_t handle = 0;
  uint64_t config_hash = 0;
  uint64_t spare[2] = {};  // a row is two cache lines
  uint64_t tag = 0;
};
static_assert(sizeof(CallDesc) == 128);

// Heap bytes the check needs in each team slot (0 when the setting is off).
uint64_t call_check_bytes(int n_pes);

// Exchanges `d` (kind, team and valid set by the caller) over `team`, which this PE must belong
// to; every member must call it (the contract of the call being checked). Returns the call's
// number on the team once every member passed the same descriptor and every member's own checks
// passed, or when only this PE's own checks failed (the caller then reports them). Throws Error
// (GSHMEM_ERROR_INVALID_ARGUMENT, naming `call`, the argument, the PEs and their values) on a
// mismatch, and when another member's own checks failed. Waits through wait_for (abort flag,
// GSHMEM_TIMEOUT). CPU PEs only: the caller skips it with a GPU heap.
uint64_t check_call(Runtime& rt, gshmem_team_t team, CallDesc d, const char* call);

}  // namespace gshmem::coll
