// Collectives on a team called by a group G from inside a kernel (Thread, Warp or Block), or by a
// CPU PE's thread: the device-side forms of NVSHMEM's nvshmem_TYPENAME_OP_reduce, _fcollect,
// _alltoall and _broadcast. The same algorithm code as the host API's collectives
// (algorithms.cuh), on a plan that every member derives alone from nothing but the call: one
// channel, ring (pairwise exchange for alltoall), 64 KiB pipelining chunks.
//
// Who calls: every member of the team, with the same arguments, in the same order as its other
// collectives on that team (host calls and these share the team's call counter, so they may be
// mixed, one at a time). Each member's whole group calls (a warp's 32 threads, a block's
// threads). The buffers: dst and src anywhere the caller reaches (symmetric or not);
// reductions, fcollect and broadcast may be in place (dst == src; fcollect: src at block
// my_pe of dst), alltoall may not. Returns 0, or -1 when this PE is not in the team, the runtime
// reserved no collective state, root is out of range or alltoall buffers overlap.
#pragma once

#include "gshmem/coll/algorithms.cuh"

namespace gshmem::coll {

inline constexpr uint64_t kTeamCallChunk = 64u << 10;

namespace detail {

// The call's Workspace: the team's entry, its collective area and the pool, and this call's
// number, advanced by the group's first thread and read by all of it.
template <class G>
GSHMEM_HD GSHMEM_INLINE bool team_workspace(const DeviceContext& c, gshmem_team_t team, Coll coll,
                                            const char* call, Workspace* ws) {
  if (c.n_pes == 0 || !c.teams || uint32_t(team) >= uint32_t(GSHMEM_MAX_TEAMS) ||
      c.coll_pool_bytes == 0) {
    return false;
  }
  const TeamInfo& t = c.teams[team];
  if (t.size <= 0 || t.my_index < 0) return false;
  ws->c = c;
  ws->team = t;
  ws->call = call;
  ws->area_off = c.coll_area_off + uint64_t(team) * c.coll_area_stride;
  ws->pool_off = c.coll_pool_off;
  ws->pool_bytes = c.coll_pool_bytes;
  ws->flag_stride = c.n_pes;
  ws->nch = 1;
  ws->chunk = kTeamCallChunk;
  ws->algo = coll == Coll::AllToAll ? Algo::Pairwise : Algo::Ring;
  ws->sub = Algo::Ring;
  ws->proto = Proto::Simple;
  ws->node_size = 0;
  volatile uint64_t* counter = reinterpret_cast<volatile uint64_t*>(c.heap.base + ws->area_off);
  if (G::rank() == 0) *counter = *counter + 1;
  G::sync();
  ws->seq = *counter;
  G::sync();  // every thread has read it before the group's next call advances it
  return true;
}

template <class G, class R>
GSHMEM_HD int team_call(const DeviceContext& c, gshmem_team_t team, Coll coll, const R& r,
                        const CallArgs& a, const char* call) {
  Workspace ws;
  if (!team_workspace<G>(c, team, coll, call, &ws)) return -1;
  if ((coll == Coll::Broadcast) && (a.root < 0 || a.root >= ws.team.size)) return -1;
  run_channel<G>(ws, coll, r, a, 0);
  return 0;
}

GSHMEM_HD GSHMEM_INLINE bool overlaps(const void* a, const void* b, uint64_t bytes) {
  const char* x = static_cast<const char*>(a);
  const char* y = static_cast<const char*>(b);
  return bytes && x < y + bytes && y < x + bytes;
}

}  // namespace detail

// dst[i] = Op over the members of src[i], i < nreduce, on every member.
template <class G, class T, class Op>
GSHMEM_HD int team_reduce(const DeviceContext& c, gshmem_team_t team, T* dst, const T* src,
                          size_t nreduce, const char* call) {
  CallArgs a{src, dst, nreduce, 0, false, false};
  return detail::team_call<G>(c, team, Coll::AllReduce, StaticReducer<T, Op>{}, a, call);
}

// dst (team size x nelems) gets every member's src, in team order.
template <class G, class T>
GSHMEM_HD int team_fcollect(const DeviceContext& c, gshmem_team_t team, T* dst, const T* src,
                            size_t nelems, const char* call) {
  CallArgs a{src, dst, nelems, 0, false, false};
  return detail::team_call<G>(c, team, Coll::AllGather, StaticReducer<T, OpSum>{}, a, call);
}

// Block j (nelems) of member i's src lands as block i of member j's dst.
template <class G, class T>
GSHMEM_HD int team_alltoall(const DeviceContext& c, gshmem_team_t team, T* dst, const T* src,
                            size_t nelems, const char* call) {
  const int n = (c.teams && uint32_t(team) < uint32_t(GSHMEM_MAX_TEAMS)) ? c.teams[team].size : 0;
  if (detail::overlaps(dst, src, uint64_t(n) * nelems * sizeof(T))) return -1;
  CallArgs a{src, dst, nelems, 0, false, false};
  return detail::team_call<G>(c, team, Coll::AllToAll, StaticReducer<T, OpSum>{}, a, call);
}

// root's src (nelems, root a team index) lands in every member's dst (root's own too).
template <class G, class T>
GSHMEM_HD int team_broadcast(const DeviceContext& c, gshmem_team_t team, T* dst, const T* src,
                             size_t nelems, int root, const char* call) {
  CallArgs a{src, dst, nelems, root, false, false};
  return detail::team_call<G>(c, team, Coll::Broadcast, StaticReducer<T, OpSum>{}, a, call);
}

}  // namespace gshmem::coll
