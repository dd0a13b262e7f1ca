#include "host/runtime/process.hpp"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <vector>

#include "gshmem/gshmem.hpp"
#include "host/base/fork.hpp"
#include "host/runtime/runtime.hpp"

namespace gshmem {

namespace detail {

DeviceContext g_default_ctx{};

namespace {
Runtime* g_runtime = nullptr;
bool g_finalized = false;
bool g_prefer_host_heap = false;
std::mutex g_hook_mutex;
std::vector<ContextHook> g_hooks;

// In a child forked from the PE: the runtime is the parent's. With no default runtime and an empty
// context, every call through either reports the fork (not_running), and none reaches the state.
void drop_in_child() {
  g_runtime = nullptr;
  g_default_ctx = DeviceContext{};
}
}  // namespace

Runtime* default_runtime() {
  return g_runtime;
}
bool finalized() {
  return g_finalized;
}
void set_default_runtime(Runtime* rt) {
  g_runtime = rt;
  g_default_ctx = rt ? rt->context() : DeviceContext{};
  if (!rt) g_finalized = true;
  if (rt) forked::on_child(drop_in_child);
  forked::set_pe(rt ? rt->my_pe() : -1);
}

std::string not_running(const char* init, const char* finalize) {
  if (forked::in_child()) return forked::reason();
  return std::string("called ") + (g_finalized ? "after " : "before ") +
         (g_finalized ? finalize : init);
}

void prefer_host_heap() {
  g_prefer_host_heap = true;
}
bool host_heap_preferred() {
  return g_prefer_host_heap;
}

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
// Written by static initializers, before main: constant-initialised, so never seen unset.
TeamAreaSizes g_team_area{};
}  // namespace

void register_team_area(TeamAreaSizes sizes) {
  // One registrant (the collectives); a second would take the first one's space.
  if (g_team_area.per_team || g_team_area.pool) {
    std::fprintf(stderr, "gshmem: internal error: a second layer registered team-area sizes\n");
    std::abort();
  }
  g_team_area = sizes;
}
TeamAreaSizes team_area() {
  return g_team_area;
}

namespace {
InitShare g_init_share{};
}  // namespace

void register_init_share(InitShare share) {
  if (g_init_share.payload || g_init_share.receive) {
    std::fprintf(stderr, "gshmem: internal error: a second layer registered an init share\n");
    std::abort();
  }
  g_init_share = share;
}
InitShare init_share() {
  return g_init_share;
}

const DeviceContext& default_context() {
  return detail::g_default_ctx;
}

}  // namespace gshmem
