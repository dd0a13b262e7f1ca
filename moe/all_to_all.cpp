// gshmem::moe::AllToAll: sizes and allocation, the order of the calls, and how the steps of
// moe/steps.cuh run. On CPU PEs by this thread (G = Thread), one group after another; on a GPU
// heap as one kernel per step on the caller's stream (moe/moe_kernel.cu), a block per group, with
// the routing tables and the call's state (Ctl) in device memory. For the tests,
// set_host_groups (moe/test_hooks.hpp) makes CPU PEs run the steps as kernels would: by host
// thread groups (G = Block), a group per peer at once where the steps are per peer.
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
#include "collectives/coll_launch.hpp"
#include "collectives/wait_policy.hpp"
#include "gshmem/device.cuh"
#include "gshmem/moe.hpp"
#include "host/base/log.hpp"
#include "host/runtime/process.hpp"
#include "host/runtime/runtime.hpp"
#include "gshmem/simt.hpp"
#include "host/cuda/gpu.hpp"
#include "moe/moe_launch.hpp"
#include "moe/steps.cuh"
#include "moe/test_hooks.hpp"

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
  void sync(void* stream);

  Config cfg;
  Info info{};

 private:
  enum class Stage { Idle, Sent, Received, Combining };

  void set_shape(const TeamInfo& team, bool spans_nodes);
  void allocate_symmetric(bool spans_nodes);
  void allocate_private(const std::vector<int32_t>& nodes);
  void expect(Stage want, const char* call, void* stream) const;
  // expect(), then, with GSHMEM_CHECK_CALLS (CPU PEs), the members compare the call (kind,
  // handle, config): a member out of order stops the others too.
  void begin(Stage want, coll::CallKind kind, const char* call, void* stream);
  template <class F>
  void for_each_peer(F&& f) const;
  // What every step of a call reads; the context is the current one.
  detail::StepArgs args() const;
  // Runs step S as `blocks` groups: on a GPU heap a kernel on `stream`; on CPU PEs this thread,
  // one group after another, or host thread groups, all at once (set_host_groups).
  template <detail::Step S>
  void run(const detail::StepArgs& a, int32_t blocks, void* stream, const char* call);
  // Blocking calls on a GPU heap (stream NULL) return once their kernels are done.
  void finish(void* stream, const char* call);
  // Throws the failure the steps recorded that has not been reported yet, if any. `late`: it is
  // reported by gshmem_moe_sync, after the dispatch ran on the GPU.
  void raise_failure(bool late);
  // The two halves of combine. `own`: y stays valid until the sums are done, so this member's
  // own outputs are read there instead of being copied into its y_in.
  void send_outputs(const char* y, bool own, void* stream, const char* call);
  void sum_outputs(void* out, const float* weights, const void* own, void* stream,
                   const char* call);
  // Throws (naming combine_recv) when out or weights cannot take the sums: NULL with tokens to
  // sum (on a GPU heap, where the count is on the device: NULL at all), or out of the GPU's reach.
  void check_sum_args(void* out, const float* weights) const;

  Plan p_{};
  DeviceContext ctx_{};        // this PE's host context (the steps' on CPU PEs)
  gpu::Queue* gpu_ = nullptr;  // the GPU heap's queue, or null (CPU PEs)
  gshmem_team_t team_;
  void* sym_ = nullptr;
  // The private tables, the send orders, the Ctl and the sums' accumulators: host memory on CPU
  // PEs, device memory on a GPU heap (dev_private_).
  std::vector<uint64_t> host_private_;
  void* dev_private_ = nullptr;
  detail::Ctl* ctl_ = nullptr;
  const int32_t* peers_ = nullptr;
  const int32_t* group_order_ = nullptr;
  float* acc_ = nullptr;
  int32_t sum_blocks_ = 1;
  // Where the steps record a failure: a member here, pinned host memory on a GPU heap.
  detail::Failure host_report_{};
  detail::Failure* report_ = &host_report_;
  std::string host_why_;  // a GPU heap's input the host found unreachable (Fail::HostCheck)
  bool worst_case_;
  uint64_t handle_id_ = 0;  // GSHMEM_CHECK_CALLS: the checked call on the team that created it
  Stage stage_ = Stage::Idle;
  simt::Grid groups_ = g_host_groups;  // threads == 0: G = Thread
};

// Sum blocks of a GPU heap's combine: tokens block, block + kSumBlocks, ...
constexpr int32_t kSumBlocks = 128;

AllToAll::Impl::Impl(const Config& config) : cfg(config), team_(config.team) {
  Runtime* rt = gshmem::detail::default_runtime();
  if (!rt) {
    throw Error(GSHMEM_ERROR_NOT_INITIALIZED, "gshmem_moe_create", "",
                gshmem::detail::not_running());
  }
  gpu_ = rt->gpu();
  const TeamInfo* team = rt->teams().find(cfg.team);
  if (team && !gpu_ && coll::call_checks_enabled()) {
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
  // The host's context: on a GPU heap its tables (peer bases, teams) are host memory, while the
  // kernel-usable context's peer base table is device memory (args() hands that one to kernels).
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

  // Kernels read the team's member list from the table the GPU reaches.
  set_shape(gpu_ ? gpu_->context().teams[size_t(cfg.team)] : *team, spans_nodes);
  allocate_symmetric(spans_nodes);
  allocate_private(nodes);
  // Signals and count slots start at zero ("nothing arrived"); no member may send before every
  // member has cleared its own.
  const uint64_t sig_bytes = uint64_t(detail::kPhases) * p_.n * sizeof(uint64_t);
  const uint64_t count_bytes = uint64_t(p_.n) * p_.experts * sizeof(uint64_t);
  if (gpu_) {
    gpu::private_copy(p_.sig, nullptr, sig_bytes, "gshmem_moe_create", "MoE signals");
    gpu::private_copy(p_.counts_in, nullptr, count_bytes, "gshmem_moe_create", "MoE counts");
  } else {
    std::memset(p_.sig, 0, sig_bytes);
    std::memset(p_.counts_in, 0, count_bytes);
  }
  gshmem_barrier_all();

  info.num_local_experts = p_.local_experts;
  info.expert_capacity = p_.capacity;
  info.landing_capacity = p_.landing_rows;
  if (p_.me == 0) {
    GSHMEM_INFO(MOE,
                "moe: %d members (dp %d), %d experts (%d each), top-%d, hidden %d, %s dispatch "
                "(%u scales/token), %s combine, max %d tokens: %d rows/expert (%s), %d landing "
                "rows/source; %s symmetric, %s private per PE%s",
                p_.n, p_.dp, p_.experts, p_.local_experts, p_.topk, p_.hidden,
                dtype_name(cfg.dispatch_type), p_.n_scales, dtype_name(cfg.combine_type),
                p_.max_tokens, p_.capacity, worst_case_ ? "worst case" : "capacity factor",
                p_.landing_rows, format_bytes(info.symmetric_bytes).c_str(),
                format_bytes(info.private_bytes).c_str(), gpu_ ? " (GPU heap: kernels)" : "");
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

void AllToAll::Impl::allocate_private(const std::vector<int32_t>& nodes) {
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
  Carver c;
  std::vector<uint64_t> at;
  for (const Table& t : tables) at.push_back(c.take(uint64_t(t.size) * sizeof(int32_t)));
  const uint64_t o_node = c.take(uint64_t(n) * sizeof(int32_t));
  const uint64_t o_peers = c.take(uint64_t(n) * sizeof(int32_t));
  const uint64_t o_groups = c.take(uint64_t(G) * sizeof(int32_t));
  const uint64_t o_ctl = c.take(sizeof(detail::Ctl));
  sum_blocks_ = gpu_ ? std::min(p.max_tokens, kSumBlocks) : 1;
  const uint64_t o_acc = c.take(uint64_t(sum_blocks_) * p.hidden * sizeof(float));

  // The first contents, built here: zeros but for the node table, the send orders and the Ctl.
  std::vector<uint64_t> image((c.size + 7) / 8, 0);
  char* img = reinterpret_cast<char*>(image.data());
  std::copy(nodes.begin(), nodes.end(), reinterpret_cast<int32_t*>(img + o_node));
  int32_t* peers = reinterpret_cast<int32_t*>(img + o_peers);
  int32_t* groups = reinterpret_cast<int32_t*>(img + o_groups);
  int32_t next = 0, next_group = 0;
  std::vector<bool> listed(size_t(G), false);
  for_each_peer([&](int32_t r) {
    peers[next++] = r;
    if (!listed[size_t(r / p.dp)]) {
      listed[size_t(r / p.dp)] = true;
      groups[next_group++] = r / p.dp;
    }
  });
  if (gpu_) {
    report_ = static_cast<detail::Failure*>(
        gpu::pinned_alloc(sizeof(detail::Failure), "MoE failure report"));
  }
  detail::Ctl ctl{};
  ctl.report = report_;
  std::memcpy(img + o_ctl, &ctl, sizeof ctl);

  char* base;
  if (gpu_) {
    dev_private_ = gpu::device_alloc(c.size, "MoE routing tables");
    gpu::private_copy(dev_private_, img, c.size, "gshmem_moe_create", "MoE routing tables");
    base = static_cast<char*>(dev_private_);
  } else {
    host_private_ = std::move(image);
    base = reinterpret_cast<char*>(host_private_.data());
  }
  for (size_t i = 0; i < at.size(); ++i) {
    *tables[i].at = reinterpret_cast<int32_t*>(base + at[i]);
  }
  p.node = reinterpret_cast<const int32_t*>(base + o_node);
  peers_ = reinterpret_cast<const int32_t*>(base + o_peers);
  group_order_ = reinterpret_cast<const int32_t*>(base + o_groups);
  ctl_ = reinterpret_cast<detail::Ctl*>(base + o_ctl);
  acc_ = reinterpret_cast<float*>(base + o_acc);
  info.private_bytes = c.size;
}

AllToAll::Impl::~Impl() {
  // Peers' puts into these buffers have all landed once their signals were seen; this PE's own
  // puts may still be in flight. On a GPU heap the barrier also waits for this PE's kernels.
  gshmem_quiet();
  gshmem_barrier_all();
  gshmem_free(sym_);
  if (gpu_) {
    gpu::device_free(dev_private_);
    gpu::pinned_free(report_);
  }
}

void AllToAll::Impl::expect(Stage want, const char* call, void* stream) const {
  if (stream && !gpu_) {
    bad_argument(call, "stream",
                 format("stream=%p: the symmetric heap is host memory, so the call runs on this "
                        "CPU PE (pass stream=NULL; the call then blocks)",
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
  if (gpu_ || !coll::call_checks_enabled()) return expect(want, call, stream);
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

detail::StepArgs AllToAll::Impl::args() const {
  detail::StepArgs a{};
  a.c = gpu_ ? gpu_->context() : ctx_;
  a.p = p_;
  a.ctl = ctl_;
  a.peers = peers_;
  a.group_order = group_order_;
  a.team = team_;
  a.early = worst_case_;
  a.combine_type = gshmem_moe_dtype_t(cfg.combine_type);
  a.acc = acc_;
  return a;
}

template <detail::Step S>
void AllToAll::Impl::run(const detail::StepArgs& a, int32_t blocks, void* stream,
                         const char* call) {
  if (gpu_) return detail::launch_step(*gpu_, S, a, blocks, stream, call);
  if (groups_.threads == 0) {
    for (int32_t b = 0; b < blocks; ++b) detail::run_step<S, Thread>(a, b, blocks);
    return;
  }
  simt::run({unsigned(blocks), groups_.threads, groups_.warp},
            [&](unsigned b) { detail::run_step<S, Block>(a, int32_t(b), blocks); });
}

void AllToAll::Impl::finish(void* stream, const char* call) {
  if (gpu_ && !stream) detail::sync_stream(*gpu_, nullptr, call);
}

void AllToAll::Impl::raise_failure(bool late) {
  using detail::Fail;
  const char* call = "gshmem_moe_dispatch_send";
  // On a GPU heap the kernels wrote it into pinned memory, and their stream has been synchronised.
  detail::Failure f;
  std::memcpy(&f, report_, sizeof f);
  if (f.kind == Fail::None) return;
  report_->kind = Fail::None;
  const Plan& p = p_;
  const std::string when =
      late ? format(" [reported by gshmem_moe_sync: dispatch %llu of this handle, run on the GPU]",
                    (unsigned long long)f.epoch)
           : "";
  const char* what = "";
  std::string why;
  switch (f.kind) {
    case Fail::None:
      return;
    case Fail::HostCheck:
      throw Error(GSHMEM_ERROR_INVALID_ARGUMENT, call, "", host_why_ + when);
    case Fail::NullNumTokens:
      what = "num_tokens";
      why = "num_tokens is NULL";
      break;
    case Fail::NumTokens:
      what = "num_tokens";
      why = format("*num_tokens=%d is not in 0..max_tokens (%d)", f.a, p.max_tokens);
      break;
    case Fail::NullX:
    case Fail::NullIndices:
    case Fail::NullScales:
      what = f.kind == Fail::NullX ? "x" : f.kind == Fail::NullIndices ? "indices" : "scales";
      why = format("%s is NULL with %d tokens%s", what, f.a,
                   f.kind == Fail::NullScales ? " (the config sends scales)" : "");
      break;
    case Fail::BadIndex:
      what = "indices";
      why = format("indices[%d][%d]=%d is not an expert (0..%d) or -1", f.a / p.topk, f.a % p.topk,
                   f.b, p.experts - 1);
      break;
    case Fail::RepeatedIndex:
      what = "indices";
      why = format(
          "indices[%d][%d]=%d repeats an expert of the same token (a token's experts must be "
          "distinct)",
          f.a / p.topk, f.a % p.topk, f.b);
      break;
    case Fail::PeerInput:
      why = format(
          "PE %d (team member %d) passed bad input to this dispatch (its message says which); no "
          "tokens were exchanged",
          p.pe(f.a), f.a);
      break;
    case Fail::StaleCounts:
      throw Error(GSHMEM_ERROR_INTERNAL, call, "",
                  format("the counts from PE %d are not this call's (epoch %llu)", p.pe(f.a),
                         (unsigned long long)f.epoch) +
                      when);
    case Fail::Overflow: {
      const Overflow& o = f.overflow;
      std::string where =
          o.kind == GSHMEM_MOE_OVERFLOW_EXPERT
              ? format("expert %d (local expert %d of PE %d) would receive %d tokens", o.expert,
                       o.expert % p.local_experts, p.pe(o.dest), o.count)
              : format("PE %d would send %d rows to the landing zone at PE %d", p.pe(o.source),
                       o.count, p.pe(o.dest));
      throw CapacityError(
          call,
          format("%s, but there is room for %d (%s; the tokens of PE %d cross it). No tokens "
                 "were exchanged; a handle made with capacity_factor >= %.4g fits this call",
                 where.c_str(), o.capacity,
                 o.kind == GSHMEM_MOE_OVERFLOW_EXPERT ? "expert_capacity" : "landing_capacity",
                 p.pe(o.source), o.min_capacity_factor) +
              when,
          o);
    }
  }
  bad_argument(call, what, why + when);
}

void AllToAll::Impl::dispatch_send(const void* x, const float* scales, const int32_t* indices,
                                   const int32_t* num_tokens, void* stream) {
  const char* call = "gshmem_moe_dispatch_send";
  begin(Stage::Idle, coll::CallKind::MoeDispatch, call, stream);
  detail::StepArgs a = args();
  a.x = static_cast<const char*>(x);
  a.scales = scales;
  a.indices = indices;
  a.num_tokens = num_tokens;
  if (gpu_) {
    // An input the GPU cannot reach fails the call on every member, as bad input does: it
    // travels as this member's abort signal, so no member waits for its counts.
    try {
      coll::check_reachable(*gpu_, call, "num_tokens", num_tokens, sizeof(int32_t));
      coll::check_reachable(*gpu_, call, "x", x, 1);
      coll::check_reachable(*gpu_, call, "scales", scales, 1);
      coll::check_reachable(*gpu_, call, "indices", indices, 1);
    } catch (const Error& e) {
      host_why_ = e.what();
      a.host_bad = 1;
    }
  }
  // Bad input is not thrown at once: the other members would wait for this one's counts. It
  // travels as an abort signal instead (Counts), and every member reports the call after Plan.
  run<detail::Step::Begin>(a, 1, stream, call);
  run<detail::Step::Counts>(a, p_.n, stream, call);
  run<detail::Step::Plan>(a, 1, stream, call);
  if (!gpu_ || !stream) {
    finish(stream, call);
    raise_failure(false);
  }
  run<detail::Step::Tokens>(a, p_.n, stream, call);
  finish(stream, call);
  stage_ = Stage::Sent;
}

ExpertBatch AllToAll::Impl::dispatch_recv(void* stream) {
  const char* call = "gshmem_moe_dispatch_recv";
  expect(Stage::Sent, call, stream);
  run<detail::Step::Recv>(args(), 1, stream, call);
  finish(stream, call);
  stage_ = Stage::Received;
  const Plan& p = p_;
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

void AllToAll::Impl::send_outputs(const char* y, bool own, void* stream, const char* call) {
  detail::StepArgs a = args();
  a.y = y;
  a.own = own ? y : nullptr;
  run<detail::Step::Outputs>(a, p_.groups(), stream, call);
  finish(stream, call);
}

void AllToAll::Impl::sum_outputs(void* out, const float* weights, const void* own, void* stream,
                                 const char* call) {
  detail::StepArgs a = args();
  a.out = out;
  a.weights = weights;
  a.own = own;
  run<detail::Step::WaitOutputs>(a, 1, stream, call);
  run<detail::Step::Sum>(a, sum_blocks_, stream, call);
  finish(stream, call);
  stage_ = Stage::Idle;
}

void AllToAll::Impl::combine_send(const void* y, void* stream) {
  const char* call = "gshmem_moe_combine_send";
  begin(Stage::Received, coll::CallKind::MoeCombine, call, stream);
  if (!y) bad_argument(call, "expert_y", "expert_y is NULL");
  if (gpu_) coll::check_reachable(*gpu_, call, "expert_y", y, 1);
  send_outputs(static_cast<const char*>(y), false, stream, call);
  stage_ = Stage::Combining;
}

void AllToAll::Impl::check_sum_args(void* out, const float* weights) const {
  const char* call = "gshmem_moe_combine_recv";
  const int32_t tokens = gpu_ ? 0 : ctl_->tokens;
  if (gpu_ || tokens > 0) {
    const char* arg = !out ? "out" : !weights ? "weights" : nullptr;
    if (arg && gpu_) {
      bad_argument(call, arg,
                   format("%s is NULL (on a GPU heap the token count is read on the device, so "
                          "out and weights must always be given)",
                          arg));
    }
    if (arg) bad_argument(call, arg, format("%s is NULL with %d tokens", arg, tokens));
  }
  if (gpu_) {
    coll::check_reachable(*gpu_, call, "out", out, 1);
    coll::check_reachable(*gpu_, call, "weights", weights, 1);
  }
}

void AllToAll::Impl::combine_recv(void* out, const float* weights, void* stream) {
  expect(Stage::Combining, "gshmem_moe_combine_recv", stream);
  check_sum_args(out, weights);
  sum_outputs(out, weights, nullptr, stream, "gshmem_moe_combine_recv");
}

void AllToAll::Impl::combine(void* out, const void* y, const float* weights, void* stream) {
  // Bad out or weights are reported as the two halves would (after sending, so no member waits
  // on this one); then every output must be in y_in for the combine_recv that may follow.
  bool sums_ok = true;
  try {
    check_sum_args(out, weights);
  } catch (const Error&) {
    sums_ok = false;
  }
  if (!y || !sums_ok) {
    combine_send(y, stream);
    combine_recv(out, weights, stream);
    return;
  }
  const char* call = "gshmem_moe_combine_send";
  begin(Stage::Received, coll::CallKind::MoeCombine, call, stream);
  if (gpu_) coll::check_reachable(*gpu_, call, "expert_y", y, 1);
  send_outputs(static_cast<const char*>(y), true, stream, call);
  stage_ = Stage::Combining;
  sum_outputs(out, weights, y, stream, "gshmem_moe_combine_recv");
}

void AllToAll::Impl::sync(void* stream) {
  if (!gpu_) return;
  detail::sync_stream(*gpu_, stream, "gshmem_moe_sync");
  raise_failure(true);
}

#if !GSHMEM_HAVE_CUDA
// Built without CUDA the runtime never has a GPU heap, so no step is ever launched.
void detail::launch_step(gpu::Queue&, detail::Step, const detail::StepArgs&, int32_t, void*,
                         const char* call) {
  throw Error(GSHMEM_ERROR_INTERNAL, call, "", "gshmem was built without CUDA");
}
void detail::sync_stream(gpu::Queue&, void*, const char* call) {
  throw Error(GSHMEM_ERROR_INTERNAL, call, "", "gshmem was built without CUDA");
}
#endif

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
void AllToAll::sync(void* stream) {
  impl_->sync(stream);
}
const Config& AllToAll::config() const {
  return impl_->cfg;
}
Info AllToAll::info() const {
  return impl_->info;
}

}  // namespace gshmem::moe
