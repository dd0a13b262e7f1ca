#include "collectives/call_check.hpp"

#include <algorithm>
#include <cinttypes>
#include <cstddef>
#include <cstdio>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include "collectives/host_reducer.hpp"
#include "collectives/wait_policy.hpp"
#include "gshmem/coll/workspace.cuh"
#include "gshmem/device/signal.cuh"
#include "gshmem/device/wait.cuh"
#include "host/base/env.hpp"
#include "host/runtime/runtime.hpp"

namespace gshmem::coll {

namespace {

using gshmem::detail::load_acquire;

// Word of a team's area header that counts its checked calls (words 0 and 1 are the collectives'
// call counter and the kernels' reader count, see coll_kernel.cu; word 3 is adapt.hpp's).
constexpr int kCheckCounterWord = 2;
static_assert(8 * (kCheckCounterWord + 1) <= kAreaHeaderBytes);
constexpr size_t kPayload = offsetof(CallDesc, tag);

// One team's view for the exchange: where its rows and counter are in this PE's heap.
struct Slot {
  gshmem_team_t team;
  const TeamInfo* info;
  char* rows;         // [2][n_pes] CallDesc
  uint64_t* counter;  // checked calls so far
};

Slot slot_of(Runtime& rt, gshmem_team_t team, const TeamInfo* info) {
  const DeviceContext& c = rt.context();
  const uint64_t area = rt.teams().coll_area_offset(team);
  return {team, info, c.heap.base + area + team_area_bytes(c.n_pes),
          reinterpret_cast<uint64_t*>(c.heap.base + area) + kCheckCounterWord};
}

CallDesc* row(const DeviceContext& c, const Slot& s, uint64_t seq, int member) {
  return reinterpret_cast<CallDesc*>(s.rows) + (seq & 1) * uint64_t(c.n_pes) + uint64_t(member);
}

// Writes d as this PE's descriptor of call `seq` of s's team at every member (data, then the tag
// as the put's signal, so a member that sees the tag sees the data).
void post(const DeviceContext& c, const Slot& s, uint64_t seq, CallDesc d, const char* call) {
  const TeamInfo& t = *s.info;
  d.tag = 0;
  CallDesc* at = row(c, s, seq, t.my_index);
  std::memcpy(static_cast<void*>(at), &d, kPayload);
  gshmem::detail::atomic_ref<uint64_t>(at->tag).store(seq, gshmem::detail::release);
  for (int i = 1; i < t.size; ++i) {
    const int m = (t.my_index + i) % t.size;
    putmem_signal<Thread>(c, at, &d, kPayload, &at->tag, seq, GSHMEM_SIGNAL_SET, t.world_pe(m),
                          {call});
  }
}

int index_in(const TeamInfo& t, int world_pe) {
  for (int i = 0; i < t.size; ++i) {
    if (t.world_pe(i) == world_pe) return i;
  }
  return -1;
}

std::string team_name(int team) {
  switch (team) {
    case GSHMEM_TEAM_WORLD:
      return "WORLD";
    case GSHMEM_TEAM_SHARED:
      return "SHARED";
    case GSHMEM_TEAM_NODE:
      return "NODE";
    case GSHMEM_TEAM_SAME_MYPE_NODE:
      return "SAME_MYPE_NODE";
    default:
      return "team " + std::to_string(team);
  }
}

// gshmem_moe_dtype_t's values (gshmem/moe.h, a fixed C ABI; moe/ is a layer above this one).
std::string moe_dtype(int v) {
  static const char* const names[] = {"GSHMEM_MOE_FLOAT32", "GSHMEM_MOE_BFLOAT16",
                                      "GSHMEM_MOE_FLOAT16", "GSHMEM_MOE_BYTES"};
  return v >= 0 && v < 4 ? names[v] : std::to_string(v);
}

std::string num(int64_t v) {
  return std::to_string(v);
}

bool is_moe(uint32_t kind) {
  return kind >= uint32_t(CallKind::MoeCreate);
}

// The compared fields, in the order a mismatch is reported: the call, then its team, then its
// arguments. A field prints as the user would write it; equal prints mean equal values.
struct Field {
  const char* name;
  bool moe;  // only the MoE calls have it
  std::function<std::string(const CallDesc&)> value;
};

const std::vector<Field>& fields() {
  static const std::vector<Field> f = {
      {"call", false,
       [](const CallDesc& d) { return std::string(call_kind_name(CallKind(d.kind))); }},
      {"team", false, [](const CallDesc& d) { return team_name(d.team); }},
      {"count", false, [](const CallDesc& d) { return std::to_string(d.count); }},
      {"dtype", false,
       [](const CallDesc& d) {
         return is_moe(d.kind) ? num(d.dtype) : std::string(dtype_name(gshmem_datatype_t(d.dtype)));
       }},
      {"op", false,
       [](const CallDesc& d) {
         return is_moe(d.kind) ? num(d.op) : std::string(op_name(gshmem_redop_t(d.op)));
       }},
      {"root", false, [](const CallDesc& d) { return num(d.root); }},
      {"handle", true,
       [](const CallDesc& d) { return "created by checked call " + num(int64_t(d.handle)); }},
      {"hidden", true, [](const CallDesc& d) { return num(d.hidden); }},
      {"experts_per_token", true, [](const CallDesc& d) { return num(d.topk); }},
      {"num_experts", true, [](const CallDesc& d) { return num(d.experts); }},
      {"max_tokens", true, [](const CallDesc& d) { return num(d.max_tokens); }},
      {"dispatch_type", true, [](const CallDesc& d) { return moe_dtype(d.dispatch_type); }},
      {"combine_type", true, [](const CallDesc& d) { return moe_dtype(d.combine_type); }},
      {"scale_block", true, [](const CallDesc& d) { return num(d.scale_block); }},
      {"dp_size", true, [](const CallDesc& d) { return num(d.dp_size); }},
      {"capacity_factor", true,
       [](const CallDesc& d) {
         char b[32];
         std::snprintf(b, sizeof b, "%.17g", d.capacity_factor);
         return std::string(b);
       }},
      {"config", true,
       [](const CallDesc& d) {
         char b[32];
         std::snprintf(b, sizeof b, "hash %016" PRIx64, d.config_hash);
         return std::string(b);
       }},
  };
  return f;
}

// "PE 0,2 = 1024, PE 1 = 512": the members' world PEs grouped by value, in team order.
std::string groups(const TeamInfo& t, const std::vector<CallDesc>& all, const Field& f) {
  std::vector<std::pair<std::string, std::string>> seen;  // value, PE list
  for (int i = 0; i < t.size; ++i) {
    std::string v = f.value(all[size_t(i)]);
    auto it = std::find_if(seen.begin(), seen.end(), [&](const auto& p) { return p.first == v; });
    std::string pe = std::to_string(t.world_pe(i));
    if (it == seen.end()) {
      seen.emplace_back(v, pe);
    } else {
      it->second += "," + pe;
    }
  }
  std::string out;
  for (const auto& [v, pes] : seen) {
    if (!out.empty()) out += ", ";
    out += "PE " + pes + " = " + v;
  }
  return out;
}

}  // namespace

bool call_checks_enabled() {
  static const bool on = Env::get().flag("GSHMEM_CHECK_CALLS");
  return on;
}

const char* call_kind_name(CallKind k) {
  static const char* const names[] = {
      "gshmem_allreduce",       "gshmem_reduce",   "gshmem_allgather",  "gshmem_reducescatter",
      "gshmem_broadcast",       "gshmem_alltoall", "gshmem_moe_create", "gshmem_moe_dispatch_send",
      "gshmem_moe_combine_send"};
  return uint32_t(k) < sizeof names / sizeof names[0] ? names[uint32_t(k)] : "?";
}

uint64_t call_check_bytes(int n_pes) {
  return call_checks_enabled() ? 2 * uint64_t(n_pes) * sizeof(CallDesc) : 0;
}

uint64_t check_call(Runtime& rt, gshmem_team_t team, CallDesc d, const char* call) {
  const DeviceContext& base = rt.context();
  DeviceContext c = base;
  c.spins_before_yield = coll_spins_before_yield(base.spins_before_yield);
  const TeamInfo& t = *rt.teams().find(team);
  const Slot me = slot_of(rt, team, &t);
  const uint64_t seq = ++*me.counter;
  d.team = int32_t(team);
  d.team_size = t.size;
  d.team_seq = seq;
  post(c, me, seq, d, call);

  // Teams this PE posted on during this check besides its own (cross-posts).
  std::vector<gshmem_team_t> crossed;
  auto crossed_to = [&](gshmem_team_t u) {
    return std::find(crossed.begin(), crossed.end(), u) != crossed.end();
  };
  auto cross_post = [&](const Slot& u) {
    post(c, u, ++*u.counter, d, call);
    crossed.push_back(u.team);
  };
  auto all_posted = [&] {
    for (int i = 0; i < t.size; ++i) {
      if (load_acquire(&row(c, me, seq, i)->tag) < seq) return false;
    }
    return true;
  };
  // A team U of this PE's on which a member of this team posted a call this PE has not reached,
  // while it has not posted this one: it waits on U for this PE, as this PE waits here for it.
  // The U tag is read before this team's, so a member seen not to have posted here was on U first.
  auto blocked_on = [&](Slot* out) {
    for (gshmem_team_t u = 0; u < GSHMEM_MAX_TEAMS; ++u) {
      const TeamInfo* ui = u == team || crossed_to(u) ? nullptr : rt.teams().find(u);
      if (!ui || ui->size < 2) continue;
      const Slot s = slot_of(rt, u, ui);
      const uint64_t next = *s.counter + 1;
      for (int j = 0; j < ui->size; ++j) {
        if (j == ui->my_index || load_acquire(&row(c, s, next, j)->tag) < next) continue;
        const int i = index_in(t, ui->world_pe(j));
        if (i >= 0 && load_acquire(&row(c, me, seq, i)->tag) < seq) return *out = s, true;
      }
    }
    return false;
  };
  for (;;) {
    Slot other{};
    bool blocked = false;
    uint32_t polls = 0;
    gshmem::detail::wait_for(c, Site{call}, [&] {
      if (all_posted()) return true;
      // The other teams are looked at only once the wait is a long one.
      return (++polls & 255) == 0 && (blocked = blocked_on(&other));
    });
    if (!blocked) break;
    cross_post(other);
  }

  std::vector<CallDesc> all(size_t(t.size));
  for (int i = 0; i < t.size; ++i)
    std::memcpy(static_cast<void*>(&all[size_t(i)]), row(c, me, seq, i), kPayload);
  // A member that cross-posted here waits on its own team for this PE: post there too (once).
  for (const CallDesc& o : all) {
    const gshmem_team_t x = gshmem_team_t(o.team);
    if (x == team || crossed_to(x)) continue;
    const TeamInfo* xi = rt.teams().find(x);
    if (!xi) continue;
    const Slot s = slot_of(rt, x, xi);
    if (*s.counter + 1 == o.team_seq) cross_post(s);
  }

  const std::string name = team_name(team);
  const std::string where = " (" + (name.rfind("team ", 0) == 0 ? name : "team " + name) + ")";
  for (const Field& f : fields()) {
    if (f.moe && !is_moe(d.kind)) continue;
    const std::string mine = f.value(d);
    bool differs = false;
    for (const CallDesc& o : all) differs = differs || f.value(o) != mine;
    if (!differs) continue;
    const std::string what = std::string(f.name) == "call"
                                 ? "'call' differs across PEs"
                                 : "argument '" + std::string(f.name) + "' differs across PEs";
    throw Error(GSHMEM_ERROR_INVALID_ARGUMENT, call, f.name,
                what + ": " + groups(t, all, f) + where);
  }
  if (!d.valid) return seq;
  std::string rejected;
  for (int i = 0; i < t.size; ++i) {
    if (all[size_t(i)].valid) continue;
    rejected += (rejected.empty() ? "" : ",") + std::to_string(t.world_pe(i));
  }
  if (!rejected.empty()) {
    throw Error(GSHMEM_ERROR_INVALID_ARGUMENT, call, "",
                "PE " + rejected +
                    " rejected its arguments (its own message says which); no PE ran the call" +
                    where);
  }
  return seq;
}

}  // namespace gshmem::coll
