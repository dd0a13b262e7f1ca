// The libfabric RDM transport: one endpoint per PE, an address vector of every PE, the symmetric
// segments registered for remote access, and posting with retry on -FI_EAGAIN. It knows nothing
// of commands, fence or quiet: the proxy builds those on top of completions, assuming nothing
// about the order in which operations land (EFA's SRD delivers reliably but unordered).
//
// Every operation is posted with FI_DELIVERY_COMPLETE: its completion means the data is visible
// at the target. That one rule is what makes put-with-signal, fence and quiet correct on an
// unordered network.
#pragma once

#include <rdma/fabric.h>
#include <rdma/fi_atomic.h>
#include <rdma/fi_domain.h>
#include <rdma/fi_endpoint.h>
#include <rdma/fi_errno.h>

#include <cstdint>
#include <deque>
#include <functional>
#include <random>
#include <string>
#include <unordered_set>
#include <vector>

#include "gshmem/device/amo_op.cuh"
#include "gshmem/device/channel.cuh"
#include "host/bootstrap/bootstrap.hpp"

namespace gshmem {

struct FabricOptions {
  std::string provider;         // "auto", or a libfabric provider name such as "tcp;ofi_rxm"
  std::string nic;              // domain to use (e.g. "eth0"): an error when the provider lacks it
  std::string nic_hint;         // topology's choice (an OS NIC name): used when a domain matches
  bool force_mr_local = false;  // behave as if the provider required FI_MR_LOCAL (tests)
  // The completion queue gets a file descriptor a thread can sleep on (wait_fd()). Every
  // completion then signals it: a cost per operation (about 2 us on tcp;ofi_rxm).
  bool wait_fd = true;
  // Ask for FI_PROGRESS_MANUAL where the provider offers both: no progress thread of the
  // provider's own; the engine's polls (the proxy thread's, the waiters') move the data. Only
  // where a thread always polls: no thread sleeps on wait_fd, which nobody would signal.
  bool manual_progress = false;
  bool inject_reorder = false;  // fault injection: post held operations in random order
  bool inject_delay = false;    // fault injection: hold posts and completions for a while
  // Fault injection that fails operations: this fraction of transmit completions become error
  // completions; this fraction of posts start a storm in which every post (and retry) returns
  // -FI_EAGAIN for about inject_storm_ms.
  double inject_error = 0;
  double inject_eagain = 0;
  double inject_storm_ms = 200;
  uint64_t inject_seed = 0;  // 0: from the clock (runs differ); else reproducible per PE
  // How long a post keeps retrying -FI_EAGAIN before it fails naming the operation and the peer
  // (GSHMEM_TIMEOUT; 0: as long as it takes).
  double eagain_timeout_s = 0;
  // The job is ending: a post retrying -FI_EAGAIN ends the process naming itself, as waits do
  // (nullptr: never).
  const AbortState* abort = nullptr;
};

// Fills the inject_* fields of `o` from GSHMEM_FABRIC_INJECT's value: a comma-separated list of
// reorder, delay, error[=RATE], eagain[=RATE], storm=MS, seed=N. Throws naming the bad item.
void parse_fabric_inject(const std::string& spec, FabricOptions* o);

// A local memory region to register: the symmetric heap, the program's static data, the proxy's
// bounce buffers.
struct FabricRegion {
  char* base;
  uint64_t size;
  int cuda_device = -1;  // >= 0: GPU memory, registered with FI_HMEM_CUDA (needs FI_HMEM)
};

// A provider and domain: what fi_getinfo offers (describe), or what a Fabric opened
// (description()), for gshmem-info, the collectives' planner and the tests.
struct FabricDescription {
  std::string provider, fabric, domain;
  std::string caps, mr_mode;
  bool atomics = false;
  bool delivery_complete = false;
  size_t inject_size = 0;
  std::string progress;         // "auto" (the provider's threads) or "manual" (the polls)
  bool manual_offered = false;  // describe(): manual progress is offered too (opened on request)
};

class Fabric {
 public:
  // The provider GSHMEM_FABRIC_PROVIDER (or `wanted`) resolves to here, and the domains it offers.
  static std::vector<FabricDescription> describe(const std::string& wanted);

  // Collective over `boot`: opens the provider, registers `regions` (the first `symmetric` of
  // them are symmetric: their addresses and keys are exchanged), and builds the address vector.
  Fabric(Bootstrap& boot, const FabricOptions& options, const std::vector<FabricRegion>& regions,
         size_t symmetric);
  ~Fabric();
  Fabric(const Fabric&) = delete;
  Fabric& operator=(const Fabric&) = delete;

  // The provider and domain this fabric opened: a real provider name ("efa", "tcp;ofi_rxm"),
  // also when GSHMEM_FABRIC_PROVIDER is "auto"; the same on every PE.
  const FabricDescription& description() const { return desc_; }
  // The provider moves data in threads of its own (FI_PROGRESS_AUTO: sockets), which need a core
  // while traffic flows; a waiter that finds nothing should give its core away.
  bool progresses_itself() const { return desc_.progress == "auto"; }
  bool needs_local_mr() const { return local_mr_; }
  // Whether the provider applies this atomic itself (else the proxy emulates it with messages).
  bool native_atomic(detail::AmoType type, AmoOp op) const;

  // Posts; `ctx` points at a caller-owned fi_context2 that comes back in the completion.
  // Buffers outside the registered regions are allowed only when !needs_local_mr().
  void write(int pe, int segment, uint64_t offset, const void* src, size_t bytes, void* ctx);
  void read(int pe, int segment, uint64_t offset, void* dst, size_t bytes, void* ctx);
  // op/type as in the channel; operand, compare and result are 8-byte slots in registered memory.
  void atomic(int pe, int segment, uint64_t offset, detail::AmoType type, AmoOp op,
              const void* operand, const void* compare, void* result, void* ctx);
  void send(int pe, const void* buf, size_t bytes, void* ctx);
  void recv(void* buf, size_t bytes, void* ctx);

  // Drains the completion queue (and, under fault injection, releases held posts and
  // completions). Calls done(ctx, ok, message) for each; a failed operation reports why.
  // Returns how many completions were delivered.
  using Done = std::function<void(void* ctx, bool ok, const std::string& why)>;
  int progress(const Done& done);
  // Operations posted (or held) whose completion has not been delivered yet.
  size_t in_flight() const { return in_flight_; }
  // A file descriptor that becomes readable when the completion queue may have news, and
  // whether it is safe to block on it now (false: progress first; also false while fault
  // injection holds operations back).
  int wait_fd() const { return wait_fd_; }
  bool may_block();

 private:
  struct Held {
    std::function<int()> post;  // returns 0 or a negative fi_errno, as post()'s operation
    uint64_t not_before;
    const char* what;
    int pe;
  };
  struct HeldCompletion {
    void* ctx;
    bool ok;
    std::string why;
    uint64_t not_before;
  };

  // Posts `op` (a callable returning 0 or a negative fi_errno): at once, retrying while the
  // provider is out of resources, or held back under fault injection. A template, so that the
  // common path wraps the post in no std::function (a heap allocation per operation).
  template <class Op>
  void post(Op&& op, const char* what, int pe) {
    ++in_flight_;
    if (options_.inject_delay || options_.inject_reorder) {
      hold(std::function<int()>(std::forward<Op>(op)), what, pe);
      return;
    }
    // The provider is out of resources: make progress (completions are kept for later).
    while (!attempt(op, what, pe)) read_cq(nullptr);
  }
  void hold(std::function<int()> op, const char* what, int pe);
  // The one place posts reach the provider (and fault injection makes them fail): true when
  // posted, false on -FI_EAGAIN; throws on another error, or when -FI_EAGAIN has lasted longer
  // than eagain_timeout_s.
  template <class Op>
  bool attempt(Op& op, const char* what, int pe) {
    if (options_.inject_eagain > 0 && eagain_storm()) return refused(-FI_EAGAIN, what, pe);
    const int rc = op();
    if (rc == 0) {
      eagain_since_ = 0;
      return true;
    }
    return refused(rc, what, pe);
  }
  // Fault injection (GSHMEM_FABRIC_INJECT=eagain): whether this post meets a -FI_EAGAIN storm.
  bool eagain_storm();
  // attempt()'s answer to a post that returned rc (not 0).
  bool refused(int rc, const char* what, int pe);
  double uniform();
  void* desc(const void* p, size_t bytes) const;
  uint64_t remote_addr(int pe, int segment, uint64_t offset) const;
  int read_cq(const Done& done);
  uint64_t jitter();

  FabricOptions options_;
  FabricDescription desc_;
  int my_pe_ = 0;
  fi_info* info_ = nullptr;
  fid_fabric* fabric_ = nullptr;
  fid_domain* domain_ = nullptr;
  fid_ep* ep_ = nullptr;
  fid_av* av_ = nullptr;
  fid_cq* cq_ = nullptr;
  bool local_mr_ = false;
  bool virt_addr_ = false;
  std::vector<FabricRegion> regions_;
  std::vector<fid_mr*> mrs_;
  std::vector<fi_addr_t> addrs_;              // by PE
  std::vector<std::vector<uint64_t>> keys_;   // by PE, then segment
  std::vector<std::vector<uint64_t>> bases_;  // by PE, then segment
  size_t in_flight_ = 0;
  // Receives posted and not yet completed: cancelled before the endpoint closes (the sockets
  // provider frees only its preallocated receive entries at close, not those it had to allocate).
  std::unordered_set<void*> posted_recvs_;
  int wait_fd_ = -1;
  std::deque<Held> held_;
  std::vector<HeldCompletion> held_done_;
  std::mt19937_64 rng_;
  uint64_t storm_until_ = 0;  // injected -FI_EAGAIN until then (ns)
  uint64_t storms_ = 0;
  uint64_t eagain_since_ = 0;  // the provider has answered -FI_EAGAIN since then (0: it has not)
};

}  // namespace gshmem
