// Runtime: one PE from init to finalize.
#include "host/runtime/runtime.hpp"

#include <cstring>

#include "host/base/env.hpp"
#include "host/base/error.hpp"
#include "host/base/log.hpp"
#include "host/base/system.hpp"
#include "host/heap/static_data.hpp"
#include "host/runtime/heap_placement.hpp"
#include "host/runtime/hostops.hpp"
#include "host/runtime/process.hpp"

namespace gshmem {

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
  // PE 0's job secret, and the length of the text the layers above share from it (process.hpp).
  const InitShare share = init_share();
  std::string shared;
  struct {
    char secret[33];
    uint32_t shared_bytes;
  } first = {};
  if (boot_->rank() == 0) {
    std::strncpy(first.secret, sock::random_hex(16).c_str(), 32);
    if (share.payload) shared = share.payload();
    first.shared_bytes = uint32_t(std::min<size_t>(shared.size(), 16u << 20));
  }
  boot_->broadcast(&first, sizeof first, 0, "gshmem_init (job secret)");
  const char* secret = first.secret;
  shared.resize(first.shared_bytes);
  if (first.shared_bytes) {
    boot_->broadcast(shared.data(), shared.size(), 0, "gshmem_init (the shared settings)");
  }
  if (share.receive) share.receive(shared);

  mesh_ = std::make_unique<NodeMesh>(*boot_, secret);
  HeapPlacement where = choose_heap(*boot_, *mesh_);
  bool networked = Network::wanted(mesh_->n_nodes());
  // A network registers the heap once, so a GPU heap is backed in full from the start.
  where.commit_all = where.device && networked;
  heap_ = std::make_unique<SymmetricHeap>(*boot_, *mesh_, env.size("GSHMEM_SYMMETRIC_SIZE"), where);
  share_statics();
  // What the layers above keep next to each team's sync words, and their one pool (the
  // collectives register it: process.hpp).
  const TeamAreaSizes area = team_area();
  teams_ = std::make_unique<Teams>(ctx_, *heap_, boot_->size(), hostops::team_calls(),
                                   area.per_team ? area.per_team(boot_->size()) : 0,
                                   area.pool ? area.pool() : 0);
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
        where.device, &abort_);
  }
  build_context();
  // Growth is collective (malloc is): every PE rebuilds and republishes in the same call.
  heap_->on_growth([this] {
    build_device_context();
    if (ready_) publish();
  });
  teams_->init_predefined(boot_->rank(), shared_pes(), mesh_->local_pes(), same_index_pes());
  boot_->barrier("gshmem_init");
  ready_ = true;
  publish();
  GSHMEM_INFO(INIT, "PE %d of %d ready (bootstrap %s, %d PEs on this node%s)", my_pe(), n_pes(),
              boot_->name(), int(mesh_->local_pes().size()),
              (ctx_.flags & kCtxOversubscribed) ? ", more busy threads than cores" : "");
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

// TEAM_SAME_MYPE_NODE: the PEs whose index on their node is this PE's, one per node that has as
// many PEs (NVSHMEM's team of the same name, for hierarchical algorithms across nodes). Every PE
// knows every PE's node: no communication.
std::vector<int> Runtime::same_index_pes() const {
  const int n = boot_->size();
  std::vector<int> on_node(static_cast<size_t>(n));  // each PE's index on its node
  std::vector<int> seen(static_cast<size_t>(mesh_->n_nodes()));
  for (int pe = 0; pe < n; ++pe) on_node[size_t(pe)] = seen[size_t(mesh_->node_of(pe))]++;
  std::vector<int> members;
  for (int pe = 0; pe < n; ++pe) {
    if (on_node[size_t(pe)] == on_node[size_t(boot_->rank())]) members.push_back(pe);
  }
  return members;
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
  ctx_.timeout_ns = env.nanoseconds("GSHMEM_TIMEOUT");
  wait_sleep_ns_ = env.nanoseconds("GSHMEM_WAIT_SLEEP");
  ctx_.teams = teams_->table();
  ctx_.channel = network_ ? network_->channel() : nullptr;
  ctx_.host_runtime = this;
  ctx_.coll_area_off = teams_->coll_area_offset(0);
  ctx_.coll_area_stride = teams_->coll_area_offset(1) - teams_->coll_area_offset(0);
  ctx_.coll_pool_off = teams_->coll_pool_offset();
  ctx_.coll_pool_bytes = teams_->coll_pool_bytes();
  // Busy threads outnumber the cores: a waiter that spins takes the core of the thread it waits
  // for. The network counts its own threads (Network::oversubscribed); without it, one per PE.
  // Virtual nodes (gshmemrun --ppn) on one machine share its cores: count every PE of this host.
  bool oversubscribed =
      network_ ? network_->oversubscribed() : int(mesh_->host_pes().size()) > cpus_available();
  ctx_.flags = oversubscribed ? uint32_t(kCtxOversubscribed) : 0u;
  bind_cpu(oversubscribed);
  // Host calls always validate; the flag asks kernels to (the device copy keeps the flags).
  if (env.flag("GSHMEM_DEVICE_CHECKS")) ctx_.flags |= uint32_t(kCtxChecks);
  // Decided once: every host call on this PE takes the GPU heap's path or the plain one.
  if (queue_) ctx_.flags |= uint32_t(kCtxGpuHeap);
  int64_t spins = env.integer("GSHMEM_SPIN_BEFORE_YIELD");
  // Our own PEs outnumber the cores: a waiting PE must give its core to the PE it waits for at
  // once. Otherwise spin for milliseconds: yielding early costs a whole time slice whenever
  // anything else is runnable on the machine.
  // Under GSHMEM_PROXY_GPUVIEW the waiters stand in for kernels, which take no core from the
  // proxy thread that does their work: they give theirs away at once too.
  bool gpuview = network_ && !queue_ && env.flag("GSHMEM_PROXY_GPUVIEW");
  // A few spins only with more PEs than cores: an 8-PE barrier on 2 cores measured best with 0
  // to 4 (the PE waited for rarely arrives within a spin's time when it has no core).
  ctx_.spins_before_yield = spins >= 0       ? uint32_t(spins)
                            : oversubscribed ? 4u
                            : gpuview        ? 16u
                                             : 200000u;
  build_device_context();
}

// With more PEs than cores, the scheduler moves waiting PEs between cores, and a PE that yields
// often hands its core to a PE that is itself waiting: each PE on a core of its own share (the
// node's PEs spread evenly), with 4 spins, brought an 8-PE barrier on 2 cores from 10-14 us to
// under 8 us (the scheduling floor: 7 us). Done after the proxy thread (if any) started, which
// keeps the whole mask.
void Runtime::bind_cpu(bool oversubscribed) {
  const std::string& mode = Env::get().str("GSHMEM_CPU_BIND");
  if (mode == "none" || (mode == "auto" && !oversubscribed)) return;
  const std::vector<int> local = mesh_->host_pes();
  auto at = std::find(local.begin(), local.end(), boot_->rank());
  int cpu = bind_thread_to_cpu(int(at - local.begin()));
  if (cpu < 0) {
    GSHMEM_WARN(INIT, "GSHMEM_CPU_BIND=%s: PE %d could not be bound to a CPU; left unbound",
                mode.c_str(), boot_->rank());
    return;
  }
  GSHMEM_INFO(INIT, "PE %d bound to CPU %d (GSHMEM_CPU_BIND=%s%s)", boot_->rank(), cpu,
              mode.c_str(), oversubscribed ? ", more busy threads than cores" : "");
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
  hostops::barrier_all(ctx_, {"gshmem_finalize"});
  hostops::quiet(ctx_);  // the barrier's own signals
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
  raise(e, [this](const std::string& why) {
    boot_->abort(1, "PE " + std::to_string(my_pe()) + ": " + why);
  });
}

}  // namespace gshmem
