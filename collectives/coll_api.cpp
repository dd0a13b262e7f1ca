// The NCCL-style host API (gshmem/collectives.h): argument checks, the plan, and then either the
// algorithm run on this CPU PE (host heap) or one kernel enqueued on the caller's stream with a
// block per channel running run_channel<Block> (GPU heap; collectives/coll_kernel.cu). The plan
// and the Workspace are the same on both paths.
#include <algorithm>
#include <atomic>
#include <cinttypes>
#include <cstdarg>
#include <cstring>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "collectives/adapt.hpp"
#include "collectives/calibration.hpp"
#include "collectives/call_check.hpp"
#include "collectives/coll_host.hpp"
#include "collectives/coll_launch.hpp"
#include "collectives/host_reducer.hpp"
#include "collectives/wait_policy.hpp"
#include "gshmem/coll/algorithms.cuh"
#include "gshmem/device/platform.cuh"
#include "gshmem/collectives.h"
#include "host/base/env.hpp"
#include "host/base/log.hpp"
#include "host/runtime/process.hpp"
#include "host/runtime/runtime.hpp"

namespace gshmem::coll {

namespace {

struct Settings {
  Overrides env;
  Overrides test;
  bool use_test = false;
  std::atomic<uint64_t> gen{1};  // bumped by set_overrides (cached plans become stale)
  std::mutex mu;
  std::set<std::tuple<int, int, uint64_t, int, int, int>> shown;  // plans logged at INFO
};

Settings& settings() {
  static Settings* s = [] {
    auto* st = new Settings;
    const Env& env = Env::get();
    std::string why;
    if (!parse_algo_setting(env.str("GSHMEM_ALGO"), &st->env, &why)) {
      log::error(
          "GSHMEM_ALGO=%s: %s (expected auto, an algorithm name, or coll:algo pairs such "
          "as allreduce:ring,broadcast:tree; algorithms: direct direct2 ring tree rd hier "
          "pairwise)",
          env.str("GSHMEM_ALGO").c_str(), why.c_str());
    }
    if (!parse_proto(env.str("GSHMEM_PROTO"), &st->env.proto)) {
      log::error("GSHMEM_PROTO=%s: unknown protocol (expected auto, simple or ll)",
                 env.str("GSHMEM_PROTO").c_str());
    }
    int64_t nch = env.integer("GSHMEM_NCHANNELS");
    st->env.nch = nch > 0 ? int(nch) : 0;
    st->env.chunk = env.size("GSHMEM_CHUNK_SIZE");
    st->env.adapt = adapt_setting(env.str("GSHMEM_ADAPT"));
    st->env.probe = env.flag("GSHMEM_ADAPT_PROBE");
    return st;
  }();
  return *s;
}

// Reported as the C API reports bad input: a message naming the call and argument, a status.
int fail(const char* call, int status, const char* fmt, ...) __attribute__((format(printf, 3, 4)));
int fail(const char* call, int status, const char* fmt, ...) {
  char why[512];
  va_list ap;
  va_start(ap, fmt);
  std::vsnprintf(why, sizeof why, fmt, ap);
  va_end(ap);
  log::error("%s: %s", call, why);
  return status;
}

bool overlap(const void* a, uint64_t an, const void* b, uint64_t bn) {
  auto x = reinterpret_cast<uintptr_t>(a), y = reinterpret_cast<uintptr_t>(b);
  return an && bn && x < y + bn && y < x + an;
}

bool in_heap(const DeviceContext& c, const void* p, uint64_t bytes) {
  auto a = reinterpret_cast<uintptr_t>(p), b = reinterpret_cast<uintptr_t>(c.heap.base);
  return a >= b && a - b <= c.heap.size && bytes <= c.heap.size - (a - b);
}

// The planner's cost class of a libfabric provider ("efa", "tcp;ofi_rxm", "sockets", ...).
LinkClass provider_class(const std::string& provider) {
  return provider.find("efa") != std::string::npos ? LinkClass::Efa : LinkClass::Tcp;
}

// The network's class: the provider the fabric resolved, which GSHMEM_FABRIC_PROVIDER=auto does
// not say. A job without a network has no inter-node links to cost (any class will do).
LinkClass network_class(Runtime& rt) {
  const Network* net = rt.network();
  return net ? provider_class(net->fabric().description().provider) : LinkClass::Tcp;
}

TeamShape shape_of(Runtime& rt, const TeamInfo& t) {
  TeamShape s;
  s.n = t.size;
  // A GPU heap: a channel is a thread block, and same-node peers are GPUs that map each other's
  // memory (the planner's NVLink row; PEs sharing one GPU are faster still).
  s.gpu = rt.gpu() != nullptr;
  s.intra = s.gpu ? LinkClass::NvLink : LinkClass::HostMemory;
  s.inter = network_class(rt);
  s.oversubscribed = !s.gpu && (rt.context().flags & kCtxOversubscribed) != 0;
  const NodeMesh& mesh = rt.mesh();
  // A node, for the planner, is a group of PEs that map each other's heap. Host memory is always
  // mapped within a node; GPUs without peer access are not, and then each PE counts as its own
  // node (the direct algorithms need every member mapped).
  const char* const* peers = rt.context().heap.peer_base;
  bool all_mapped = true;
  for (int i = 0; s.gpu && i < t.size && all_mapped; ++i) {
    int pe = t.world_pe(i);
    all_mapped = mesh.node_of(pe) != mesh.node_of(rt.my_pe()) || peers[pe] != nullptr;
  }
  auto node_of = [&](int i) { return all_mapped ? mesh.node_of(t.world_pe(i)) : t.world_pe(i); };
  std::vector<int> seen;
  for (int i = 0; i < t.size; ++i) {
    int node = node_of(i);
    if (std::find(seen.begin(), seen.end(), node) == seen.end()) seen.push_back(node);
  }
  s.nodes = int(seen.size());
  // Regular: node g holds team indices g*L .. g*L + L-1.
  int L = t.size / s.nodes;
  bool regular = L * s.nodes == t.size;
  for (int i = 0; regular && i < t.size; ++i) {
    regular = node_of(i) == node_of(i - i % L) && (i % L || i == 0 || node_of(i) != node_of(i - 1));
  }
  s.ppn = regular ? L : 0;
  return s;
}

// Per thread (no locks on the call path): each team slot's shape, recomputed when the slot holds
// a different team, and the last plans, so a call of a known shape skips the planner.
struct ShapeCache {
  const Runtime* rt[GSHMEM_MAX_TEAMS] = {};
  TeamInfo info[GSHMEM_MAX_TEAMS] = {};
  TeamShape shape[GSHMEM_MAX_TEAMS];
  uint64_t gen[GSHMEM_MAX_TEAMS] = {};  // bumped whenever a slot's shape is recomputed
};

struct Request {
  const char* call;
  Coll coll;
  gshmem_team_t team;
  void* dst;
  const void* src;
  size_t count;
  // As the caller passed them (c_value): not yet known to be enumerators until check() passes.
  int dtype_value;
  int op_value;  // GSHMEM_SUM for collectives that do not reduce
  int root;      // team index; -1 when the collective has none
  void* stream;
  bool reduces;
  bool internal = false;  // gshmem's own call (a live choice's exchange): runs its plan as it is
  gshmem_datatype_t dtype() const { return gshmem_datatype_t(dtype_value); }
  gshmem_redop_t op() const { return gshmem_redop_t(op_value); }
};

// Whether two requests are the same call with the same arguments.
bool same_request(const Request& x, const Request& y) {
  return x.call == y.call && x.coll == y.coll && x.team == y.team && x.dst == y.dst &&
         x.src == y.src && x.count == y.count && x.dtype_value == y.dtype_value &&
         x.op_value == y.op_value && x.root == y.root && x.stream == y.stream &&
         x.reduces == y.reduces && x.internal == y.internal;
}

// The last call this thread ran on a CPU PE, as run() set it up. A program repeats its calls (a
// training step's AllReduce, a benchmark's loop), and the checks, the plan lookup and the
// Workspace gave the same answer last time: they were a third of a 2-PE Broadcast of 8 bytes
// (about 35 of 100 ns). So a call with the same arguments, on the same runtime (its context equal
// bit for bit), team (its TeamInfo equal: a team made again in the slot has another generation),
// settings and calibration runs from here. Kept only for calls whose plan stays as it was made:
// not staged (a private copy of src per call), not live (adapt.hpp), call checks off (every call
// is compared across the team), not gshmem's own.
struct LastCall {
  bool valid = false;
  Request q{};
  DeviceContext ctx{};
  uint64_t settings_gen = 0;
  const Calibration* calibration = nullptr;
  HostReducer r;
  Workspace ws;  // seq set per call
  CallArgs a{};
};

struct PlanEntry {
  int team = -1, coll = -1;
  uint64_t bytes = 0, shape_gen = 0, settings_gen = 0;
  const Calibration* calibration = nullptr;  // the one installed when the plan was made
  Plan plan;
  std::string note;
};

struct CallCache {
  ShapeCache shapes;
  PlanEntry plans[16];
  LastCall last;
};

// This thread's CallCache. A thread_local of a shared library costs a __tls_get_addr call per
// access (5% of a 2-PE broadcast's cycles when the shapes and the plans were two of them), so a
// call takes it once. (The initial-exec model would make it a load, but it puts all of the
// library's thread_locals in static TLS, and a dlopen'ed libgshmem then fails to load after
// torch: "cannot allocate memory in static TLS block".)
CallCache& call_cache() {
  static thread_local CallCache* cache = nullptr;
  static thread_local bool ended = false;  // this thread's thread_locals were destroyed
  if (__builtin_expect(cache == nullptr, 0)) {
    // Owns this thread's cache and frees it when the thread ends.
    struct Owner {
      std::unique_ptr<CallCache> c = std::make_unique<CallCache>();
      ~Owner() {
        cache = nullptr;
        ended = true;
      }
    };
    if (ended) {
      // A call after that: the main thread's atexit handlers and static destructors run after
      // its thread_locals are gone. A cache that is never freed (the process is ending).
      cache = new CallCache;
    } else {
      static thread_local Owner owner;
      cache = owner.c.get();
    }
  }
  return *cache;
}

const TeamShape& cached_shape(ShapeCache& c, Runtime& rt, gshmem_team_t team, const TeamInfo& t,
                              uint64_t* gen = nullptr) {
  size_t i = size_t(team);
  if (c.rt[i] != &rt || std::memcmp(&c.info[i], &t, sizeof t) != 0) {
    c.shape[i] = shape_of(rt, t);
    c.info[i] = t;
    c.rt[i] = &rt;
    ++c.gen[i];
  }
  if (gen) *gen = c.gen[i];
  return c.shape[i];
}

enum Buffers : unsigned { kSrc = 1, kDst = 2 };

// The value of an enum argument a C caller passed. C lets any int through an enum parameter, but in
// C++ loading an enum object whose value is no enumerator's is undefined (UBSan's enum check fires
// on it), so the bytes are read as the int they are and checked before anything uses them as the
// enum.
template <class E>
int c_value(const E& e) {
  static_assert(sizeof(E) == sizeof(int), "a C enum is int-sized");
  int v;
  std::memcpy(&v, &e, sizeof v);
  return v;
}

// Checks the arguments every PE can check alone. Returns GSHMEM_SUCCESS with *t and *r set, or
// the status to return (after printing which argument was wrong).
int check(const Request& q, Runtime* rt, const TeamInfo** t, HostReducer* r) {
  const char* call = q.call;
  if (!rt) {
    return fail(call, GSHMEM_ERROR_NOT_INITIALIZED, "%s", gshmem::detail::not_running().c_str());
  }
  if (q.stream && !rt->gpu()) {
    return fail(call, GSHMEM_ERROR_INVALID_ARGUMENT,
                "stream=%p: the symmetric heap is in host memory (GSHMEM_HEAP=%s), so this PE "
                "runs the collective on the CPU and it cannot be ordered on a stream; pass "
                "stream=NULL (the call then blocks until dst holds the result), or use a GPU heap",
                q.stream, Env::get().str("GSHMEM_HEAP").c_str());
  }
  *t = rt->teams().find(q.team);
  if (!*t) {
    return fail(call, GSHMEM_ERROR_INVALID_ARGUMENT, "team=%d is not a team this PE belongs to",
                int(q.team));
  }
  if (q.dtype_value < 0 || q.dtype_value >= GSHMEM_DATATYPE_COUNT) {
    return fail(call, GSHMEM_ERROR_INVALID_ARGUMENT, "dtype=%d is not a gshmem_datatype_t",
                q.dtype_value);
  }
  if (q.op_value < 0 || q.op_value >= GSHMEM_REDOP_COUNT) {
    return fail(call, GSHMEM_ERROR_INVALID_ARGUMENT, "op=%d is not a gshmem_redop_t", q.op_value);
  }
  if (rt->gpu() && q.dtype() == GSHMEM_LONGDOUBLE) {
    return fail(call, GSHMEM_ERROR_INVALID_ARGUMENT,
                "dtype=GSHMEM_LONGDOUBLE is for CPU PEs only: with a GPU heap the collective "
                "runs in a kernel, and kernels have no long double");
  }
  *r = host_reducer(q.dtype(), q.reduces ? q.op() : GSHMEM_SUM);
  if (!r->reduce_fn) {
    const char* why = q.op() == GSHMEM_AVG    ? "AVG is for floating types"
                      : q.op() >= GSHMEM_BAND ? "bitwise operations are for integer types"
                                              : "complex types take SUM and PROD only";
    return fail(call, GSHMEM_ERROR_INVALID_ARGUMENT, "op=%s does not apply to dtype=%s (%s)",
                op_name(q.op()), dtype_name(q.dtype()), why);
  }
  const int n = (*t)->size;
  if (q.root >= n || (q.root < 0 && (q.coll == Coll::Reduce || q.coll == Coll::Broadcast))) {
    return fail(call, GSHMEM_ERROR_INVALID_ARGUMENT,
                "root=%d is not a PE index of the team (it has %d PEs)", q.root, n);
  }
  uint64_t total;  // no division on the call path: each costs tens of cycles
  if (__builtin_mul_overflow(uint64_t(q.count), uint64_t(r->es), &total) ||
      __builtin_mul_overflow(total, uint64_t(n), &total)) {
    return fail(call, GSHMEM_ERROR_INVALID_ARGUMENT, "count=%zu overflows", q.count);
  }
  return GSHMEM_SUCCESS;
}

// What a plan was made from, for LastCall: the settings' generation and the calibration as read
// before planning (a change after that makes the next call plan again), and whether calls of its
// shape may go live (adapt.hpp).
struct PlanBasis {
  uint64_t settings_gen = 0;
  const Calibration* calibration = nullptr;
  bool may_go_live = true;
};

// The plan for a call of `size` bytes (the larger buffer), from `cache` (this thread's
// call_cache()) when the call's shape was seen before; logged once per call shape at
// GSHMEM_DEBUG=INFO. `live` (CPU PEs only): set to the call's live choice (adapt.hpp), or nullptr
// when the plan runs as it is. `basis`: set to what the plan was made from.
Plan plan_call(CallCache& cache, const Request& q, Runtime& rt, const TeamInfo& t, uint64_t size,
               LiveChoice** live = nullptr, PlanBasis* basis = nullptr) {
  uint64_t shape_gen = 0;
  const TeamShape& shape = cached_shape(cache.shapes, rt, q.team, t, &shape_gen);
  Settings& st = settings();
  const uint64_t settings_gen = st.gen.load(std::memory_order_relaxed);
  // The size hashed (size / 64 put every power of two from 1 KiB on in one entry, so a program
  // alternating 1 MiB and 8-byte calls planned every call).
  const size_t h = size_t((size * 0x9E3779B97F4A7C15ull) >> 58);
  PlanEntry& e = cache.plans[(size_t(q.team) * 7 + size_t(q.coll) * 3 + h) % 16];
  const Calibration* cal = installed_calibration();
  if (e.team != int(q.team) || e.coll != int(q.coll) || e.bytes != size ||
      e.shape_gen != shape_gen || e.settings_gen != settings_gen || e.calibration != cal) {
    e.note.clear();
    e.plan = make_plan(q.coll, shape, size, st.use_test ? st.test : st.env, &e.note);
    e.team = int(q.team);
    e.coll = int(q.coll);
    e.bytes = size;
    e.shape_gen = shape_gen;
    e.settings_gen = settings_gen;
    e.calibration = cal;
  }
  const Plan& plan = e.plan;
  if (basis) *basis = {settings_gen, cal, may_go_live(size, plan, st.use_test ? st.test : st.env)};
  if (live) {
    auto* header =
        reinterpret_cast<uint64_t*>(rt.context().heap.base + rt.teams().coll_area_offset(q.team));
    // Integer types give the same bits in any order.
    const bool order_free = !q.reduces || (q.dtype() >= GSHMEM_INT8 && q.dtype() <= GSHMEM_UINT64);
    *live = live_choice(int(q.team), header + kLiveInstanceWord, q.coll, size, order_free, shape,
                        plan, st.use_test ? st.test : st.env, cal);
  }
  if (log::enabled(log::Level::Info, log::COLL) && t.my_index == 0) {
    std::lock_guard<std::mutex> lock(st.mu);
    auto key = std::make_tuple(int(q.coll), int(q.team), uint64_t(q.count), int(q.dtype()),
                               int(plan.algo) * kNumProtos + int(plan.proto), plan.nch);
    if (st.shown.insert(key).second) {
      GSHMEM_INFO(COLL,
                  "%s: team %d (%d PEs on %d node(s)), %zu x %s (%" PRIu64
                  " B): %s%s%s%s, protocol %s%s, %d channel(s), chunk %" PRIu64 " B, %s %.1f us%s",
                  q.call, int(q.team), t.size, shape.nodes, q.count, dtype_short_name(q.dtype()),
                  size, algo_name(plan.algo), plan.algo == Algo::Hier ? "+" : "",
                  plan.algo == Algo::Hier ? algo_name(plan.sub) : "",
                  plan.forced ? " (forced)" : "", proto_name(plan.proto),
                  plan.proto_forced ? " (forced)" : "", plan.nch, plan.chunk,
                  plan.measured ? "measured" : "predicted", plan.predicted_us,
                  e.note.empty() ? "" : (" -- " + e.note).c_str());
    }
  }
  return plan;
}

// The GPU heap's path: the same plan and Workspace, run by a kernel on the caller's stream.
int run_gpu(const Request& q, Runtime& rt, const Workspace& host_ws, const CallArgs& a,
            uint64_t src_bytes, uint64_t dst_bytes, unsigned uses, bool stage_src, uint32_t es) {
  gpu::Queue& queue = *rt.gpu();
  const DeviceContext& c = rt.context();
  GpuCall g{};
  g.ws = host_ws;
  // What the kernel runs on: the kernel-usable context, and the team's entry in the table it
  // reads (a member list in memory the GPU reaches). The kernel sets seq and call itself; the
  // host does not load or store the heap on this path.
  g.ws.c = queue.context();
  g.ws.team = queue.context().teams[size_t(q.team)];
  g.ws.seq = 0;
  g.coll = q.coll;
  g.dtype = q.dtype();
  g.op = q.reduces ? q.op() : GSHMEM_SUM;
  g.es = es;
  g.args = a;
  g.src_bytes = src_bytes;
  g.stage_src = stage_src;
  g.stream = q.stream;
  try {
    if ((uses & kSrc) && !in_heap(c, a.src, src_bytes)) {
      check_reachable(queue, q.call, "src", a.src, src_bytes);
    }
    if ((uses & kDst) && !in_heap(c, a.dst, dst_bytes)) {
      check_reachable(queue, q.call, "dst", a.dst, dst_bytes);
    }
    launch_call(queue, q.call, g);
  } catch (const Error& e) {
    log::error("%s", e.what());
    return e.status();
  }
  return GSHMEM_SUCCESS;
}

// The buffers a call uses on this PE and their sizes.
struct Sizes {
  uint64_t block = 0, src_bytes = 0, dst_bytes = 0;
  unsigned uses = kSrc | kDst;
};

Sizes sizes_of(const Request& q, const TeamInfo& t, const HostReducer& r) {
  Sizes b;
  const int n = t.size, me = t.my_index;
  b.block = q.count * r.es;
  b.src_bytes = b.dst_bytes = b.block;
  switch (q.coll) {
    case Coll::AllGather:
      b.dst_bytes = b.block * n;
      break;
    case Coll::ReduceScatter:
      b.src_bytes = b.block * n;
      break;
    case Coll::AllToAll:
      b.src_bytes = b.dst_bytes = b.block * n;
      break;
    case Coll::Reduce:
      if (me != q.root) b.uses = kSrc;
      break;
    case Coll::Broadcast:
      if (me != q.root) b.uses = kDst;
      break;
    default:
      break;
  }
  return b;
}

// GSHMEM_CHECK_CALLS: the members compare the call (collectives/call_check.hpp) after each
// checked its own arguments (`rc`), so a PE whose arguments failed stops the others too.
// Returns rc, or the status of a mismatch (after printing it).
int agree(const Request& q, Runtime& rt, int rc) {
  CallDesc d;
  d.kind = uint32_t(q.coll);
  d.valid = rc == GSHMEM_SUCCESS;
  d.count = q.count;
  d.dtype = q.dtype_value;
  d.op = q.reduces ? q.op_value : -1;
  d.root = q.root;
  try {
    check_call(rt, q.team, d, q.call);
  } catch (const Error& e) {
    log::error("%s", e.what());
    return e.status();
  }
  return rc;
}

int end_epoch(const Request& q, const TeamInfo& t, LiveChoice& live, uint64_t size);

// Whether `q` repeats this thread's last call (LastCall) on `rt`.
bool repeats(const LastCall& m, const Request& q, Runtime& rt) {
  if (!m.valid || !same_request(m.q, q)) return false;
  const TeamInfo* t = rt.teams().find(q.team);
  return t && std::memcmp(t, &m.ws.team, sizeof *t) == 0 &&
         std::memcmp(&rt.context(), &m.ctx, sizeof m.ctx) == 0 &&
         settings().gen.load(std::memory_order_relaxed) == m.settings_gen &&
         installed_calibration() == m.calibration;
}

// Runs a call set up on a CPU PE: its number on the team (the counter in the team's collective
// area, zeroed when the team is created; kernels on a GPU heap advance it themselves), then its
// channels.
int execute(Workspace& ws, Coll coll, const HostReducer& r, const CallArgs& a) {
  ws.seq = ++*reinterpret_cast<uint64_t*>(ws.c.heap.base + ws.area_off);
  try {
    for (int ch = 0; ch < ws.nch; ++ch) run_channel<Thread>(ws, coll, r, a, ch);
    if (a.src_pub || a.dst_pub) release_user_buffers<Thread>(ws);
    detail::prefetch_guards(ws);
  } catch (const Error& e) {
    log::error("%s", e.what());
    return e.status();
  }
  return GSHMEM_SUCCESS;
}

int run(const Request& q) {
  Runtime* rt = gshmem::detail::default_runtime();
  CallCache& cache = call_cache();
  LastCall& last = cache.last;
  if (rt && repeats(last, q, *rt)) return execute(last.ws, q.coll, last.r, last.a);
  const TeamInfo* t = nullptr;
  HostReducer r;
  int rc = check(q, rt, &t, &r);
  Sizes b;
  if (rc == GSHMEM_SUCCESS) {
    b = sizes_of(q, *t, r);
    if (q.count && (b.uses & kSrc) && !q.src) {
      rc = fail(q.call, GSHMEM_ERROR_INVALID_ARGUMENT, "src is NULL");
    } else if (q.count && (b.uses & kDst) && !q.dst) {
      rc = fail(q.call, GSHMEM_ERROR_INVALID_ARGUMENT, "dst is NULL");
    }
  }
  // Checked on CPU PEs of the team only: a PE outside it (or outside gshmem) has nothing to
  // exchange on, and with a GPU heap the host does not touch the heap (see call_check.hpp).
  if (call_checks_enabled() && rt && !rt->gpu() && rt->teams().find(q.team)) {
    rc = agree(q, *rt, rc);
  }
  if (rc != GSHMEM_SUCCESS) return rc;
  if (q.count == 0) return GSHMEM_SUCCESS;
  const int me = t->my_index;
  const bool on_gpu = rt->gpu() != nullptr;
  const uint64_t block = b.block, src_bytes = b.src_bytes, dst_bytes = b.dst_bytes;
  const unsigned uses = b.uses;
  LiveChoice* live = nullptr;
  PlanBasis basis;
  Plan plan = plan_call(cache, q, *rt, *t, std::max(src_bytes, dst_bytes),
                        on_gpu || q.internal ? nullptr : &live, &basis);
  if (live) plan = live->plan();

  // In place is dst == src (AllGather: src at block `me` of dst; ReduceScatter: dst at block `me`
  // of src). Any other overlap is staged through a private copy of src, and so is an in-place
  // AlltoAll that is not direct (the pairwise exchange overwrites dst blocks it has not sent yet).
  // A GPU heap stages on the stream, in device memory (coll_kernel.cu).
  const char* src = static_cast<const char*>(q.src);
  char* dst = static_cast<char*>(q.dst);
  bool natural = src == dst;
  if (q.coll == Coll::AllGather) natural = src == dst + uint64_t(me) * block;
  if (q.coll == Coll::ReduceScatter) natural = dst == src + uint64_t(me) * block;
  const bool overlapping = uses == (kSrc | kDst) && overlap(src, src_bytes, dst, dst_bytes);
  const bool stage =
      overlapping && (!natural || (q.coll == Coll::AllToAll && plan.algo != Algo::Direct));
  std::vector<char> staged;
  if (stage && !on_gpu) {
    staged.assign(src, src + src_bytes);
    src = staged.data();
  }

  const DeviceContext& c = rt->context();
  // Every field set one by one: value-initialising the whole struct first costs a `rep stos`,
  // a tenth of a small call's time on the host.
  Workspace ws;
  ws.c = c;
  ws.c.spins_before_yield = coll_spins_before_yield(c.spins_before_yield);
  ws.team = *t;
  ws.call = q.call;
  ws.area_off = rt->teams().coll_area_offset(q.team);
  ws.pool_off = rt->teams().coll_pool_offset();
  ws.pool_bytes = rt->teams().coll_pool_bytes();
  ws.flag_stride = c.n_pes;
  ws.nch = plan.nch;
  ws.chunk = plan.chunk;
  ws.algo = plan.algo;
  ws.sub = plan.sub;
  ws.proto = plan.proto;
  ws.node_size = plan.algo == Algo::Hier ? cached_shape(cache.shapes, *rt, q.team, *t).ppn : 0;
  ws.seq = 0;

  CallArgs a{};
  a.src = src;
  a.dst = dst;
  a.count = q.count;
  a.root = q.root;
  // Peers may read a buffer in place only if it is symmetric and this PE does not write it (a
  // staged src is a private copy).
  const bool src_written =
      overlapping && !stage && !(natural && in_place_publishes_src(q.coll, plan.algo, t->size));
  const bool big =
      std::max(src_bytes, dst_bytes) >= (on_gpu ? kPublishInPlaceMinGpu : kPublishInPlaceMin);
  a.src_pub = big && (uses & kSrc) && !stage && !src_written && in_heap(c, src, src_bytes);
  // A published dst slice must not change after publication: AVG divides at the end.
  a.dst_pub =
      big && q.coll == Coll::AllReduce && q.op() != GSHMEM_AVG && in_heap(c, dst, dst_bytes);

  if (on_gpu) {
    return run_gpu(q, *rt, ws, a, src_bytes, dst_bytes, uses, stage, uint32_t(r.es));
  }
  last.valid = false;
  if (!live) {
    if (!stage && !q.internal && !call_checks_enabled() && !basis.may_go_live) {
      // The whole set-up is kept from the second call in a row with these arguments: a program
      // that alternates two calls would copy it on every call and never use it (measured, a 2-PE
      // AllReduce and Broadcast of 8 B in turn: 150-162 ns a call against 131-148 without).
      if (same_request(last.q, q)) {
        last = {true, q, c, basis.settings_gen, basis.calibration, r, ws, a};
      } else {
        last.q = q;
      }
    }
    return execute(ws, q.coll, r, a);
  }
  const uint64_t t0 = gshmem::detail::now_ns();
  if (int rc = execute(ws, q.coll, r, a); rc != GSHMEM_SUCCESS) return rc;
  count_live_call(ws.algo);
  if (live->add(double(gshmem::detail::now_ns() - t0) / 1e3)) {
    return end_epoch(q, *t, *live, std::max(src_bytes, dst_bytes));
  }
  return GSHMEM_SUCCESS;
}

// The end of a live choice's epoch (adapt.hpp): the members agree on its time, the fastest
// member's median call, and each decides alike what the next calls run.
int end_epoch(const Request& q, const TeamInfo& t, LiveChoice& live, uint64_t size) {
  double mine = live.epoch_us(), agreed = 0;
  const int rc =
      run({"gshmem_allreduce (the timing exchange of an adaptive plan)", Coll::AllReduce, q.team,
           &agreed, &mine, 1, GSHMEM_DOUBLE, GSHMEM_MIN, -1, nullptr, true, true});
  if (rc != GSHMEM_SUCCESS) return rc;
  std::string what;
  if (live.decide(agreed, &what) && t.my_index == 0) {
    GSHMEM_INFO(COLL, "%s: team %d, %" PRIu64 " B: %s", q.call, int(q.team), size, what.c_str());
  }
  return GSHMEM_SUCCESS;
}

}  // namespace

#if !GSHMEM_HAVE_CUDA
// Built without CUDA the runtime never has a GPU heap, so run_gpu is never reached.
void check_reachable(gpu::Queue&, const char*, const char*, const void*, uint64_t) {}
void launch_call(gpu::Queue&, const char* call, const GpuCall&) {
  throw Error(GSHMEM_ERROR_INTERNAL, call, "", "gshmem was built without CUDA");
}
#endif

TeamShape team_shape(gshmem_team_t team) {
  Runtime* rt = gshmem::detail::default_runtime();
  const TeamInfo* t = rt ? rt->teams().find(team) : nullptr;
  return t ? cached_shape(call_cache().shapes, *rt, team, *t) : TeamShape{0, 0, 0};
}

Plan plan_for(Coll coll, gshmem_team_t team, uint64_t bytes) {
  return make_plan(coll, team_shape(team), bytes, overrides());
}

void set_overrides(const Overrides* o) {
  Settings& st = settings();
  st.use_test = o != nullptr;
  if (o) st.test = *o;
  st.gen.fetch_add(1);
}

const Overrides& overrides() {
  Settings& st = settings();
  return st.use_test ? st.test : st.env;
}

}  // namespace gshmem::coll

using gshmem::coll::c_value;
using gshmem::coll::Coll;
using gshmem::coll::run;

extern "C" {

int gshmem_allreduce(gshmem_team_t team, void* dst, const void* src, size_t count,
                     gshmem_datatype_t dtype, gshmem_redop_t op, void* stream) {
  return run({"gshmem_allreduce", Coll::AllReduce, team, dst, src, count, c_value(dtype),
              c_value(op), -1, stream, true});
}

int gshmem_reduce(gshmem_team_t team, void* dst, const void* src, size_t count,
                  gshmem_datatype_t dtype, gshmem_redop_t op, int root, void* stream) {
  return run({"gshmem_reduce", Coll::Reduce, team, dst, src, count, c_value(dtype), c_value(op),
              root, stream, true});
}

int gshmem_allgather(gshmem_team_t team, void* dst, const void* src, size_t count,
                     gshmem_datatype_t dtype, void* stream) {
  return run({"gshmem_allgather", Coll::AllGather, team, dst, src, count, c_value(dtype),
              GSHMEM_SUM, -1, stream, false});
}

int gshmem_reducescatter(gshmem_team_t team, void* dst, const void* src, size_t count,
                         gshmem_datatype_t dtype, gshmem_redop_t op, void* stream) {
  return run({"gshmem_reducescatter", Coll::ReduceScatter, team, dst, src, count, c_value(dtype),
              c_value(op), -1, stream, true});
}

int gshmem_broadcast(gshmem_team_t team, void* dst, const void* src, size_t count,
                     gshmem_datatype_t dtype, int root, void* stream) {
  return run({"gshmem_broadcast", Coll::Broadcast, team, dst, src, count, c_value(dtype),
              GSHMEM_SUM, root, stream, false});
}

int gshmem_alltoall(gshmem_team_t team, void* dst, const void* src, size_t count,
                    gshmem_datatype_t dtype, void* stream) {
  return run({"gshmem_alltoall", Coll::AllToAll, team, dst, src, count, c_value(dtype), GSHMEM_SUM,
              -1, stream, false});
}

size_t gshmem_datatype_size(gshmem_datatype_t dtype) {
  if (c_value(dtype) < 0 || c_value(dtype) >= GSHMEM_DATATYPE_COUNT) return 0;
  return gshmem::coll::host_reducer(dtype, GSHMEM_SUM).es;
}

}  // extern "C"
