// A process forked from a running PE (a PyTorch DataLoader worker, say) inherits the PE's memory,
// sockets and mappings but none of its threads: every gshmem object it holds is the parent's,
// half alive. The child must neither use that state nor tear it down (a shutdown() on a shared
// socket, a goodbye to the launcher, a barrier on the shared heap, a join of a thread it does not
// have would all hit the parent's job). So a fork handler records that the process is such a
// child, the layers holding state drop it there (leaked, not closed: the child is about to exit
// or exec), and every call reports the fork.
#pragma once

#include <string>

namespace gshmem::forked {

// From now on a child forked from this process knows it was forked from PE `pe`; -1: no PE runs
// here any more (after finalize), a child is an ordinary process again. The first call installs
// the fork handler.
void set_pe(int pe);

// In a process forked from a running PE (or from such a child): that PE's number; else -1.
int parent_pe();
inline bool in_child() {
  return parent_pe() >= 0;
}

// What a call refused in such a child says after its name: "called in a process forked from PE
// N; gshmem state is not inherited across fork".
std::string reason();

// `fn` runs in every child forked from a running PE, in the fork handler (before fork() returns
// there), in registration order. For the layers above that hold the PE's state: they drop it.
// It must be async-signal-safe in spirit: no locks another thread of the parent might have held.
void on_child(void (*fn)());

}  // namespace gshmem::forked
