// gshmem::moe::AllToAll on CPU PEs: sizes and allocation, the order of the calls, and the host
// loops that run the exchange steps (moe/routing.cuh, moe/exchange.cuh, moe/weighted_sum.cuh)
// with G = Thread, one peer after another. A GPU heap would launch the same steps as kernels on
// `stream` (one block per peer); until that layer exists a stream is refused. For the tests,
// set_host_groups (moe/test_hooks.hpp) makes the same loops run the steps as kernels would: by
// host thread groups (G = Block), a block per peer at once where the steps are per peer.
//
// One dispatch, on every member:
//   send  route its tokens; count words to every member (put-with-signal, SET epoch); in the
//         worst-case sizing, its network batches at once (they cannot overflow); wait for every
//         member's counts; plan (offsets, overflow: the same verdict everywhere); the remaining
//         batches: network peers first, so their puts travel while the mapped copies run.
//   recv  wait for every member's tokens signal, unpacking network landing zones as they arrive.
// One combine: send the outputs back to every member (network first); wait for every member's
// outputs signal; the weighted sums. combine() (both halves in one call) copies nothing to this
// member itself: expert_y is still valid when it sums, so its own outputs are read there.
#include <algorithm>
#include <cmath>
#include <cstdarg>
#include <cstdio>
#include <cstring>
#include <vector>

#include "collectives/call_check.hpp"
#include "collectives/wait_policy.hpp"
#include "gshmem/device.cuh"
#include "gshmem/moe.hpp"
#include "host/base/log.hpp"
#include "host/runtime/process.hpp"
#include "host/runtime/runtime.hpp"
#include "gshmem/simt.hpp"
#include "moe/exchange.cuh"
#include "moe/routing.cuh"
#include "moe/test_hooks.hpp"
#include "moe/weighted_sum.cuh"

namespace gshmem::moe {

namespace {

using detail::Plan;

std::string format(const char* fmt, ...) __attribute__((format(printf, 1, 2)));
std::string format(const char* fmt, ...) {
  char buf[512];
  va_list ap;
  va_start(ap, fmt);
  std::vsnprintf(buf, sizeof buf, fmt, ap);
  va_end(ap);
  return buf;
}

[[noreturn]] void bad_argument(const char* call, const char* arg, const std::string& why) {
  throw Error(GSHMEM_ERROR_INVALID_ARGUMENT, call, arg, why);
}

constexpr uint64_t kAlign = 64;

uint64_t align_up(uint64_t v, uint64_t a) {
  return (v + a - 1) / a * a;
}

bool valid_dtype(DType t) {
  return t == DType::F32 || t == DType::BF16 || t == DType::F16 || t == DType::Bytes;
}

const char* dtype_name(DType t) {
  switch (t) {
    case DType::F32:
      return "fp32";
    case DType::BF16:
      return "bf16";
    case DType::F16:
      return "fp16";
    case DType::Bytes:
      return "bytes";
  }
  return "?";
}

// Checks what every PE can check alone; names the field that is wrong.
void check_config(const Config& c, const TeamInfo* team) {
  const char* call = "gshmem_moe_create";
  if (!team) bad_argument(call, "team", format("team=%d is not a team this PE belongs to", c.team));
  if (c.max_tokens < 1) bad_argument(call, "max_tokens", "max_tokens must be at least 1");
  if (c.hidden < 1) bad_argument(call, "hidden", "hidden must be at least 1");
  if (c.num_experts < 1 || c.num_experts % team->size != 0) {
    bad_argument(call, "num_experts",
                 format("num_experts=%d must be a positive multiple of the team size %d",
                        c.num_experts, team->size));
  }
  if (c.experts_per_token < 1 || c.experts_per_token > c.num_experts) {
    bad_argument(call, "experts_per_token",
                 format("experts_per_token=%d must be in 1..num_experts (%d)", c.experts_per_token,
                        c.num_experts));
  }
  if (!valid_dtype(c.dispatch_type)) {
    bad_argument(call, "dispatch_type",
                 format("dispatch_type=%d is not a gshmem_moe_dtype_t", int(c.dispatch_type)));
  }
  if (!valid_dtype(c.combine_type) || c.combine_type == DType::Bytes) {
    bad_argument(call, "combine_type",
                 format("combine_type=%d must be FLOAT32, BFLOAT16 or FLOAT16 (the combine "
                        "computes in floating point)",
                        int(c.combine_type)));
  }
  if (c.scale_block < GSHMEM_MOE_SCALE_BLOCK_AUTO) {
    bad_argument(call, "scale_block",
                 format("scale_block=%d must be positive, 0 (no scales) or "
                        "GSHMEM_MOE_SCALE_BLOCK_AUTO",
                        c.scale_block));
  }
  if (c.dp_size < 1 || team->size % c.dp_size != 0) {
    bad_argument(call, "dp_size",
                 format("dp_size=%d must divide the team size %d", c.dp_size, team->size));
  }
  if (!(c.capacity_factor >= 0) || !std::isfinite(c.capacity_factor)) {
    bad_argument(
        call, "capacity_factor",
        format("capacity_factor=%g must be 0 (worst case) or positive", c.capacity_factor));
  }
  uint64_t rows = uint64_t(c.max_tokens) * uint64_t(c.experts_per_token);
  if (rows > INT32_MAX / 2 || uint64_t(c.num_experts) * c.max_tokens > INT32_MAX / 2) {
    bad_argument(call, "max_tokens", "max_tokens * experts is too large for 32-bit row indices");
  }
}

// Carves one allocation into 64-byte aligned pieces: offsets first, pointers once it exists.
struct Carver {
  uint64_t size = 0;
  uint64_t take(uint64_t bytes) {
    uint64_t at = align_up(size, kAlign);
    size = at + bytes;
    return at;
  }
};

// FNV-1a over every field of the config: members compare it (GSHMEM_CHECK_CALLS) besides the
// fields they name.
uint64_t config_hash(const Config& c) {
  uint64_t h = 1469598103934665603ull;
  auto mix = [&](const void* p, size_t n) {
    for (size_t i = 0; i < n; ++i)
      h = (h ^ static_cast<const unsigned char*>(p)[i]) * 1099511628211ull;
  };
  const int32_t ints[] = {c.max_tokens,
                          c.num_experts,
                          c.experts_per_token,
                          c.hidden,
                          int32_t(c.dispatch_type),
                          int32_t(c.combine_type),
                          c.scale_block,
                          int32_t(c.team),
                          c.dp_size};
  mix(ints, sizeof ints);
  mix(&c.capacity_factor, sizeof c.capacity_factor);
  return h;
}

coll::CallDesc describe(const Config& c, coll::CallKind kind, uint64_t handle) {
  coll::CallDesc d;
  d.kind = uint32_t(kind);
  d.hidden = c.hidden;
  d.topk = c.experts_per_token;
  d.experts = c.num_experts;
  d.max_tokens = c.max_tokens;
  d.dispatch_type = int32_t(c.dispatch_type);
  d.combine_type = int32_t(c.combine_type);
  d.scale_block = c.scale_block;
  d.dp_size = c.dp_size;
  d.capacity_factor = c.capacity_factor;
  d.handle = handle;
  d.config_hash = config_hash(c);
  return d;
}

// set_host_groups: the grid shape handles made from now on run their steps with (threads == 0:
// one thread, G = Thread).
simt::Grid g_host_groups{1, 0, 1};

}  // namespace

void set_host_groups(const simt::Grid* grid) {
  g_host_groups = grid ? *grid : simt::Grid{1, 0, 1};
}

class AllToAll::Impl {
 public:
  explicit Impl(const Config& cfg);
  ~Impl();

  void dispatch_send(const void* x, const float* scales, const int32_t* indices,
                     const int32_t* num_tokens, void* stream);
  ExpertBatch dispatch_recv(void* stream);
  void combine_send(const void* y, void* stream);
  void combine_recv(void* out, const float* weights, void* stream);
  void combine(void* out, const void* y, const float* weights, void* stream);

  Config cfg;
  Info info{};

 private:
  enum class Stage { Idle, Sent, Received, Combining };

  void set_shape(const TeamInfo& team, bool spans_nodes);
  void allocate_symmetric(bool spans_nodes);
  void allocate_tables(const std::vector<int32_t>& nodes);
  void expect(Stage want, const char* call, void* stream) const;
  // expect(), then, with GSHMEM_CHECK_CALLS, the members compare the call (kind, handle,
  // config): a member out of order stops the others too.
  void begin(Stage want, coll::CallKind kind, const char* call, void* stream);
  // Ends a dispatch that will not deliver: nothing of this call may still be in flight or unread
  // when any member starts the next one.
  void abandon();
  template <class F>
  void for_each_peer(F&& f) const;
  // Runs step(G{}) by one group: this thread, or one host block (set_host_groups).
  template <class Step>
  void one_group(Step&& step) const;
  // Runs step(G{}, r) for the peers r in for_each_peer's order: in turn on this thread, or a host
  // block per peer, all at once.
  template <class Step>
  void each_peer(Step&& step) const;
  // The two halves of combine. `own`: y stays valid until the sums are done, so this member's
  // own outputs are read there instead of being copied into its y_in.
  void send_outputs(const char* y, bool own, const char* call);
  void sum_outputs(void* out, const float* weights, const void* own, const char* call);

  Plan p_{};
  DeviceContext ctx_{};
  gshmem_team_t team_;
  void* sym_ = nullptr;
  std::vector<int32_t> tables_;
  std::vector<float> acc_;  // one token's sums in combine
  bool worst_case_;
  uint64_t epoch_ = 0;
  uint64_t handle_id_ = 0;  // GSHMEM_CHECK_CALLS: the checked call on the team that created it
  int32_t tokens_ = 0;
  Stage stage_ = Stage::Idle;
  simt::Grid groups_ = g_host_groups;  // threads == 0: G = Thread
};

AllToAll::Impl::Impl(const Config& config) : cfg(config), team_(config.team) {
  Runtime* rt = gshmem::detail::default_runtime();
  if (!rt) {
    throw Error(GSHMEM_ERROR_NOT_INITIALIZED, "gshmem_moe_create", "",
                gshmem::detail::not_running());
  }
  if (rt->gpu()) {
    throw Error(GSHMEM_ERROR_INVALID_ARGUMENT, "gshmem_moe_create", "",
                "the symmetric heap is in GPU memory, and dispatch/combine run on CPU PEs only "
                "so far (their kernels are not written yet): use GSHMEM_HEAP=host");
  }
  const TeamInfo* team = rt->teams().find(cfg.team);
  if (team && coll::call_checks_enabled()) {
    // Every member compares the config before any checks it alone makes can throw, so a member
    // whose config is bad or different stops the others.
    coll::CallDesc d = describe(cfg, coll::CallKind::MoeCreate, 0);
    try {
      check_config(cfg, team);
    } catch (const Error&) {
      d.valid = 0;
      coll::check_call(*rt, cfg.team, d, "gshmem_moe_create");
      throw;
    }
    handle_id_ = coll::check_call(*rt, cfg.team, d, "gshmem_moe_create");
  }
  check_config(cfg, team);
  ctx_ = rt->context();
  ctx_.spins_before_yield = coll::coll_spins_before_yield(ctx_.spins_before_yield);

  // Which members are mapped here. The layout must be the same everywhere, so it depends only on
  // whether the team spans nodes at all, which every member sees alike.
  std::vector<int32_t> nodes(size_t(team->size));
  for (int32_t r = 0; r < team->size; ++r) {
    nodes[size_t(r)] = rt->mesh().node_of(team->world_pe(r));
    const bool same = nodes[size_t(r)] == rt->mesh().node_of(ctx_.my_pe);
    if (detail::mapped(ctx_, team->world_pe(r)) != same) {
      throw Error(GSHMEM_ERROR_INTERNAL, "gshmem_moe_create", "",
                  format("PE %d is %smapped here but on %s node", team->world_pe(r),
                         same ? "not " : "", same ? "the same" : "another"));
    }
  }
  const bool spans_nodes =
      std::any_of(nodes.begin(), nodes.end(), [&](int32_t v) { return v != nodes[0]; });

  set_shape(*team, spans_nodes);
  allocate_symmetric(spans_nodes);
  allocate_tables(nodes);
  // Signals and count slots start at zero ("nothing arrived"); no member may send before every
  // member has cleared its own.
  std::memset(p_.sig, 0, uint64_t(detail::kPhases) * p_.n * sizeof(uint64_t));
  std::memset(p_.counts_in, 0, uint64_t(p_.n) * p_.experts * sizeof(uint64_t));
  gshmem_barrier_all();

  info.num_local_experts = p_.local_experts;
  info.expert_capacity = p_.capacity;
  info.landing_capacity = p_.landing_rows;
  info.private_bytes = tables_.size() * sizeof(int32_t) + acc_.size() * sizeof(float);
  if (p_.me == 0) {
    GSHMEM_INFO(MOE,
                "moe: %d members (dp %d), %d experts (%d each), top-%d, hidden %d, %s dispatch "
                "(%u scales/token), %s combine, max %d tokens: %d rows/expert (%s), %d landing "
                "rows/source; %s symmetric, %s private per PE",
                p_.n, p_.dp, p_.experts, p_.local_experts, p_.topk, p_.hidden,
                dtype_name(cfg.dispatch_type), p_.n_scales, dtype_name(cfg.combine_type),
                p_.max_tokens, p_.capacity, worst_case_ ? "worst case" : "capacity factor",
                p_.landing_rows, format_bytes(info.symmetric_bytes).c_str(),
                format_bytes(info.private_bytes).c_str());
  }
}

void AllToAll::Impl::set_shape(const TeamInfo& team, bool spans_nodes) {
  Plan& p = p_;
  p.n = team.size;
  p.me = team.my_index;
  p.dp = cfg.dp_size;
  p.experts = cfg.num_experts;
  p.local_experts = cfg.num_experts / p.n;
  p.topk = cfg.experts_per_token;
  p.max_tokens = cfg.max_tokens;
  p.send_tokens = (cfg.max_tokens + p.dp - 1) / p.dp;
  p.hidden = cfg.hidden;
  p.x_bytes = uint32_t(uint64_t(cfg.hidden) * dtype_size(cfg.dispatch_type));
  p.n_scales = uint32_t(cfg.scales_per_token());
  p.row_bytes = p.x_bytes + p.n_scales * uint32_t(sizeof(float));
  p.y_bytes = uint32_t(uint64_t(cfg.hidden) * dtype_size(cfg.combine_type));
  p.team = team;

  // The worst case: every token of every group to one expert, and min(topk, local experts)
  // rows of a token to one member (route() rejects repeated experts).
  worst_case_ = cfg.capacity_factor == 0;
  const int64_t worst_expert = int64_t(p.groups()) * p.max_tokens;
  const int64_t worst_pair = int64_t(p.send_tokens) * std::min(p.topk, p.local_experts);
  auto sized = [&](double average, int64_t worst) {
    return worst_case_ ? worst : detail::capacity_rows(cfg.capacity_factor, average, worst);
  };
  p.capacity = int32_t(sized(detail::average_expert_rows(p), worst_expert));
  p.landing_rows = spans_nodes ? int32_t(sized(detail::average_pair_rows(p), worst_pair)) : 0;
}

void AllToAll::Impl::allocate_symmetric(bool spans_nodes) {
  Plan& p = p_;
  const uint64_t n = uint64_t(p.n), E = uint64_t(p.experts), rows = uint64_t(p.capacity);
  const uint64_t L = uint64_t(p.local_experts), pairs = uint64_t(p.max_tokens) * p.topk;
  // What an owner returns is what it received: bounded by its capacity and by what was sent.
  const uint64_t y_stage_rows = std::min(L * rows, n * uint64_t(p.send_tokens) * p.topk);
  Carver c;
  const uint64_t o_sig = c.take(detail::kPhases * n * sizeof(uint64_t));
  const uint64_t o_in = c.take(n * E * sizeof(uint64_t));
  const uint64_t o_out = c.take(E * sizeof(uint64_t));
  const uint64_t o_x = c.take(L * rows * p.x_bytes);
  const uint64_t o_scales = c.take(L * rows * p.n_scales * sizeof(float));
  const uint64_t o_y = c.take(pairs * p.y_bytes);
  const uint64_t o_landing = spans_nodes ? c.take(n * p.landing_rows * p.row_bytes) : 0;
  const uint64_t o_stage = spans_nodes ? c.take(uint64_t(p.send_tokens) * p.topk * p.row_bytes) : 0;
  const uint64_t o_ystage = spans_nodes ? c.take(y_stage_rows * p.y_bytes) : 0;
  sym_ = gshmem_malloc(c.size);
  if (!sym_) {
    throw Error(GSHMEM_ERROR_OUT_OF_MEMORY, "gshmem_moe_create", "",
                format("the buffers need %s of symmetric heap (GSHMEM_SYMMETRIC_SIZE is the "
                       "heap's size; capacity_factor shrinks the buffers)",
                       format_bytes(c.size).c_str()));
  }
  char* base = static_cast<char*>(sym_);
  p.sig = reinterpret_cast<uint64_t*>(base + o_sig);
  p.counts_in = reinterpret_cast<uint64_t*>(base + o_in);
  p.counts_out = reinterpret_cast<uint64_t*>(base + o_out);
  p.x = base + o_x;
  p.scales = reinterpret_cast<float*>(base + o_scales);
  p.y_in = base + o_y;
  p.landing = spans_nodes ? base + o_landing : nullptr;
  p.send_stage = spans_nodes ? base + o_stage : nullptr;
  p.y_stage = spans_nodes ? base + o_ystage : nullptr;
  info.symmetric_bytes = c.size;
}

void AllToAll::Impl::allocate_tables(const std::vector<int32_t>& nodes) {
  Plan& p = p_;
  const int64_t n = p.n, E = p.experts, L = p.local_experts, G = p.groups();
  struct Table {
    int32_t** at;
    int64_t size;
  };
  const Table tables[] = {
      {&p.cnt, n * E},
      {&p.pair_rows, n * n},
      {&p.expert_counts, L},
      {&p.recv_off, L * n},
      {&p.ret_off, L * n},
      {&p.send_off, E},
      {&p.stage_off, n + 1},
      {&p.y_stage_off, G + 1},
      {&p.bucket, E + 1},
      {&p.order, int64_t(p.send_tokens) * p.topk},
      {&p.pos, int64_t(p.max_tokens) * p.topk},
      {&p.own_row, int64_t(p.max_tokens) * p.topk},
      {&p.scratch, p.dp * E},
      {&p.arrived, n},
      {&p.staged, G},
      {&p.result, 1},
  };
  int64_t total = n;  // the node table, last
  for (const Table& t : tables) total += t.size;
  tables_.assign(size_t(total), 0);
  int32_t* next = tables_.data();
  for (const Table& t : tables) {
    *t.at = next;
    next += t.size;
  }
  std::copy(nodes.begin(), nodes.end(), next);
  p.node = next;
  acc_.assign(size_t(p.hidden), 0.0f);
}

AllToAll::Impl::~Impl() {
  // Peers' puts into these buffers have all landed once their signals were seen; this PE's own
  // puts may still be in flight.
  gshmem_quiet();
  gshmem_barrier_all();
  gshmem_free(sym_);
}

void AllToAll::Impl::expect(Stage want, const char* call, void* stream) const {
  if (stream) {
    bad_argument(call, "stream",
                 format("stream=%p: GPU heaps not supported yet (on CPU PEs pass stream=NULL; the "
                        "call then blocks)",
                        stream));
  }
  if (stage_ == want) return;
  static const char* const next[] = {"gshmem_moe_dispatch_send", "gshmem_moe_dispatch_recv",
                                     "gshmem_moe_combine_send", "gshmem_moe_combine_recv"};
  bad_argument(
      call, "",
      format("called out of order: the next call on this handle must be %s", next[int(stage_)]));
}

void AllToAll::Impl::begin(Stage want, coll::CallKind kind, const char* call, void* stream) {
  if (!coll::call_checks_enabled()) return expect(want, call, stream);
  Runtime* rt = gshmem::detail::default_runtime();
  coll::CallDesc d = describe(cfg, kind, handle_id_);
  try {
    expect(want, call, stream);
  } catch (const Error&) {
    d.valid = 0;
    if (rt) coll::check_call(*rt, team_, d, call);
    throw;
  }
  if (rt) coll::check_call(*rt, team_, d, call);
}

// Network peers first, then mapped ones, each starting after this member so that members do not
// all hit the same peer at once.
template <class F>
void AllToAll::Impl::for_each_peer(F&& f) const {
  for (int pass = 0; pass < 2; ++pass) {
    for (int32_t i = 1; i <= p_.n; ++i) {
      int32_t r = (p_.me + i) % p_.n;
      if (detail::mapped(ctx_, p_.pe(r)) == (pass == 1)) f(r);
    }
  }
}

template <class Step>
void AllToAll::Impl::one_group(Step&& step) const {
  if (groups_.threads == 0) {
    step(Thread{});
    return;
  }
  simt::run({1, groups_.threads, groups_.warp}, [&](unsigned) { step(Block{}); });
}

template <class Step>
void AllToAll::Impl::each_peer(Step&& step) const {
  if (groups_.threads == 0) {
    for_each_peer([&](int32_t r) { step(Thread{}, r); });
    return;
  }
  std::vector<int32_t> peers;
  for_each_peer([&](int32_t r) { peers.push_back(r); });
  simt::run({unsigned(peers.size()), groups_.threads, groups_.warp},
            [&](unsigned b) { step(Block{}, peers[b]); });
}

void AllToAll::Impl::abandon() {
  quiet<Thread>(ctx_);
  team_sync<Thread>(ctx_, team_, {"gshmem_moe_dispatch_send"});
}

void AllToAll::Impl::dispatch_send(const void* x, const float* scales, const int32_t* indices,
                                   const int32_t* num_tokens, void* stream) {
  const char* call = "gshmem_moe_dispatch_send";
  begin(Stage::Idle, coll::CallKind::MoeDispatch, call, stream);
  Plan& p = p_;

  // Bad input is not thrown yet: the other members would wait for this one's counts. It travels
  // as an abort signal instead, and every member reports the call.
  const char* bad_arg = nullptr;
  std::string bad;
  const int32_t tokens = num_tokens ? *num_tokens : 0;
  if (!num_tokens) {
    bad_arg = "num_tokens";
    bad = "num_tokens is NULL";
  } else if (tokens < 0 || tokens > p.max_tokens) {
    bad_arg = "num_tokens";
    bad = format("*num_tokens=%d is not in 0..max_tokens (%d)", tokens, p.max_tokens);
  } else if (tokens > 0 && (!x || !indices || (p.n_scales && !scales))) {
    bad_arg = !x ? "x" : !indices ? "indices" : "scales";
    bad = format("%s is NULL with %d tokens%s", bad_arg, tokens,
                 !x || !indices ? "" : " (the config sends scales)");
  }
  const uint64_t epoch = ++epoch_;
  if (!bad_arg) {
    one_group([&](auto g) { detail::route<decltype(g)>(p, indices, tokens, epoch); });
    if (*p.result >= 0) {
      const int32_t i = *p.result, x = indices[i];
      bad_arg = "indices";
      bad = x < -1 || x >= p.experts
                ? format("indices[%d][%d]=%d is not an expert (0..%d) or -1", i / p.topk,
                         i % p.topk, x, p.experts - 1)
                : format(
                      "indices[%d][%d]=%d repeats an expert of the same token (a token's "
                      "experts must be distinct)",
                      i / p.topk, i % p.topk, x);
    }
  }

  Site site{call};
  const uint64_t signal = bad_arg ? epoch | detail::kAbortBit : epoch;
  each_peer([&](auto g, int32_t r) { detail::send_counts<decltype(g)>(ctx_, p, signal, r, site); });

  // Worst-case landing zones cannot overflow (route() saw distinct experts per token): the
  // network batches need not wait for the capacity check, and travel while the counts do.
  const bool early = !bad_arg && worst_case_;
  if (early) {
    each_peer([&](auto g, int32_t r) {
      if (detail::mapped(ctx_, p.pe(r))) return;
      detail::send_tokens<decltype(g)>(ctx_, p, epoch, r, static_cast<const char*>(x), scales,
                                       site);
    });
  }

  int32_t aborted = -1;
  one_group([&](auto g) {
    using G = decltype(g);
    int32_t a = detail::for_each_arrival<G>(ctx_, p, detail::kCounts, epoch, call, [](int32_t) {});
    if (G::rank() == 0) aborted = a;
  });
  if (bad_arg || aborted >= 0) {
    abandon();
    if (bad_arg) bad_argument(call, bad_arg, bad);
    bad_argument(call, "",
                 format("PE %d (team member %d) passed bad input to this dispatch (its message "
                        "says which); no tokens were exchanged",
                        p.pe(aborted), aborted));
  }
  one_group([&](auto g) { detail::load_counts<decltype(g)>(p, epoch); });
  if (*p.result >= 0) {
    throw Error(GSHMEM_ERROR_INTERNAL, call, "",
                format("the counts from PE %d are not this call's (epoch %llu)", p.pe(*p.result),
                       (unsigned long long)epoch));
  }
  one_group([&](auto g) { detail::plan_call<decltype(g)>(p); });
  if (*p.result) {
    const Overflow o = detail::find_overflow(p);
    abandon();
    std::string where = o.kind == GSHMEM_MOE_OVERFLOW_EXPERT
                            ? format("expert %d (local expert %d of PE %d) would receive %d tokens",
                                     o.expert, o.expert % p.local_experts, p.pe(o.dest), o.count)
                            : format("PE %d would send %d rows to the landing zone at PE %d",
                                     p.pe(o.source), o.count, p.pe(o.dest));
    throw CapacityError(
        call,
        format("%s, but there is room for %d (%s; the tokens of PE %d cross it). No tokens were "
               "exchanged; a handle made with capacity_factor >= %.4g fits this call",
               where.c_str(), o.capacity,
               o.kind == GSHMEM_MOE_OVERFLOW_EXPERT ? "expert_capacity" : "landing_capacity",
               p.pe(o.source), o.min_capacity_factor),
        o);
  }
  one_group([&](auto g) { detail::place_pairs<decltype(g)>(p, indices, tokens); });
  each_peer([&](auto g, int32_t r) {
    if (early && !detail::mapped(ctx_, p.pe(r))) return;
    detail::send_tokens<decltype(g)>(ctx_, p, epoch, r, static_cast<const char*>(x), scales, site);
  });
  tokens_ = tokens;
  stage_ = Stage::Sent;
}

ExpertBatch AllToAll::Impl::dispatch_recv(void* stream) {
  const char* call = "gshmem_moe_dispatch_recv";
  expect(Stage::Sent, call, stream);
  Plan& p = p_;
  one_group([&](auto g) {
    using G = decltype(g);
    detail::for_each_arrival<G>(ctx_, p, detail::kTokens, epoch_, call, [&](int32_t s) {
      if (!detail::mapped(ctx_, p.pe(s))) detail::unpack_landing<G>(p, s);
    });
  });
  stage_ = Stage::Received;
  ExpertBatch b{};
  b.num_local_experts = p.local_experts;
  b.expert_capacity = p.capacity;
  b.counts = p.expert_counts;
  b.x = p.x;
  b.scales = p.n_scales ? p.scales : nullptr;
  b.scales_per_token = int(p.n_scales);
  b.token_bytes = p.x_bytes;
  return b;
}

void AllToAll::Impl::send_outputs(const char* y, bool own, const char* call) {
  Site site{call};
  auto send = [&](auto g, int32_t m) {
    detail::send_outputs<decltype(g)>(ctx_, p_, epoch_, m, own && m == p_.me ? nullptr : y, site);
  };
  if (groups_.threads == 0 || p_.dp == 1) {
    each_peer(send);
    return;
  }
  // The members of a DP group share one gathered range of y_stage (send_outputs gathers it for
  // the group's first network member and marks it staged): a block per DP group then, sending to
  // its members in turn, so no two blocks gather into one range.
  simt::run({unsigned(p_.groups()), groups_.threads, groups_.warp}, [&](unsigned b) {
    for_each_peer([&](int32_t m) {
      if (m / p_.dp == int32_t(b)) send(Block{}, m);
    });
  });
}

void AllToAll::Impl::sum_outputs(void* out, const float* weights, const void* own,
                                 const char* call) {
  one_group([&](auto g) {
    using G = decltype(g);
    detail::for_each_arrival<G>(ctx_, p_, detail::kOutputs, epoch_, call, [](int32_t) {});
    switch (cfg.combine_type) {
      case DType::F32:
        detail::weighted_sum<G>(p_, weights, static_cast<float*>(out), tokens_, acc_.data(),
                                static_cast<const float*>(own));
        break;
      case DType::BF16:
        detail::weighted_sum<G>(p_, weights, static_cast<coll::bfloat16_t*>(out), tokens_,
                                acc_.data(), static_cast<const coll::bfloat16_t*>(own));
        break;
      default:
        detail::weighted_sum<G>(p_, weights, static_cast<coll::half_t*>(out), tokens_, acc_.data(),
                                static_cast<const coll::half_t*>(own));
        break;
    }
  });
  stage_ = Stage::Idle;
}

void AllToAll::Impl::combine_send(const void* y, void* stream) {
  const char* call = "gshmem_moe_combine_send";
  begin(Stage::Received, coll::CallKind::MoeCombine, call, stream);
  if (!y) bad_argument(call, "expert_y", "expert_y is NULL");
  send_outputs(static_cast<const char*>(y), false, call);
  stage_ = Stage::Combining;
}

void AllToAll::Impl::combine_recv(void* out, const float* weights, void* stream) {
  const char* call = "gshmem_moe_combine_recv";
  expect(Stage::Combining, call, stream);
  if (tokens_ > 0 && (!out || !weights)) {
    bad_argument(call, !out ? "out" : "weights",
                 format("%s is NULL with %d tokens", !out ? "out" : "weights", tokens_));
  }
  sum_outputs(out, weights, nullptr, call);
}

void AllToAll::Impl::combine(void* out, const void* y, const float* weights, void* stream) {
  // Bad out or weights are reported as the two halves would (after sending, so no member waits
  // on this one); then every output must be in y_in for the combine_recv that may follow.
  if (!y || (tokens_ > 0 && (!out || !weights))) {
    combine_send(y, stream);
    combine_recv(out, weights, stream);
    return;
  }
  begin(Stage::Received, coll::CallKind::MoeCombine, "gshmem_moe_combine_send", stream);
  send_outputs(static_cast<const char*>(y), true, "gshmem_moe_combine_send");
  stage_ = Stage::Combining;
  sum_outputs(out, weights, y, "gshmem_moe_combine_recv");
}

// ---- The public class --------------------------------------------------------------------------

AllToAll::AllToAll(const Config& config) : impl_(std::make_unique<Impl>(config)) {}
AllToAll::~AllToAll() = default;

void AllToAll::dispatch_send(const void* x, const float* scales, const int32_t* indices,
                             const int32_t* num_tokens, void* stream) {
  impl_->dispatch_send(x, scales, indices, num_tokens, stream);
}
ExpertBatch AllToAll::dispatch_recv(void* stream) {
  return impl_->dispatch_recv(stream);
}
ExpertBatch AllToAll::dispatch(const void* x, const float* scales, const int32_t* indices,
                               const int32_t* num_tokens, void* stream) {
  impl_->dispatch_send(x, scales, indices, num_tokens, stream);
  return impl_->dispatch_recv(stream);
}
void AllToAll::combine_send(const void* expert_y, void* stream) {
  impl_->combine_send(expert_y, stream);
}
void AllToAll::combine_recv(void* out, const float* weights, void* stream) {
  impl_->combine_recv(out, weights, stream);
}
void AllToAll::combine(void* out, const void* expert_y, const float* weights, void* stream) {
  impl_->combine(out, expert_y, weights, stream);
}
const Config& AllToAll::config() const {
  return impl_->cfg;
}
Info AllToAll::info() const {
  return impl_->info;
}

}  // namespace gshmem::moe
