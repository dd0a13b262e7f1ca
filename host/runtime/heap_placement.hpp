// Where a PE's symmetric heap goes (GSHMEM_HEAP), decided together by every PE.
#pragma once

#include "host/bootstrap/bootstrap.hpp"
#include "host/bootstrap/node_mesh.hpp"
#include "host/heap/heap.hpp"

namespace gshmem {

// Collective over the bootstrap. GSHMEM_HEAP=auto takes the GPU when one is usable and the
// program runs gshmem kernels; device insists on one; host never takes it. Throws Error naming
// GSHMEM_HEAP when a GPU is required and missing, or when the PEs would disagree.
HeapPlacement choose_heap(Bootstrap& boot, const NodeMesh& mesh);

}  // namespace gshmem
