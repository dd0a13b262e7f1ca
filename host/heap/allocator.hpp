// Deterministic first-fit allocator over offsets. Every PE runs the same sequence of calls on its
// own instance, so every PE gets the same offsets: that is what makes the heap symmetric.
#pragma once

#include <cstdint>
#include <map>
#include <optional>

namespace gshmem {

class OffsetAllocator {
 public:
  static constexpr uint64_t kGranule = 64;  // every block starts on and spans whole cache lines

  explicit OffsetAllocator(uint64_t size);

  // align: a power of two (at least kGranule is used). nullopt when no free block fits.
  std::optional<uint64_t> allocate(uint64_t bytes, uint64_t align);
  // Size of the block that starts at off, or 0 when no allocated block starts there.
  uint64_t block_size(uint64_t off) const;
  // Grows or shrinks the block at off without moving it; false when the space is not free.
  bool resize(uint64_t off, uint64_t bytes);
  // False when no allocated block starts at off.
  bool release(uint64_t off);

  uint64_t capacity() const { return size_; }
  uint64_t used() const { return used_bytes_; }
  uint64_t largest_free() const;
  // End of the highest block in use (0 when none): what must be backed by memory.
  uint64_t high_water() const {
    return used_.empty() ? 0 : used_.rbegin()->first + used_.rbegin()->second;
  }
  size_t blocks() const { return used_.size(); }

 private:
  static uint64_t round_up(uint64_t v, uint64_t a) { return (v + a - 1) / a * a; }
  void add_free(uint64_t off, uint64_t bytes);

  uint64_t size_;
  uint64_t used_bytes_ = 0;
  std::map<uint64_t, uint64_t> free_;  // offset -> bytes, coalesced
  std::map<uint64_t, uint64_t> used_;  // offset -> bytes
};

}  // namespace gshmem
