// One PE's runtime: bootstrap, node mesh, symmetric heap, teams, and the DeviceContext that
// describes them. State lives in this object, not in scattered globals; the C API uses the
// process's default runtime.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "gshmem/device/context.cuh"
#include "gshmem/gshmem.hpp"
#include "host/bootstrap/bootstrap.hpp"
#include "host/cuda/gpu.hpp"
#include "host/heap/heap.hpp"
#include "host/team/teams.hpp"
#include "host/bootstrap/node_mesh.hpp"
#include "host/heap/shared_segment.hpp"
#include "transports/proxy/network.hpp"

namespace gshmem {

class Runtime {
 public:
  // Collective. Throws Error (naming what failed) when the job cannot start.
  explicit Runtime(const gshmemx_init_attr_t* attr);
  ~Runtime();
  Runtime(const Runtime&) = delete;
  Runtime& operator=(const Runtime&) = delete;

  // Collective: quiet, barrier, then the bootstrap's goodbye. Idempotent.
  void finalize();

  int my_pe() const { return ctx_.my_pe; }
  int n_pes() const { return ctx_.n_pes; }
  // Host-usable: what CPU code runs on (g_default_ctx).
  const DeviceContext& context() const { return ctx_; }
  // Kernel-usable: heap, peer bases, teams, abort flag and channel in memory the GPU reaches.
  // All zero (n_pes 0) when the heap is host memory: kernels cannot reach it.
  const DeviceContext& device_context() const { return dctx_; }
  // The GPU side when the heap is in GPU memory, else nullptr.
  gpu::Queue* gpu() { return queue_.get(); }
  const char* heap_kind() const { return heap_->kind(); }
  Bootstrap& bootstrap() { return *boot_; }
  AbortState& abort_state() { return abort_; }
  NodeMesh& mesh() { return *mesh_; }
  SymmetricHeap& heap() { return *heap_; }
  Teams& teams() { return *teams_; }
  Network* network() { return network_.get(); }
  // How long a host wait goes without progress before it naps (GSHMEM_WAIT_SLEEP); 0: never.
  uint64_t wait_sleep_ns() const { return wait_sleep_ns_; }

  // Reports an error the way the error mode says: throw it, or print it and end the job.
  [[noreturn]] void fail(const Error& e);

 private:
  void build_context();
  void bind_cpu(bool oversubscribed);
  void build_device_context();
  void share_statics();
  std::vector<int> shared_pes();
  std::vector<int> same_index_pes() const;
  // Hands the device context to the registered hooks (gshmemx_register_context_hook).
  void publish() const;

  AbortState abort_;
  std::unique_ptr<Bootstrap> boot_;
  std::unique_ptr<NodeMesh> mesh_;
  std::unique_ptr<SymmetricHeap> heap_;
  HostSegment static_local_;  // this PE's static data, until shared
  SharedSegment statics_;
  std::unique_ptr<Teams> teams_;
  std::unique_ptr<Network> network_;
  // A GPU heap's device-side state; declared last, so released first.
  std::unique_ptr<gpu::Queue> queue_;
  void* abort_flag_dev_ = nullptr;    // the abort flag's page, pinned and mapped
  TeamInfo* team_mirror_ = nullptr;   // pinned: the team table kernels read
  int32_t* member_mirror_ = nullptr;  // pinned: their member lists
  DeviceContext ctx_{};
  DeviceContext dctx_{};
  uint64_t wait_sleep_ns_ = 0;
  bool ready_ = false;
  bool finalized_ = false;
};

namespace detail {

// The default context the C API works on; zero (n_pes 0) outside init..finalize.
extern DeviceContext g_default_ctx;
// The default runtime, nullptr outside init..finalize.
Runtime* default_runtime();
// Set by gshmem_finalize: lets messages tell "before init" from "after finalize".
bool finalized();
int error_mode();
// OpenSHMEM programs (host/shmem) are CPU PE programs that load and store their heap: for them
// GSHMEM_HEAP=auto, or unset, means host memory. Call before init.
void prefer_host_heap();
// Calls every hook registered with gshmemx_register_context_hook with `ctx`.
void publish_context(const DeviceContext& ctx);
// Whether a hook is registered: the program runs gshmem kernels (gshmem::device registers one
// before main).
bool device_library_attached();

}  // namespace detail
}  // namespace gshmem
