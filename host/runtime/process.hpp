// The process's share of the runtime: the default runtime and context the C API works on, the
// context hooks of libraries that run gshmem kernels, and the heap space layers above the
// runtime register before init. Light on purpose: the C API includes this, not runtime.hpp.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "gshmem/device/context.cuh"

namespace gshmem {

class Runtime;

namespace detail {

// The default context the C API works on; zero (n_pes 0) outside init..finalize.
extern DeviceContext g_default_ctx;
// The default runtime, nullptr outside init..finalize.
Runtime* default_runtime();
// gshmem_init and gshmem_finalize install and remove it (nullptr); the context follows.
void set_default_runtime(Runtime* rt);
// Set by gshmem_finalize: lets messages tell "before init" from "after finalize".
bool finalized();
// Why a call finds no default runtime, for the message after the call's name: "called before
// gshmem_init", "called after gshmem_finalize", or, in a process forked from a PE, that gshmem
// state is not inherited across fork (host/base/fork.hpp). `init` and `finalize` name the calls
// the program uses (shmem_init, say).
std::string not_running(const char* init = "gshmem_init", const char* finalize = "gshmem_finalize");

// OpenSHMEM programs (host/shmem) are CPU PE programs that load and store their heap: for them
// GSHMEM_HEAP=auto, or unset, means host memory. Call before init.
void prefer_host_heap();
bool host_heap_preferred();

// gshmemx_register_context_hook: `hook` gets the kernel-usable context at every change (and at
// once when registered after init).
using ContextHook = void (*)(const void* ctx, size_t bytes);
void register_context_hook(ContextHook hook);
// Calls every registered hook with `ctx`.
void publish_context(const DeviceContext& ctx);
// Whether a hook is registered: the program runs gshmem kernels (gshmem::device registers one
// before main).
bool device_library_attached();

}  // namespace detail

// Heap space a layer above the runtime keeps next to every team's sync words and once per PE:
// the collectives' flags and scratch pool. That layer registers the sizes before init (from a
// static initializer of libgshmem); Runtime reserves them in every PE's heap at init, and Teams
// hands out the offsets (coll_area_offset, coll_pool_offset). Unregistered: none. One registrant:
// a second registration is an internal error.
struct TeamAreaSizes {
  uint64_t (*per_team)(int n_pes) = nullptr;  // bytes in each team slot
  uint64_t (*pool)() = nullptr;               // bytes of the one pool, read at init
};
void register_team_area(TeamAreaSizes sizes);
TeamAreaSizes team_area();

// Text a layer above the runtime shares from PE 0 at init, so that every PE decides alike (the
// collectives' calibration file): `payload` runs on PE 0 only, before init's first broadcast;
// `receive` runs on every PE with PE 0's text (empty when there is none) before init returns.
// Registered like TeamAreaSizes (a static initializer, one registrant).
struct InitShare {
  std::string (*payload)() = nullptr;
  void (*receive)(const std::string& text) = nullptr;
};
void register_init_share(InitShare share);
InitShare init_share();

}  // namespace gshmem
