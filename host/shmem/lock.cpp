// OpenSHMEM distributed locks: an MCS queue lock kept entirely in the user's symmetric long.
//
// The long is two 32-bit words. On PE 0 the first is the queue's tail: 1 + the PE that queued
// last, 0 when the lock is free. On every PE the second is that PE's queue node: bits 0..30 hold
// 1 + its successor (0: none yet), bit 31 says it is still waiting. A PE enqueues with one swap
// on PE 0's tail, links itself into its predecessor's node and then spins on its own node only,
// so waiting costs no network traffic; the holder hands the lock to its successor by clearing
// that bit. The lock is back to all zeros whenever it is free, as the spec's initial value.
// Each word is only ever touched by 32-bit atomics.
#include <string>

#include "host/shmem/common.hpp"

using gshmem::AmoOp;
using gshmem::compat::ctx;
namespace detail = gshmem::detail;

namespace {

static_assert(sizeof(long) == 2 * sizeof(uint32_t), "the lock word holds tail and node");

constexpr uint32_t kWaiting = 1u << 31;
constexpr uint32_t kSuccessor = kWaiting - 1;

struct LockWords {
  uint32_t* tail;  // meaningful on PE 0
  uint32_t* node;  // this PE's queue node
};

LockWords words(long* lock, const char* call) {
  if (!lock) gshmem::compat::fail(call, "lock", "lock is NULL");
  auto* w = reinterpret_cast<uint32_t*>(lock);
  return {w, w + 1};
}

template <AmoOp Op>
uint32_t amo(uint32_t* word, uint32_t value, uint32_t cond, int pe, const char* call) {
  return gshmem::hostops::atomic<Op>(ctx(), word, value, cond, pe, {call});
}

uint32_t load(const uint32_t* word) {
  return detail::load_acquire(word);
}

// Waits on this PE's own node until `done(node)`; returns the node's value then.
template <class Done>
uint32_t wait_node(uint32_t* node, const char* call, Done done) {
  uint32_t seen = 0;
  detail::wait_for(ctx(), {call}, [&] { return done(seen = load(node)); });
  return seen;
}

}  // namespace

extern "C" {

void shmem_set_lock(long* lock) {
  constexpr const char* call = "shmem_set_lock";
  LockWords w = words(lock, call);
  uint32_t me = uint32_t(ctx().my_pe) + 1;
  // Waiting must be in place before any predecessor can see us and clear it.
  amo<AmoOp::Set>(w.node, kWaiting, 0, ctx().my_pe, call);
  detail::thread_fence_system();
  uint32_t prev = amo<AmoOp::Swap>(w.tail, me, 0, 0, call);
  if (prev == 0) return;  // the lock was free
  amo<AmoOp::Or>(w.node, me, 0, int(prev) - 1, call);
  wait_node(w.node, call, [](uint32_t v) { return (v & kWaiting) == 0; });
}

int shmem_test_lock(long* lock) {
  constexpr const char* call = "shmem_test_lock";
  LockWords w = words(lock, call);
  uint32_t me = uint32_t(ctx().my_pe) + 1;
  return amo<AmoOp::CompareSwap>(w.tail, me, 0, 0, call) == 0 ? 0 : 1;
}

void shmem_clear_lock(long* lock) {
  constexpr const char* call = "shmem_clear_lock";
  LockWords w = words(lock, call);
  uint32_t me = uint32_t(ctx().my_pe) + 1;
  // The critical section's puts and atomics are complete before the next holder can start.
  gshmem::hostops::quiet(ctx());
  uint32_t next = load(w.node) & kSuccessor;
  if (next == 0) {
    if (amo<AmoOp::CompareSwap>(w.tail, 0, me, 0, call) == me) {
      amo<AmoOp::Set>(w.node, 0, 0, ctx().my_pe, call);
      return;  // nobody queued behind us: the lock is free
    }
    // Someone swapped in after us and is about to link itself into our node.
    next = wait_node(w.node, call, [](uint32_t v) { return (v & kSuccessor) != 0; }) & kSuccessor;
  }
  amo<AmoOp::Set>(w.node, 0, 0, ctx().my_pe, call);
  amo<AmoOp::And>(w.node, ~kWaiting, 0, int(next) - 1, call);
}

}  // extern "C"
