#include "host/base/fork.hpp"

#include <pthread.h>

#include <array>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <mutex>

#include "host/base/log.hpp"

namespace gshmem::forked {

namespace {

std::atomic<int> g_pe{-1};
int g_parent_pe = -1;  // written only in the child's fork handler, before it has other threads
// A fixed table, so the handler walks it without taking a lock (none of the parent's locks is
// usable in the child). Registration is rare (once per layer) and happens under g_register.
std::array<std::atomic<void (*)()>, 8> g_hooks{};
std::mutex g_register;

void child_after_fork() {
  int pe = g_pe.load(std::memory_order_relaxed);
  if (pe < 0) return;  // no PE ran in the parent: an ordinary fork
  g_parent_pe = pe;
  g_pe.store(-1, std::memory_order_relaxed);  // this child is no PE; its own children inherit
  log::set_pe(-1);                            // its lines carry its own pid, and no PE number
  for (auto& hook : g_hooks) {
    if (auto fn = hook.load(std::memory_order_acquire)) fn();
  }
}

}  // namespace

void set_pe(int pe) {
  static std::once_flag installed;
  std::call_once(installed, [] {
    if (int rc = pthread_atfork(nullptr, nullptr, child_after_fork)) {
      log::error(
          "gshmem_init: pthread_atfork failed (%d): a forked child would tear down "
          "this PE's state",
          rc);
    }
  });
  g_pe.store(pe, std::memory_order_relaxed);
}

int parent_pe() {
  return g_parent_pe;
}

std::string reason() {
  return "called in a process forked from PE " + std::to_string(g_parent_pe) +
         "; gshmem state is not inherited across fork";
}

void on_child(void (*fn)()) {
  std::lock_guard<std::mutex> lock(g_register);
  for (auto& hook : g_hooks) {
    if (hook.load(std::memory_order_relaxed) == fn) return;
  }
  for (auto& hook : g_hooks) {
    if (!hook.load(std::memory_order_relaxed)) {
      hook.store(fn, std::memory_order_release);
      return;
    }
  }
  std::fprintf(stderr, "gshmem: internal error: more than %zu fork hooks\n", g_hooks.size());
  std::abort();
}

}  // namespace gshmem::forked
