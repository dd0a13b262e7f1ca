// The host side of the inline device API's slow paths (gshmem/device/context.cuh, wait.cuh):
// the messages of bad input and failed waits, and how a waiting host thread drives the network
// and backs off.
#include <sched.h>
#include <time.h>

#include <cstdio>
#include <string>

#include "gshmem/device/context.cuh"
#include "host/base/env.hpp"
#include "host/base/error.hpp"
#include "host/base/log.hpp"
#include "host/runtime/hostops.hpp"
#include "host/runtime/process.hpp"
#include "host/runtime/runtime.hpp"

namespace gshmem {

namespace detail {

// Through the context's runtime, as every host call reports (hostops.cpp).
using hostops::on_gpu::fail;

namespace {

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
      why = not_running();
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
    case BadInput::GroupShape:  // device only: host code has no warps
      which = "";
      why = "a _warp call in a block of " + std::to_string(bytes) +
            " threads, which is not a multiple of 32";
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
  if (!rt || !rt->network()) return false;
  // The engine's own waits and posts fail naming the fabric call: end the job with that.
  try {
    return rt->network()->drive(post_only);
  } catch (const Error& e) {
    fail(c, e);
  }
}

bool host_backoff(const DeviceContext& c, uint32_t spins, uint64_t idle_ns) {
  (void)spins;
  // Waits poll for as long as they last, unless GSHMEM_WAIT_SLEEP says when to nap: a PE whose
  // CPU sleeps answers late even the operations it takes no part in. Measured: sockets' fetch_add
  // to a PE waiting in a barrier took 73-108 us with the target napping after 200 ms (the old
  // default), 54-66 us polling, against 55-76 us for the raw libfabric loop, whose target polls.
  auto* rt = static_cast<Runtime*>(c.host_runtime);
  const uint64_t nap_after = rt ? rt->wait_sleep_ns() : 0;
  if (!nap_after || idle_ns < nap_after) {
    sched_yield();
    return false;
  }
  // A long wait: the peer is busy with something slow; give the core away for a moment. The
  // network's news ends the nap at once: rxm-style targets produce no completion for incoming
  // writes, so only the wait fd shows them. Without a wait fd the network answers at once where
  // the proxy polls (no nap), and naps a plain pause where it naps (GSHMEM_PROXY_IDLE=nap).
  uint64_t ns = idle_ns / 10 < nap_after ? 20000 : 200000;
  if (rt->network()) return rt->network()->wait_for_news(ns);
  timespec ts{0, long(ns)};
  nanosleep(&ts, nullptr);
  return false;
}

}  // namespace detail
}  // namespace gshmem
