// Hooks of the MoE layer for gshmem's own tests (not installed).
#pragma once

#include "gshmem/simt.hpp"

namespace gshmem::moe {

// Handles made after this call run the exchange steps with host thread groups of this shape
// (G = Block; a block per peer where the steps are per peer, as a kernel would launch them), not
// with the calling thread; `grid->blocks` is ignored. nullptr restores the calling thread. Every
// PE of a team must make its handles under the same setting.
void set_host_groups(const simt::Grid* grid);

}  // namespace gshmem::moe
