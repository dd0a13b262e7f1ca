#include "host/team/teams.hpp"

#include <cstring>

#include "gshmem/device/barrier.cuh"
#include "host/base/log.hpp"

namespace gshmem {

namespace {

bool is_predefined(gshmem_team_t t) {
  return t == GSHMEM_TEAM_WORLD || t == GSHMEM_TEAM_SHARED || t == GSHMEM_TEAM_NODE ||
         t == GSHMEM_TEAM_SAME_MYPE_NODE;
}

}  // namespace

Teams::Teams(const DeviceContext& ctx, SymmetricHeap& heap, int n_pes, const TeamCalls& calls,
             uint64_t coll_area_bytes, uint64_t coll_pool_bytes)
    : ctx_(ctx), heap_(heap), calls_(calls), n_pes_(n_pes) {
  uint64_t bytes = sizeof(detail::TeamSyncWords) + sizeof(uint64_t) * uint64_t(n_pes);
  coll_area_at_ = (bytes + 63) / 64 * 64;
  words_per_slot_ = (coll_area_at_ + coll_area_bytes + 63) / 64 * 64;
  psync_base_ = heap.reserve(words_per_slot_ * GSHMEM_MAX_TEAMS, 64, "team sync words");
  if (coll_pool_bytes) {
    coll_pool_ = heap.reserve(coll_pool_bytes, 4096, "collective scratch (GSHMEM_COLL_SCRATCH)");
    coll_pool_bytes_ = coll_pool_bytes;
  }
}

void Teams::set(gshmem_team_t slot, std::vector<int32_t> members, int my_pe) {
  TeamInfo& t = table_[size_t(slot)];
  int32_t n = int32_t(members.size());
  int32_t stride = n > 1 ? members[1] - members[0] : 1;
  bool strided = stride > 0;
  for (int32_t i = 1; i < n && strided; ++i)
    strided = members[size_t(i)] - members[size_t(i - 1)] == stride;
  t.size = n;
  t.my_index = -1;
  for (int32_t i = 0; i < n; ++i) {
    if (members[size_t(i)] == my_pe) t.my_index = i;
  }
  t.start = members[0];
  t.stride = strided ? stride : 0;
  members_[size_t(slot)] = std::move(members);
  t.members = strided ? nullptr : members_[size_t(slot)].data();
  t.psync_offset = psync_base_ + uint64_t(slot) * words_per_slot_;
  t.generation = ++generations_;
  heap_.zero(t.psync_offset, words_per_slot_);
  mirror(slot);
}

void Teams::mirror_to(TeamInfo* table, int32_t* members) {
  mirror_table_ = table;
  mirror_members_ = members;
  for (int s = 0; s < GSHMEM_MAX_TEAMS; ++s) mirror(gshmem_team_t(s));
}

void Teams::mirror(gshmem_team_t slot) {
  if (!mirror_table_) return;
  TeamInfo t = table_[size_t(slot)];
  if (t.members) {
    int32_t* list = mirror_members_ + size_t(slot) * size_t(n_pes_);
    std::memcpy(list, t.members, sizeof(int32_t) * size_t(t.size));
    t.members = list;
  }
  mirror_table_[size_t(slot)] = t;
}

void Teams::init_predefined(int my_pe, const std::vector<int>& shared, const std::vector<int>& node,
                            const std::vector<int>& same_index) {
  std::vector<int32_t> world(static_cast<size_t>(ctx_.n_pes));
  for (int32_t i = 0; i < ctx_.n_pes; ++i) world[size_t(i)] = i;
  set(GSHMEM_TEAM_WORLD, world, my_pe);
  set(GSHMEM_TEAM_SHARED, {shared.begin(), shared.end()}, my_pe);
  set(GSHMEM_TEAM_NODE, {node.begin(), node.end()}, my_pe);
  set(GSHMEM_TEAM_SAME_MYPE_NODE, {same_index.begin(), same_index.end()}, my_pe);
}

const TeamInfo* Teams::find(gshmem_team_t team) const {
  if (team < 0 || team >= GSHMEM_MAX_TEAMS) return nullptr;
  const TeamInfo& t = table_[size_t(team)];
  return t.size > 0 && t.my_index >= 0 ? &t : nullptr;
}

int Teams::translate(gshmem_team_t src, int src_pe, gshmem_team_t dest) const {
  const TeamInfo* s = find(src);
  const TeamInfo* d = find(dest);
  if (!s || !d || src_pe < 0 || src_pe >= s->size) return -1;
  int32_t world = s->world_pe(src_pe);
  if (!d->members) {
    int32_t delta = world - d->start;
    if (delta < 0 || delta % d->stride) return -1;
    return delta / d->stride < d->size ? delta / d->stride : -1;
  }
  for (int32_t i = 0; i < d->size; ++i) {
    if (d->members[i] == world) return i;
  }
  return -1;
}

std::vector<uint64_t> Teams::parent_allgather(const TeamInfo& parent, uint64_t value,
                                              const char* call) {
  gshmem_team_t handle = gshmem_team_t(&parent - table_.data());
  uint64_t* collect = detail::collect_words(detail::team_words(ctx_, parent));
  for (int32_t i = 0; i < parent.size; ++i) {
    calls_.p64(ctx_, collect + parent.my_index, value, parent.world_pe(i), {call});
  }
  calls_.barrier(ctx_, handle, {call});
  std::vector<uint64_t> out(static_cast<size_t>(parent.size));
  calls_.read_local(ctx_, out.data(), collect, sizeof(uint64_t) * out.size());
  // Nobody may overwrite the scratch until everyone has read it.
  calls_.team_sync(ctx_, handle, {call});
  return out;
}

int Teams::create(const TeamInfo& parent, std::vector<std::vector<int32_t>> members,
                  gshmem_team_t* out, const char* call) {
  uint64_t free_mask = 0;
  for (int s = 0; s < GSHMEM_MAX_TEAMS; ++s) {
    if (table_[size_t(s)].size == 0) free_mask |= 1ull << s;
  }
  uint64_t common = ~0ull;
  for (uint64_t m : parent_allgather(parent, free_mask, call)) common &= m;
  std::vector<gshmem_team_t> slots;
  for (int s = 0; s < GSHMEM_MAX_TEAMS && slots.size() < members.size(); ++s) {
    if (common & (1ull << s)) slots.push_back(s);
  }
  if (slots.size() < members.size()) {
    log::error(
        "%s: no free team slot common to the parent's PEs (at most %d teams exist at "
        "once; destroy teams that are no longer used)",
        call, GSHMEM_MAX_TEAMS);
    for (size_t j = 0; j < members.size(); ++j) out[j] = GSHMEM_TEAM_INVALID;
    return -1;
  }
  for (size_t j = 0; j < members.size(); ++j) {
    out[j] = GSHMEM_TEAM_INVALID;
    if (members[j].empty()) continue;
    set(slots[j], std::move(members[j]), ctx_.my_pe);
    out[j] = slots[j];
  }
  // Every new team's sync words are reset before any member can signal into them.
  gshmem_team_t parent_handle = gshmem_team_t(&parent - table_.data());
  calls_.barrier(ctx_, parent_handle, {call});
  GSHMEM_INFO(TEAM, "%s: new team(s) in slot(s) %d%s%d", call, int(slots[0]),
              slots.size() > 1 ? "," : "", slots.size() > 1 ? int(slots[1]) : -1);
  return 0;
}

int Teams::split_strided(gshmem_team_t parent, int start, int stride, int size,
                         gshmem_team_t* out) {
  const char* call = "gshmem_team_split_strided";
  *out = GSHMEM_TEAM_INVALID;
  if (parent == GSHMEM_TEAM_INVALID) return 0;  // not in the parent: no new team, no error
  const TeamInfo* p = find(parent);
  if (!p) {
    log::error("%s: parent team %d is not a team this PE belongs to", call, int(parent));
    return -1;
  }
  if (size < 1 || start < 0 || stride < (size == 1 ? 0 : 1) ||
      int64_t(start) + int64_t(size - 1) * stride >= p->size) {
    log::error("%s: start=%d stride=%d size=%d do not describe PEs of the parent team (%d PEs)",
               call, start, stride, size, int(p->size));
    return -1;
  }
  std::vector<int32_t> members;
  int32_t offset = p->my_index - start;
  bool member =
      offset >= 0 && (stride == 0 ? offset == 0 : offset % stride == 0 && offset / stride < size);
  if (member) {
    for (int i = 0; i < size; ++i) members.push_back(p->world_pe(start + i * stride));
  }
  return create(*p, {members}, out, call);
}

int Teams::split_2d(gshmem_team_t parent, int xrange, gshmem_team_t* xteam, gshmem_team_t* yteam) {
  const char* call = "gshmem_team_split_2d";
  *xteam = *yteam = GSHMEM_TEAM_INVALID;
  if (parent == GSHMEM_TEAM_INVALID) return 0;  // as in split_strided
  const TeamInfo* p = find(parent);
  if (!p) {
    log::error("%s: parent team %d is not a team this PE belongs to", call, int(parent));
    return -1;
  }
  if (xrange < 1) {
    log::error("%s: xrange=%d must be at least 1", call, xrange);
    return -1;
  }
  int n = p->size;
  if (xrange > n) xrange = n;
  int row = p->my_index / xrange, col = p->my_index % xrange;
  std::vector<int32_t> x, y;
  for (int i = row * xrange; i < n && i < (row + 1) * xrange; ++i) x.push_back(p->world_pe(i));
  for (int i = col; i < n; i += xrange) y.push_back(p->world_pe(i));
  gshmem_team_t out[2];
  int rc = create(*p, {x, y}, out, call);
  *xteam = out[0];
  *yteam = out[1];
  return rc;
}

void Teams::destroy(gshmem_team_t team) {
  if (is_predefined(team)) {
    log::error("gshmem_team_destroy: team %d is predefined and cannot be destroyed", int(team));
    return;
  }
  if (!find(team)) return;
  calls_.quiet(ctx_);
  table_[size_t(team)] = TeamInfo{};
  members_[size_t(team)].clear();
  mirror(team);
}

}  // namespace gshmem
