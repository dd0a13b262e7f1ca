// The symmetric heap in host memory: one memfd per PE of GSHMEM_SYMMETRIC_SIZE, mapped here and
// in every same-node peer. Allocation is collective: the PEs first agree that they all made the
// same call (an asymmetric call is reported on every PE and changes nothing), then each runs the
// same deterministic allocator, so offsets match everywhere.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "host/bootstrap/bootstrap.hpp"
#include "host/heap/allocator.hpp"
#include "transports/mapped/node_mesh.hpp"
#include "transports/mapped/shared_segment.hpp"

namespace gshmem {

class SymmetricHeap {
 public:
  enum class Op : uint32_t { Malloc = 1, Calloc, Align, Realloc, Free };
  // Passed as `bytes` by gshmem_calloc when count * size overflows.
  static constexpr uint64_t kOverflow = ~0ull;
  // The heap's base address is a multiple of this, so gshmem_align can honour any alignment up
  // to it (address space is reserved, not memory).
  static constexpr uint64_t kBaseAlignment = uint64_t(1) << 30;

  // Collective: creates this PE's segment and maps every same-node peer's.
  SymmetricHeap(Bootstrap& boot, NodeMesh& mesh, uint64_t bytes);

  char* base() const { return segment_.base(); }
  uint64_t size() const { return segment_.size(); }
  Segment view() const { return segment_.view(); }
  bool contains(const void* p) const {
    auto a = reinterpret_cast<uintptr_t>(p), b = reinterpret_cast<uintptr_t>(base());
    return a >= b && a - b < size();
  }

  // Internal space taken at init, in the same order on every PE (team sync words, scratch).
  uint64_t reserve(uint64_t bytes, uint64_t align, const char* what);

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

  Bootstrap& boot_;
  SharedSegment segment_;
  OffsetAllocator alloc_;
};

}  // namespace gshmem
