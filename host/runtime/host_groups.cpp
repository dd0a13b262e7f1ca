// Host thread groups (gshmem/simt.hpp): the runner that starts a grid of host threads, and the
// host side of Warp and Block (gshmem/device/group.cuh): ranks from the calling thread, syncs
// through the group's barrier.
//
// A barrier blocks (mutex and condition variable) rather than spins: the tests run dozens of
// such threads per PE on a few cores, and a spinning member would take the core the last one
// needs. Its waits end: either every member arrives, or the grid breaks (a member threw, or
// returned while others wait for it), and the members still waiting stop with it.
#include <condition_variable>
#include <cstdio>
#include <exception>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "gshmem/device/group.cuh"
#include "gshmem/gshmem.hpp"
#include "gshmem/simt.hpp"
#include "host/base/error.hpp"
#include "host/runtime/hostops.hpp"

namespace gshmem {

namespace simt {
namespace {

constexpr const char* kRun = "gshmem::simt::run";
// Enough for a grid of 8 blocks of 512 (the collective kernel's launch), with room.
constexpr unsigned kMaxThreads = 8192;

// Thrown on a waiting member when its grid broke elsewhere; the runner swallows it.
struct Broken {};

struct Shared;

class Barrier {
 public:
  void init(unsigned members, const char* scope, unsigned block, unsigned first) {
    members_ = members;
    scope_ = scope;
    block_ = block;
    first_ = first;
  }
  void arrive_and_wait(Shared& grid, unsigned thread);
  // `thread` returned from the grid's function: none of this group may wait for it any more.
  void leave(unsigned thread);
  void wake() {
    std::lock_guard<std::mutex> lk(mu_);
    cv_.notify_all();
  }

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  unsigned members_ = 0, waiting_ = 0, gone_ = 0;
  unsigned last_gone_ = 0;
  uint64_t generation_ = 0;
  const char* scope_ = "";
  unsigned block_ = 0, first_ = 0;  // for messages: the group's block and first thread
};

struct Shared {
  Grid grid;
  std::vector<Barrier> blocks;  // [blocks]
  std::vector<Barrier> warps;   // [blocks][threads / warp]
  std::mutex mu;
  std::exception_ptr first;  // the first failure, rethrown by run()
  bool broken = false;       // under mu; read by waiters under their barrier's lock after wake

  explicit Shared(const Grid& g)
      : grid(g), blocks(g.blocks), warps(size_t(g.blocks) * (g.threads / g.warp)) {
    for (unsigned b = 0; b < g.blocks; ++b) {
      blocks[b].init(g.threads, "block", b, 0);
      for (unsigned w = 0; w < g.threads / g.warp; ++w) {
        warps[size_t(b) * (g.threads / g.warp) + w].init(g.warp, "warp", b, w * g.warp);
      }
    }
  }
  bool is_broken() {
    std::lock_guard<std::mutex> lk(mu);
    return broken;
  }
  // Records the failure (the first one wins) and releases every waiting member.
  void fail(std::exception_ptr e) {
    {
      std::lock_guard<std::mutex> lk(mu);
      if (!first) first = e;
      if (broken) return;
      broken = true;
    }
    for (Barrier& b : blocks) b.wake();
    for (Barrier& w : warps) w.wake();
  }
};

[[noreturn]] void diverged(const std::string& why) {
  throw Error(GSHMEM_ERROR_INVALID_ARGUMENT, kRun, "fn",
              why + " (every thread of a warp or block must make the same syncs)");
}

void Barrier::arrive_and_wait(Shared& grid, unsigned thread) {
  std::unique_lock<std::mutex> lk(mu_);
  if (gone_) {
    diverged("thread " + std::to_string(thread) + " of block " + std::to_string(block_) +
             " waits at a " + scope_ + " sync, but thread " + std::to_string(last_gone_) +
             " of its " + scope_ + " has returned");
  }
  if (++waiting_ == members_) {
    waiting_ = 0;
    ++generation_;
    cv_.notify_all();
    return;
  }
  const uint64_t gen = generation_;
  // The grid's flag is read under its own lock; fail() takes this barrier's lock after setting
  // it, so a waiter either sees it here or is woken after.
  while (generation_ == gen) {
    if (grid.is_broken()) throw Broken{};
    cv_.wait(lk);
  }
}

void Barrier::leave(unsigned thread) {
  std::lock_guard<std::mutex> lk(mu_);
  if (waiting_) {
    diverged("thread " + std::to_string(thread) + " of block " + std::to_string(block_) +
             " returned while " + std::to_string(waiting_) + " thread(s) of its " + scope_ +
             " (threads " + std::to_string(first_) + ".." + std::to_string(first_ + members_ - 1) +
             ") wait at a " + scope_ + " sync");
  }
  ++gone_;
  last_gone_ = thread;
}

struct Lane {
  Shared* grid;
  unsigned block, thread;
  Barrier* warp;
  Barrier* block_barrier;
};

thread_local Lane* t_lane = nullptr;

void lane_main(Shared& sh, unsigned block, unsigned thread,
               const std::function<void(unsigned)>& fn) {
  const unsigned per_block = sh.grid.threads / sh.grid.warp;
  Lane lane{&sh, block, thread, &sh.warps[size_t(block) * per_block + thread / sh.grid.warp],
            &sh.blocks[block]};
  t_lane = &lane;
  try {
    fn(block);
    lane.warp->leave(thread);
    lane.block_barrier->leave(thread);
  } catch (const Broken&) {
    // The grid failed elsewhere; that failure is the one reported.
  } catch (...) {
    sh.fail(std::current_exception());
  }
  t_lane = nullptr;
}

[[noreturn]] void bad_grid(const std::string& why) {
  raise(Error(GSHMEM_ERROR_INVALID_ARGUMENT, kRun, "grid", why));
}

}  // namespace

bool in_group() {
  return t_lane != nullptr;
}

void run(const Grid& g, const std::function<void(unsigned)>& fn) {
  if (t_lane) bad_grid("called from a thread of another simt::run (grids do not nest)");
  if (g.blocks < 1 || g.threads < 1 || g.warp < 1 || g.threads % g.warp != 0) {
    bad_grid("grid {blocks=" + std::to_string(g.blocks) + ", threads=" + std::to_string(g.threads) +
             ", warp=" + std::to_string(g.warp) +
             "}: blocks, threads and warp must be positive and threads a multiple of warp");
  }
  if (uint64_t(g.blocks) * g.threads > kMaxThreads) {
    bad_grid(std::to_string(uint64_t(g.blocks) * g.threads) +
             " threads (blocks x threads) is "
             "more than the " +
             std::to_string(kMaxThreads) + " a grid may start");
  }
  Shared sh(g);
  std::vector<std::thread> threads;
  threads.reserve(size_t(g.blocks) * g.threads);
  try {
    for (unsigned b = 0; b < g.blocks; ++b) {
      for (unsigned t = 0; t < g.threads; ++t) {
        threads.emplace_back([&sh, &fn, b, t] { lane_main(sh, b, t, fn); });
      }
    }
  } catch (const std::system_error& e) {
    // The threads started so far would wait for the missing ones forever.
    sh.fail(std::make_exception_ptr(Error(GSHMEM_ERROR_INTERNAL, kRun, "grid",
                                          std::string("could not start a thread: ") + e.what())));
  }
  for (std::thread& t : threads) t.join();
  if (!sh.first) return;
  try {
    std::rethrow_exception(sh.first);
  } catch (const Error& e) {
    hostops::on_gpu::fail(default_context(), e);
  }
}

}  // namespace simt

namespace detail {

namespace {

simt::Lane& lane(HostScope s) {
  if (!simt::t_lane) {
    const char* group = s == HostScope::Warp ? "gshmem::Warp" : "gshmem::Block";
    raise(Error(GSHMEM_ERROR_INVALID_ARGUMENT, group, "",
                std::string(group) +
                    " used on a host thread that gshmem::simt::run did not start (on the host, "
                    "warps and blocks are host thread groups: gshmem/simt.hpp)"));
  }
  return *simt::t_lane;
}

}  // namespace

unsigned host_group_rank(HostScope s) {
  simt::Lane& l = lane(s);
  return s == HostScope::Warp ? l.thread % l.grid->grid.warp : l.thread;
}

unsigned host_group_size(HostScope s) {
  simt::Lane& l = lane(s);
  return s == HostScope::Warp ? l.grid->grid.warp : l.grid->grid.threads;
}

void host_group_sync(HostScope s) {
  simt::Lane& l = lane(s);
  (s == HostScope::Warp ? l.warp : l.block_barrier)->arrive_and_wait(*l.grid, l.thread);
}

unsigned host_block_index() {
  return lane(HostScope::Block).block;
}

}  // namespace detail
}  // namespace gshmem
