// Teams: the predefined WORLD, SHARED, NODE and SAME_MYPE_NODE, and the ones users split off.
// Device code reads the TeamInfo table; this class owns it, the member lists and each team's sync
// words in the heap.
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "gshmem/device/context.cuh"
#include "host/heap/heap.hpp"

namespace gshmem {

// What creating and destroying a team needs from the host calls, handed in by the runtime
// (host/runtime/hostops: they work on a host heap and a GPU heap alike). Creation is collective
// over the parent: each member writes a word into every member's copy, then they synchronise.
struct TeamCalls {
  void (*p64)(const DeviceContext& c, uint64_t* dst, uint64_t value, int pe, Site s);
  void (*barrier)(const DeviceContext& c, gshmem_team_t team, Site s);
  void (*team_sync)(const DeviceContext& c, gshmem_team_t team, Site s);
  void (*quiet)(const DeviceContext& c);
  // This PE's own copy of heap words into host memory.
  void (*read_local)(const DeviceContext& c, void* dst, const void* heap_src, size_t bytes);
};

class Teams {
 public:
  // Reserves every slot's sync words in the heap (same offsets on every PE). For the
  // collectives (collectives/): `coll_area_bytes` more per slot, zeroed with the sync words when
  // a team is created, and one scratch pool of `coll_pool_bytes` shared by all teams.
  Teams(const DeviceContext& ctx, SymmetricHeap& heap, int n_pes, const TeamCalls& calls,
        uint64_t coll_area_bytes = 0, uint64_t coll_pool_bytes = 0);

  // WORLD, SHARED (peers whose heap is mapped here), NODE (same node) and SAME_MYPE_NODE (the
  // PEs with this PE's index on their node). Call once the context that refers to table() is
  // live; needs no communication.
  void init_predefined(int my_pe, const std::vector<int>& shared, const std::vector<int>& node,
                       const std::vector<int>& same_index);

  const TeamInfo* table() const { return table_.data(); }
  // Keeps a copy of the table, with member lists, where kernels read it (pinned memory for a
  // GPU heap): `table` has GSHMEM_MAX_TEAMS entries, `members` GSHMEM_MAX_TEAMS * n_pes. Every
  // later change is written to both, before the collective that creates or destroys a team ends.
  void mirror_to(TeamInfo* table, int32_t* members);
  // Heap offsets of a slot's collective area and of the collective scratch pool.
  uint64_t coll_area_offset(gshmem_team_t team) const {
    return psync_base_ + uint64_t(team) * words_per_slot_ + coll_area_at_;
  }
  uint64_t coll_pool_offset() const { return coll_pool_; }
  uint64_t coll_pool_bytes() const { return coll_pool_bytes_; }
  // The team as seen from this PE; nullptr when the handle is invalid or this PE not a member.
  const TeamInfo* find(gshmem_team_t team) const;
  int translate(gshmem_team_t src, int src_pe, gshmem_team_t dest) const;

  // Collective over parent. 0 on success; on bad arguments prints why and returns non-zero
  // with *out = GSHMEM_TEAM_INVALID.
  int split_strided(gshmem_team_t parent, int start, int stride, int size, gshmem_team_t* out);
  int split_2d(gshmem_team_t parent, int xrange, gshmem_team_t* xteam, gshmem_team_t* yteam);
  void destroy(gshmem_team_t team);

 private:
  // Creates up to kMaxNew teams at once (split_2d makes two per PE): members[j] lists the world
  // PEs of this PE's j-th new team (empty: not a member). All parent members call it together.
  int create(const TeamInfo& parent, std::vector<std::vector<int32_t>> members, gshmem_team_t* out,
             const char* call);
  std::vector<uint64_t> parent_allgather(const TeamInfo& parent, uint64_t value, const char* call);
  void set(gshmem_team_t slot, std::vector<int32_t> members, int my_pe);
  void mirror(gshmem_team_t slot);

  const DeviceContext& ctx_;
  SymmetricHeap& heap_;
  TeamCalls calls_;
  int n_pes_;
  TeamInfo* mirror_table_ = nullptr;
  int32_t* mirror_members_ = nullptr;
  uint64_t words_per_slot_;
  uint64_t psync_base_;
  uint64_t coll_area_at_ = 0;  // within a slot
  uint64_t generations_ = 0;   // teams set so far (TeamInfo::generation)
  uint64_t coll_pool_ = 0;
  uint64_t coll_pool_bytes_ = 0;
  std::array<TeamInfo, GSHMEM_MAX_TEAMS> table_{};
  std::array<std::vector<int32_t>, GSHMEM_MAX_TEAMS> members_;
};

}  // namespace gshmem
