// Team synchronisation, written once over signal_op and the wait helper, so it runs the same on
// CPU PEs, in kernels and across the network.
//
// team_sync: returns once every member of the team has entered the same team_sync (no completion
//            of outstanding operations). barrier: quiet, then team_sync, so every put issued by any
//            member before the barrier is visible everywhere after it.
// Called by the whole group G on every member of the team, one call at a time per team and PE.
#pragma once

#include "gshmem/device/context.cuh"
#include "gshmem/device/order.cuh"
#include "gshmem/device/signal.cuh"
#include "gshmem/device/wait.cuh"

namespace gshmem {

namespace detail {

// A team's synchronisation words in each member's heap (at TeamInfo::psync_offset). Counters only
// grow, so back-to-back barriers need no reset and a fast member cannot be confused with a slow
// one: round[k] counts how many barriers the partner 2^k below has passed round k of.
struct TeamSyncWords {
  uint64_t epoch;  // barriers this PE has completed on the team; written only locally
  // The centralised barrier (see central()): at the team's first member only.
  uint64_t arrived;    // members that have entered, over all barriers
  uint64_t released;   // the last epoch every member has entered
  uint64_t round[29];  // teams of up to 2^29 members
  // followed by team-size words of scratch for internal small allgathers (collect_words())
};
static_assert(sizeof(TeamSyncWords) == 256);

GSHMEM_HD GSHMEM_INLINE const TeamInfo* member_team(const DeviceContext& c, gshmem_team_t team,
                                                    Site s) {
  const TeamInfo* t = nullptr;
  if (c.teams && static_cast<uint32_t>(team) < GSHMEM_MAX_TEAMS) t = &c.teams[team];
  if (!t || t->size <= 0 || t->my_index < 0) {
    bad_input(c, s, c.n_pes ? BadInput::Team : BadInput::NotInitialized, nullptr, uint64_t(team),
              -1);
  }
  return t;
}

GSHMEM_HD GSHMEM_INLINE TeamSyncWords* team_words(const DeviceContext& c, const TeamInfo& t) {
  return reinterpret_cast<TeamSyncWords*>(c.heap.base + t.psync_offset);
}

GSHMEM_HD GSHMEM_INLINE uint64_t* collect_words(TeamSyncWords* w) {
  return reinterpret_cast<uint64_t*>(w + 1);
}

// Dissemination: ceil(log2 n) rounds; in round k a member signals the member 2^k after it and
// waits for the one 2^k before it.
GSHMEM_HD inline void dissemination(const DeviceContext& c, const TeamInfo& t, Site s) {
  TeamSyncWords* w = team_words(c, t);
  uint64_t epoch = ++w->epoch;
  for (int k = 0, dist = 1; dist < t.size; ++k, dist <<= 1) {
    int to = t.world_pe((t.my_index + dist) % t.size);
    signal_op(c, &w->round[k], 1, GSHMEM_SIGNAL_ADD, to, s);
    uint64_t* counter = &w->round[k];
    Site waiting{s.call, t.world_pe((t.my_index - dist + t.size) % t.size)};
    wait_for(c, waiting, [&] { return load_acquire(counter) >= epoch; });
  }
}

// Centralised: every member adds one to a counter at the team's first member; the last to arrive
// publishes the epoch there, which the others wait for. Each member then needs to run once per
// barrier rather than once per round, which is what counts when PEs outnumber cores (8 PEs on 2
// cores: a dissemination round waits on a partner that may not be scheduled). Needs every
// member mapped here; every member takes the same branch (same flags, same mapping).
GSHMEM_HD inline void central(const DeviceContext& c, const TeamInfo& t, Site s) {
  TeamSyncWords* w = team_words(c, t);
  uint64_t epoch = ++w->epoch;
  int root = t.world_pe(0);
  auto* r = reinterpret_cast<TeamSyncWords*>(c.heap.peer_base[root] + t.psync_offset);
  uint64_t before = atomic_ref<uint64_t>(r->arrived).fetch_add(1, acq_rel);
  if (before + 1 == epoch * uint64_t(t.size)) {
    atomic_ref<uint64_t>(r->released).store(epoch, release);
    return;
  }
  wait_for(c, {s.call, root},
           [&] { return atomic_ref<uint64_t>(r->released).load(acquire) >= epoch; });
}

GSHMEM_HD GSHMEM_INLINE bool all_mapped(const DeviceContext& c, const TeamInfo& t) {
  for (int i = 0; i < t.size; ++i) {
    if (!c.heap.peer_base[t.world_pe(i)]) return false;
  }
  return true;
}

GSHMEM_HD GSHMEM_INLINE void team_sync_one(const DeviceContext& c, const TeamInfo& t, Site s) {
  if ((c.flags & kCtxOversubscribed) && t.size > 2 && all_mapped(c, t)) {
    central(c, t, s);
  } else {
    dissemination(c, t, s);
  }
}

}  // namespace detail

template <class G = Thread>
GSHMEM_HD void team_sync(const DeviceContext& c, gshmem_team_t team,
                         Site s = {"gshmem_team_sync"}) {
  const TeamInfo* t = detail::member_team(c, team, s);
  G::sync();
  if (G::rank() == 0 && t->size > 1) detail::team_sync_one(c, *t, s);
  G::sync();
}

template <class G = Thread>
GSHMEM_HD void barrier(const DeviceContext& c, gshmem_team_t team, Site s = {"gshmem_barrier"}) {
  quiet<G>(c);
  team_sync<G>(c, team, s);
}

template <class G = Thread>
GSHMEM_HD void barrier_all(const DeviceContext& c, Site s = {"gshmem_barrier_all"}) {
  barrier<G>(c, GSHMEM_TEAM_WORLD, s);
}

template <class G = Thread>
GSHMEM_HD void sync_all(const DeviceContext& c, Site s = {"gshmem_sync_all"}) {
  team_sync<G>(c, GSHMEM_TEAM_WORLD, s);
}

}  // namespace gshmem
