// The program's global and static variables as a symmetric segment (OpenSHMEM allows them as
// remote targets). At init, the executable's writable data (after RELRO: .data, .bss) is copied
// into a memfd that is then mapped over it at the same address, MAP_SHARED. The program sees no
// difference; same-node peers map the memfd like a heap, and the network transport registers it.
// Every PE runs the same executable, so a variable's offset in the segment is the same
// everywhere even though ASLR loads the program at different addresses.
#pragma once

#include <memory>

#include "host/heap/host_segment.hpp"

namespace gshmem {

// Remaps this process's data segment onto a memfd; nullptr when there is nothing to share.
// Call before other threads start: a write made by another thread while the data is copied
// would be lost.
HostSegment share_static_data();

}  // namespace gshmem
