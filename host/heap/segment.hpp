// Where the symmetric heap's memory comes from. SymmetricHeap owns the allocator and the
// collective-call checks; a HeapSegment owns this PE's copy and the mappings of its same-node
// peers' copies. Host heaps are memfds (shared_segment.hpp, here), device heaps CUDA VMM
// or IPC memory (device_segment.hpp, here; no_device_segment.cpp without CUDA).
#pragma once

#include <cstdint>
#include <memory>

#include "gshmem/device/context.cuh"
#include "host/bootstrap/bootstrap.hpp"
#include "host/bootstrap/node_mesh.hpp"

namespace gshmem {

class HeapSegment {
 public:
  virtual ~HeapSegment() = default;

  virtual const char* kind() const = 0;  // "host" or "device"
  virtual char* base() const = 0;
  virtual uint64_t size() const = 0;
  // base() is a multiple of this (gshmem_align honours alignments up to it).
  virtual uint64_t base_alignment() const = 0;
  // peer_base is a host array; its entries are device addresses for a device heap (the host may
  // compute with them, not dereference them).
  virtual Segment view() const = 0;
  // The same with peer_base in memory kernels can read. Equal to view() for host memory.
  virtual Segment device_view() const { return view(); }
  virtual size_t mapped_peers() const = 0;
  // The CUDA device the memory is on, -1 for host memory.
  virtual int cuda_device() const { return -1; }

  // Collective (every PE, same bytes): memory backs [0, bytes) on every PE and in every
  // mapping here. false on every PE when some PE could not get the memory (nothing changed).
  virtual bool commit(uint64_t bytes) { return bytes <= size(); }
  virtual uint64_t committed() const { return size(); }

  // This PE's own copy, local only: zero a range, move a range (ranges may overlap).
  virtual void zero(uint64_t off, uint64_t bytes) = 0;
  virtual void move(uint64_t dst, uint64_t src, uint64_t bytes) = 0;
};

// Host memory: a memfd per PE, mapped by every same-node peer. Collective over the node.
std::unique_ptr<HeapSegment> make_host_heap(NodeMesh& mesh, int n_pes, uint64_t bytes,
                                            uint64_t alignment);

// GPU memory on `device`: CUDA VMM exported as POSIX FDs when the device supports both, else one
// cudaMalloc shared with CUDA IPC. commit_all: back the whole size now (a network transport
// registers the heap once). Collective over the bootstrap. Throws Error without CUDA.
std::unique_ptr<HeapSegment> make_device_heap(Bootstrap& boot, NodeMesh& mesh, uint64_t bytes,
                                              uint64_t alignment, int device, bool commit_all);

}  // namespace gshmem
