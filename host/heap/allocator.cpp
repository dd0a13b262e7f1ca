#include "host/heap/allocator.hpp"

#include <algorithm>

namespace gshmem {

OffsetAllocator::OffsetAllocator(uint64_t size) : size_(size / kGranule * kGranule) {
  if (size_) free_.emplace(0, size_);
}

std::optional<uint64_t> OffsetAllocator::allocate(uint64_t bytes, uint64_t align) {
  align = std::max(align, kGranule);
  if (bytes == 0 || bytes > size_) return std::nullopt;
  bytes = round_up(bytes, kGranule);
  for (auto it = free_.begin(); it != free_.end(); ++it) {
    uint64_t start = round_up(it->first, align);
    uint64_t end = it->first + it->second;
    if (start < it->first || start > end || end - start < bytes) continue;
    uint64_t head = start - it->first, tail = end - start - bytes;
    uint64_t block_start = it->first;
    free_.erase(it);
    if (head) free_.emplace(block_start, head);
    if (tail) free_.emplace(start + bytes, tail);
    used_.emplace(start, bytes);
    used_bytes_ += bytes;
    return start;
  }
  return std::nullopt;
}

uint64_t OffsetAllocator::block_size(uint64_t off) const {
  auto it = used_.find(off);
  return it == used_.end() ? 0 : it->second;
}

void OffsetAllocator::add_free(uint64_t off, uint64_t bytes) {
  auto next = free_.lower_bound(off);
  if (next != free_.end() && off + bytes == next->first) {
    bytes += next->second;
    next = free_.erase(next);
  }
  if (next != free_.begin()) {
    auto prev = std::prev(next);
    if (prev->first + prev->second == off) {
      prev->second += bytes;
      return;
    }
  }
  free_.emplace(off, bytes);
}

bool OffsetAllocator::release(uint64_t off) {
  auto it = used_.find(off);
  if (it == used_.end()) return false;
  used_bytes_ -= it->second;
  add_free(it->first, it->second);
  used_.erase(it);
  return true;
}

bool OffsetAllocator::resize(uint64_t off, uint64_t bytes) {
  auto it = used_.find(off);
  if (it == used_.end() || bytes == 0) return false;
  bytes = round_up(bytes, kGranule);
  uint64_t old = it->second;
  if (bytes <= old) {
    if (bytes < old) add_free(off + bytes, old - bytes);
    it->second = bytes;
    used_bytes_ -= old - bytes;
    return true;
  }
  auto next = free_.find(off + old);
  if (next == free_.end() || next->second < bytes - old) return false;
  uint64_t rest = next->second - (bytes - old);
  free_.erase(next);
  if (rest) free_.emplace(off + bytes, rest);
  it->second = bytes;
  used_bytes_ += bytes - old;
  return true;
}

uint64_t OffsetAllocator::largest_free() const {
  uint64_t best = 0;
  for (const auto& [off, bytes] : free_) best = std::max(best, bytes);
  return best;
}

}  // namespace gshmem
