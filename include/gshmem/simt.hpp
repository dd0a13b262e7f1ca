// Host thread groups: a grid of host threads standing in for a kernel's blocks, so that code
// written over gshmem::Warp and gshmem::Block (the device API's group forms, the collectives'
// channels, anything templated on the group) runs on CPU PEs, under ThreadSanitizer too.
//
//   gshmem::simt::run({.blocks = 4, .threads = 64}, [&](unsigned block) {
//     gshmem::putmem<gshmem::Block>(ctx, dst + block * n, src + block * n, n, pe);
//   });
//
// Inside fn, Block::rank()/size()/sync() are the calling thread's index in its block, the block's
// thread count and a barrier of the block's threads; Warp the same for `warp` consecutive threads
// of the block; gshmem::block_in_grid() is `block`. As in a kernel, every thread of a group must
// make the same group calls in the same order, and groups of one grid may wait on each other
// (all of them run at once).
#pragma once

#include <functional>

namespace gshmem::simt {

struct Grid {
  unsigned blocks = 1;    // blocks run at once, each by its own threads
  unsigned threads = 32;  // threads per block, a multiple of warp
  unsigned warp = 32;     // threads per warp (32 as on the GPU; fewer keep small CPUs quick)
};

// Runs fn(block) on blocks * threads new host threads and returns once all have returned. An
// exception from any thread breaks every group's barriers (their waiting threads stop too) and
// is rethrown here after every thread has ended: a gshmem::Error through the error mode (thrown,
// or reported and the job ended), others as they are. A thread that returns while members of its
// warp or block wait at a sync, or that a member later waits for, is such an error (the group's
// threads made different syncs): it names the block, the thread and the group.
void run(const Grid& grid, const std::function<void(unsigned block)>& fn);

// True on a thread that simt::run started (Warp and Block are usable there).
bool in_group();

}  // namespace gshmem::simt
