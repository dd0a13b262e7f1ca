// The symmetric heap: GSHMEM_SYMMETRIC_SIZE per PE in host memory (a memfd) or GPU memory (CUDA
// VMM), mapped here and in every same-node peer (host/heap/segment.hpp). Allocation is
// collective: the PEs first agree that they all made the same call (an asymmetric call is
// reported on every PE and changes nothing), then each runs the same deterministic allocator, so
// offsets match everywhere, and a device heap backs the allocator's high-water mark with memory
// on every PE in the same step.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "host/bootstrap/bootstrap.hpp"
#include "host/heap/allocator.hpp"
#include "host/heap/segment.hpp"
#include "host/bootstrap/node_mesh.hpp"

namespace gshmem {

// Where the heap's memory lives: host memory, or GPU memory on cuda_device.
struct HeapPlacement {
  bool device = false;
  int cuda_device = -1;
  bool commit_all = false;  // back the whole heap at init (a network registers it once)
};

class SymmetricHeap {
 public:
  enum class Op : uint32_t { Malloc = 1, Calloc, Align, Realloc, Free };
  // Passed as `bytes` by gshmem_calloc when count * size overflows.
  static constexpr uint64_t kOverflow = ~0ull;
  // The heap's base address is a multiple of this, so gshmem_align can honour any alignment up
  // to it (address space is reserved, not memory).
  static constexpr uint64_t kBaseAlignment = uint64_t(1) << 30;

  using Placement = HeapPlacement;

  // Collective: creates this PE's segment and maps every same-node peer's.
  SymmetricHeap(Bootstrap& boot, NodeMesh& mesh, uint64_t bytes, const Placement& where = {});

  const char* kind() const { return segment_->kind(); }
  bool on_device() const { return segment_->cuda_device() >= 0; }
  int cuda_device() const { return segment_->cuda_device(); }
  char* base() const { return segment_->base(); }
  uint64_t size() const { return segment_->size(); }
  // Host-usable (peer bases as numbers for a device heap) and kernel-usable views.
  Segment view() const { return segment_->view(); }
  Segment device_view() const { return segment_->device_view(); }
  bool contains(const void* p) const {
    auto a = reinterpret_cast<uintptr_t>(p), b = reinterpret_cast<uintptr_t>(base());
    return a >= b && a - b < size();
  }

  // Internal space taken at init, in the same order on every PE (team sync words, scratch).
  uint64_t reserve(uint64_t bytes, uint64_t align, const char* what);
  // Collective, once the reservations are made: backs them with memory on every PE.
  void commit_reserved();
  // Zeroes [off, off + bytes) of this PE's copy (host memset or device memset).
  void zero(uint64_t off, uint64_t bytes) { segment_->zero(off, bytes); }
  // Called (on every PE, inside the collective heap call) after the backed size grew.
  void on_growth(std::function<void()> fn) { on_growth_ = std::move(fn); }

  // Collective heap calls. Return nullptr (after printing why) on bad input or exhaustion.
  // Throw Error on an asymmetric call (different calls or arguments on different PEs): every PE
  // detects it, and the PEs cannot continue in step.
  void* allocate(Op op, uint64_t bytes, uint64_t align, void* old, const char* call);

  const OffsetAllocator& allocator() const { return alloc_; }

 private:
  struct Request {
    uint32_t op;
    uint32_t valid;  // 0: this PE's arguments were bad (it printed why)
    uint64_t bytes;
    uint64_t align;
    uint64_t old;  // offset of the block for realloc/free
  };
  // Empty when the arguments are fine, else what is wrong, naming the argument.
  std::string check_request(const Request& r, void* old) const;
  void* apply(const Request& r);
  // Collective: backs the allocator's high-water mark; false (everywhere) when memory ran out.
  bool grow();

  Bootstrap& boot_;
  std::unique_ptr<HeapSegment> segment_;
  OffsetAllocator alloc_;
  std::function<void()> on_growth_;
};

}  // namespace gshmem
