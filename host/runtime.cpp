#include "host/runtime.hpp"

#include <sched.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <cstring>
#include <mutex>

#include "gshmem/coll/workspace.cuh"
#include "gshmem/device/barrier.cuh"
#include "host/env.hpp"
#include "host/hostops.hpp"
#include "host/log.hpp"
#include "host/system.hpp"
#include "transports/mapped/static_data.hpp"

namespace gshmem {

namespace detail {

DeviceContext g_default_ctx{};

namespace {
Runtime* g_runtime = nullptr;
bool g_finalized = false;
int g_error_mode = GSHMEMX_ERROR_ABORT;
}  // namespace

Runtime* default_runtime() {
  return g_runtime;
}
bool finalized() {
  return g_finalized;
}
int error_mode() {
  return g_error_mode;
}
void set_default_runtime(Runtime* rt) {
  g_runtime = rt;
  g_default_ctx = rt ? rt->context() : DeviceContext{};
  if (!rt) g_finalized = true;
}
void set_error_mode(int mode) {
  g_error_mode = mode;
}

namespace {
bool g_prefer_host_heap = false;
}  // namespace

void prefer_host_heap() {
  g_prefer_host_heap = true;
}

namespace {
using ContextHook = void (*)(const void*, size_t);
std::mutex g_hook_mutex;
std::vector<ContextHook> g_hooks;
}  // namespace

void register_context_hook(ContextHook hook) {
  {
    std::lock_guard<std::mutex> lock(g_hook_mutex);
    if (std::find(g_hooks.begin(), g_hooks.end(), hook) != g_hooks.end()) return;
    g_hooks.push_back(hook);
  }
  // Registered after init (a library loaded late): it gets the live context now.
  if (g_runtime) {
    const DeviceContext& c = g_runtime->device_context();
    hook(&c, sizeof c);
  }
}

bool device_library_attached() {
  std::lock_guard<std::mutex> lock(g_hook_mutex);
  return !g_hooks.empty();
}

void publish_context(const DeviceContext& ctx) {
  std::vector<ContextHook> hooks;
  {
    std::lock_guard<std::mutex> lock(g_hook_mutex);
    hooks = g_hooks;
  }
  for (ContextHook h : hooks) h(&ctx, sizeof ctx);
}

}  // namespace detail

namespace {

// GSHMEM_HEAP: auto takes the GPU when one is usable and the program runs gshmem kernels (it
// links gshmem::device, whose context hook is registered before main). A program without
// kernels gets host memory: its CPU code may load and store symmetric memory directly, which a
// GPU heap would turn into a crash. Every PE must agree: the heaps are built by different
// collectives.
SymmetricHeap::Placement choose_heap(Bootstrap& boot, const NodeMesh& mesh) {
  const std::string& want = Env::get().str("GSHMEM_HEAP");
  SymmetricHeap::Placement where;
  const bool auto_device =
      want == "auto" && !detail::g_prefer_host_heap && detail::device_library_attached();
  if (want == "device" || auto_device) {
    const gpu::Probe& probe = gpu::probe();
    if (probe.available) {
      where.device = true;
    } else if (want == "device") {
      throw Error(GSHMEM_ERROR_INVALID_ARGUMENT, "gshmem_init", "GSHMEM_HEAP",
                  "GSHMEM_HEAP=device but no GPU is usable: " + probe.why +
                      " (GSHMEM_HEAP=host or auto puts the heap in host memory)");
    }
  }
  int mine = where.device ? 1 : 0;
  std::vector<int> all(size_t(boot.size()));
  boot.allgather(&mine, all.data(), sizeof mine, "gshmem_init (heap kind)");
  for (int pe = 0; pe < boot.size(); ++pe) {
    if (all[size_t(pe)] != mine) {
      throw Error(GSHMEM_ERROR_INVALID_ARGUMENT, "gshmem_init", "GSHMEM_HEAP",
                  std::string("this PE's heap would be in ") + (mine ? "GPU" : "host") +
                      " memory, PE " + std::to_string(pe) + "'s in " + (mine ? "host" : "GPU") +
                      " memory" + (mine ? "" : " (" + gpu::probe().why + " here)") +
                      "; set GSHMEM_HEAP the same way on every PE");
    }
  }
  if (where.device) {
    const auto& local = mesh.local_pes();
    int index = int(std::find(local.begin(), local.end(), boot.rank()) - local.begin());
    std::string how;
    where.cuda_device = gpu::select_device(index, &how);
    GSHMEM_INFO(INIT, "symmetric heap in GPU memory: CUDA device %d (chosen by %s)",
                where.cuda_device, how.c_str());
  }
  return where;
}

}  // namespace

Error::Error(int status, std::string call, std::string argument, std::string reason)
    : std::runtime_error(call + ": " + reason),
      status_(status),
      call_(std::move(call)),
      argument_(std::move(argument)),
      reason_(std::move(reason)) {}

const DeviceContext& default_context() {
  return detail::g_default_ctx;
}

Runtime::Runtime(const gshmemx_init_attr_t* attr) {
  log::configure();
  const Env& env = Env::get();
  // First, while this is the only thread gshmem has started: make globals symmetric.
  if (env.flag("GSHMEM_STATIC_DATA")) static_local_ = share_static_data();
  boot_ = make_bootstrap({attr, &abort_, env.seconds("GSHMEM_BOOTSTRAP_TIMEOUT")});
  log::set_pe(boot_->rank());
  if (boot_->rank() == 0) {
    for (const std::string& name : env.unknown()) {
      GSHMEM_WARN(INIT, "%s is set but is not a gshmem variable (gshmem-info lists them)",
                  name.c_str());
    }
  }
  char secret[33] = {};
  if (boot_->rank() == 0) std::strncpy(secret, sock::random_hex(16).c_str(), 32);
  boot_->broadcast(secret, sizeof secret, 0, "gshmem_init (job secret)");

  mesh_ = std::make_unique<NodeMesh>(*boot_, secret);
  SymmetricHeap::Placement where = choose_heap(*boot_, *mesh_);
  bool networked = Network::wanted(mesh_->n_nodes());
  // A network registers the heap once, so a GPU heap is backed in full from the start.
  where.commit_all = where.device && networked;
  heap_ = std::make_unique<SymmetricHeap>(*boot_, *mesh_, env.size("GSHMEM_SYMMETRIC_SIZE"), where);
  share_statics();
  // The collectives keep flags next to each team's sync words and one scratch pool (collectives/).
  teams_ =
      std::make_unique<Teams>(ctx_, *heap_, boot_->size(), coll::team_area_bytes(boot_->size()),
                              coll::scratch_bytes(env.size("GSHMEM_COLL_SCRATCH")));
  if (where.device) {
    // What kernels dereference through the context must be reachable from the GPU.
    queue_ = std::make_unique<gpu::Queue>(where.cuda_device);
    abort_flag_dev_ =
        gpu::host_register(abort_.flag_page(), AbortState::kFlagPageBytes, "the abort flag");
    team_mirror_ = static_cast<TeamInfo*>(
        gpu::pinned_alloc(sizeof(TeamInfo) * GSHMEM_MAX_TEAMS, "the team table"));
    member_mirror_ = static_cast<int32_t*>(gpu::pinned_alloc(
        sizeof(int32_t) * GSHMEM_MAX_TEAMS * size_t(boot_->size()), "the team member lists"));
    teams_->mirror_to(team_mirror_, member_mirror_);
  }
  heap_->commit_reserved();
  if (networked) {
    network_ = std::make_unique<Network>(
        *boot_, *mesh_,
        std::vector<FabricRegion>{{heap_->base(), heap_->size(), heap_->cuda_device()},
                                  {statics_.base(), statics_.size()}},
        [this](const std::string& why) {
          log::error("%s", why.c_str());
          boot_->abort(1, "PE " + std::to_string(boot_->rank()) + ": " + why);
        },
        where.device);
  }
  build_context();
  // Growth is collective (malloc is): every PE rebuilds and republishes in the same call.
  heap_->on_growth([this] {
    build_device_context();
    if (ready_) publish();
  });
  teams_->init_predefined(boot_->rank(), shared_pes(), mesh_->local_pes());
  boot_->barrier("gshmem_init");
  ready_ = true;
  publish();
  GSHMEM_INFO(INIT, "PE %d of %d ready (bootstrap %s, %d PEs on this node%s)", my_pe(), n_pes(),
              boot_->name(), int(mesh_->local_pes().size()),
              (ctx_.flags & kCtxOversubscribed) ? ", more PEs than cores" : "");
}

// TEAM_SHARED: the node's PEs when each maps every other's heap (always for host memory; GPUs
// without P2P between them are not mapped), else each PE alone. Decided together, so that every
// member sees the same team.
std::vector<int> Runtime::shared_pes() {
  const std::vector<int>& local = mesh_->local_pes();
  const Segment heap = heap_->view();
  int all_mapped = 1;
  for (int pe : local) all_mapped &= heap.peer_base[size_t(pe)] != nullptr;
  std::vector<int> flags(size_t(boot_->size()));
  boot_->allgather(&all_mapped, flags.data(), sizeof all_mapped, "gshmem_init (shared team)");
  for (int pe : local) {
    if (!flags[size_t(pe)]) {
      if (boot_->rank() == local.front()) {
        GSHMEM_WARN(INIT,
                    "not every PE on this node maps every other's heap (GPUs without "
                    "peer access): GSHMEM_TEAM_SHARED holds each PE alone");
      }
      return {boot_->rank()};
    }
  }
  return local;
}

// Static data is symmetric only if every PE runs the same program: same segment size. Otherwise
// globals stay private and only the heap is symmetric.
void Runtime::share_statics() {
  uint64_t mine = static_local_.size();
  std::vector<uint64_t> all(static_cast<size_t>(boot_->size()));
  boot_->allgather(&mine, all.data(), sizeof mine, "gshmem_init (static data)");
  for (uint64_t s : all) {
    if (s != mine || !s) {
      if (boot_->rank() == 0 && mine) {
        GSHMEM_WARN(INIT,
                    "the PEs run programs with different static data; globals are not "
                    "symmetric (use the symmetric heap)");
      }
      return;
    }
  }
  statics_ = SharedSegment(*mesh_, boot_->size(), std::move(static_local_), 0x73746174 /* "stat" */,
                           "gshmem_init (static data)");
}

void Runtime::build_context() {
  const Env& env = Env::get();
  ctx_.my_pe = boot_->rank();
  ctx_.n_pes = boot_->size();
  ctx_.heap = heap_->view();
  ctx_.statics = statics_.size() ? statics_.view() : Segment{nullptr, 0, nullptr};
  ctx_.abort_flag = abort_.flag_address();
  ctx_.timeout_ns = uint64_t(env.seconds("GSHMEM_TIMEOUT") * 1e9);
  ctx_.teams = teams_->table();
  ctx_.channel = network_ ? network_->channel() : nullptr;
  ctx_.host_runtime = this;
  // Each PE keeps one thread busy (its proxy thread sleeps unless the PE computes).
  bool oversubscribed = int(mesh_->local_pes().size()) > cpus_available();
  ctx_.flags = oversubscribed ? uint32_t(kCtxOversubscribed) : 0u;
  // Host calls always validate; the flag asks kernels to (the device copy keeps the flags).
  if (env.flag("GSHMEM_DEVICE_CHECKS")) ctx_.flags |= uint32_t(kCtxChecks);
  int64_t spins = env.integer("GSHMEM_SPIN_BEFORE_YIELD");
  // Our own PEs outnumber the cores: a waiting PE must give its core to the PE it waits for at
  // once. Otherwise spin for milliseconds: yielding early costs a whole time slice whenever
  // anything else is runnable on the machine.
  ctx_.spins_before_yield = spins >= 0 ? uint32_t(spins) : oversubscribed ? 16u : 200000u;
  build_device_context();
}

void Runtime::build_device_context() {
  if (!queue_) {
    dctx_ = DeviceContext{};  // a host heap: kernels see "not initialised"
    return;
  }
  dctx_ = ctx_;
  dctx_.heap = heap_->device_view();
  dctx_.statics = Segment{nullptr, 0, nullptr};  // host memory; device code never uses it
  auto flag_at = reinterpret_cast<const volatile char*>(abort_.flag_address()) -
                 static_cast<const volatile char*>(abort_.flag_page());
  dctx_.abort_flag =
      reinterpret_cast<const volatile uint32_t*>(static_cast<char*>(abort_flag_dev_) + flag_at);
  dctx_.teams = team_mirror_;
  dctx_.channel = ctx_.channel;  // pinned, same address on both sides
  dctx_.host_runtime = nullptr;  // nothing on the device follows it
  queue_->set_context(dctx_);
}

void Runtime::publish() const {
  detail::publish_context(dctx_);
}

// Without finalize (a PE leaving early, or failing): no goodbye to the bootstrap, so the launcher
// reports how this PE ended instead of waiting for it in the next collective.
Runtime::~Runtime() {
  if (network_) network_->stop();
  if (queue_) {
    queue_.reset();  // drains the internal stream
    gpu::host_unregister(abort_.flag_page());
    gpu::pinned_free(team_mirror_);
    gpu::pinned_free(member_mirror_);
  }
}

void Runtime::finalize() {
  if (finalized_) return;
  if (!hostops::barrier_all(ctx_, {"gshmem_finalize"})) barrier_all(ctx_, {"gshmem_finalize"});
  if (!hostops::quiet(ctx_)) quiet(ctx_);  // the barrier's own signals
  // Kernels launched from now on see n_pes 0 and report "not initialised".
  detail::publish_context(DeviceContext{});
  // Every PE's operations are complete; the bootstrap barrier (which needs no fabric) makes sure
  // no peer still needs this PE's proxy to progress before it stops.
  boot_->barrier("gshmem_finalize");
  if (network_) network_->stop();
  network_.reset();
  boot_->finalize();
  finalized_ = true;
}

void Runtime::fail(const Error& e) {
  if (detail::error_mode() == GSHMEMX_ERROR_THROW) throw e;
  log::error("%s", e.what());
  boot_->abort(1, "PE " + std::to_string(my_pe()) + ": " + e.what());
  __builtin_unreachable();
}

// ---- Slow paths of the inline device API (host side) ----------------------------------------

namespace detail {

namespace {

[[noreturn]] void fail(const DeviceContext& c, const Error& e) {
  if (auto* rt = static_cast<Runtime*>(c.host_runtime)) rt->fail(e);
  if (error_mode() == GSHMEMX_ERROR_THROW) throw e;
  log::error("%s", e.what());
  std::fflush(nullptr);
  ::_exit(1);
}

std::string hex(const void* p) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%p", p);
  return buf;
}

}  // namespace

void host_bad_input(const DeviceContext& c, Site site, BadInput what, const void* addr,
                    uint64_t bytes, int pe) {
  std::string arg = site.arg ? site.arg : "address";
  std::string why;
  std::string which;
  int status = GSHMEM_ERROR_INVALID_ARGUMENT;
  switch (what) {
    case BadInput::NotInitialized:
      why = finalized() ? "called after gshmem_finalize" : "called before gshmem_init";
      status = GSHMEM_ERROR_NOT_INITIALIZED;
      break;
    case BadInput::Pe:
      which = "pe";
      why = "pe=" + std::to_string(pe) + " is out of range (valid PEs are 0.." +
            std::to_string(c.n_pes - 1) + ")";
      break;
    case BadInput::Address:
      which = arg;
      why = arg + "=" + hex(addr) + " is not in the symmetric heap [" + hex(c.heap.base) + ", +" +
            format_bytes(c.heap.size) + ")" +
            (c.statics.size ? " or the program's static data" : "");
      break;
    case BadInput::Misaligned:
      which = arg;
      why = arg + "=" + hex(addr) + " is misaligned: an atomic on it needs " +
            std::to_string(bytes) + "-byte alignment";
      break;
    case BadInput::Size:
      which = "size";
      if (bytes > c.heap.size) {
        why = "size " + std::to_string(bytes) + " (bytes or elements) is larger than the " +
              format_bytes(c.heap.size) + " symmetric heap or overflows";
      } else {
        why = std::to_string(bytes) + " bytes from " + arg + "=" + hex(addr) +
              " run past the end of the symmetric heap";
      }
      break;
    case BadInput::Stride:
      which = "stride";
      why = "stride=" + std::to_string(int64_t(bytes)) + " must be at least 1";
      break;
    case BadInput::Cmp:
      which = "cmp";
      why = "cmp=" + std::to_string(int64_t(bytes)) + " is not a GSHMEM_CMP_* value";
      break;
    case BadInput::SignalOp:
      which = "sig_op";
      why = "sig_op=" + std::to_string(int64_t(bytes)) +
            " is neither GSHMEM_SIGNAL_SET nor GSHMEM_SIGNAL_ADD";
      break;
    case BadInput::Team:
      which = "team";
      why = "team=" + std::to_string(int64_t(bytes)) + " is not a team this PE belongs to";
      break;
    case BadInput::NoTransport:
      which = "pe";
      why = "no transport to PE " + std::to_string(pe) +
            ": it is on another node and no network transport is configured";
      status = GSHMEM_ERROR_TRANSPORT;
      break;
  }
  fail(c, Error(status, site.call, which, why));
}

void host_wait_failed(const DeviceContext& c, Site site, bool timed_out) {
  auto* rt = static_cast<Runtime*>(c.host_runtime);
  if (!timed_out) {
    if (rt) rt->abort_state().exit_now(site.call);
    fail(c, Error(GSHMEM_ERROR_ABORTED, site.call, "", "interrupted: the job is aborting"));
  }
  char why[200];
  if (site.peer >= 0) {
    std::snprintf(why, sizeof why, "timed out after %.1f s (GSHMEM_TIMEOUT) waiting for PE %d",
                  double(c.timeout_ns) / 1e9, site.peer);
  } else {
    std::snprintf(why, sizeof why, "timed out after %.1f s (GSHMEM_TIMEOUT)",
                  double(c.timeout_ns) / 1e9);
  }
  fail(c, Error(GSHMEM_ERROR_TIMEOUT, site.call, "", why));
}

bool host_drive(const DeviceContext& c, bool post_only) {
  auto* rt = static_cast<Runtime*>(c.host_runtime);
  return rt && rt->network() && rt->network()->drive(post_only);
}

bool host_backoff(const DeviceContext& c, uint32_t spins, uint64_t idle_ns) {
  (void)spins;
  if (idle_ns < 200000000ull) {
    sched_yield();
    return false;
  }
  // A long wait: the peer is busy with something slow; give the core away for a moment. The
  // network's news (a peer's write that this PE must progress, say) ends the sleep at once:
  // rxm-style targets produce no completion for incoming writes, so only the wait fd shows them.
  uint64_t ns = idle_ns < 2000000000ull ? 20000 : 200000;
  auto* rt = static_cast<Runtime*>(c.host_runtime);
  if (rt && rt->network()) return rt->network()->wait_for_news(ns);
  timespec ts{0, long(ns)};
  nanosleep(&ts, nullptr);
  return false;
}

}  // namespace detail
}  // namespace gshmem
