// The host side of the proxy channel: owns the ring and its counters, and is the (single)
// consumer. The producer side is inline device code in gshmem/device/channel.cuh.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <set>

#include "gshmem/device/channel.cuh"

namespace gshmem {

class ChannelHost {
 public:
  // capacity: commands in the ring, rounded up to a power of two. pinned: the ring, the
  // proxy's counters, return slots and the producer handle live in pinned host memory mapped for
  // the GPUs (at the same address on both sides) and the ticket counter in GPU memory, so kernels
  // push commands with device atomics and plain stores; else all in ordinary host memory.
  explicit ChannelHost(size_t capacity, bool pinned = false);
  ~ChannelHost();
  ChannelHost(const ChannelHost&) = delete;
  ChannelHost& operator=(const ChannelHost&) = delete;

  // What producers use (goes into the DeviceContext).
  detail::ChannelDevice* device() { return device_; }

  // Consumer side, proxy thread only. peek() returns the next published command or nullptr;
  // pop() takes it; ticket() is the ticket of the peeked command. release(t) hands every slot
  // before ticket t back to the producers (the proxy holds back slots whose return is pending).
  const detail::Command* peek() const;
  void pop() { ++tail_; }
  uint64_t ticket() const { return tail_; }
  void release(uint64_t ticket);
  // Completes ticket t for the producer waiting on it, with a fetched value.
  void give_return(uint64_t ticket, uint64_t value);
  // The oldest ticket whose return its producer has not read yet (UINT64_MAX: none). Its slot,
  // and the return slot it shares with later tickets, must not be handed out again before then.
  uint64_t oldest_unread();
  // Publishes that every command before `ticket` is complete (lets quiet skip the proxy).
  void mark_quiet_done(uint64_t ticket);
  size_t capacity() const { return size_t(device_->mask + 1); }

 private:
  struct alignas(64) Counter {
    uint64_t value;
  };
  // One block: what producers reach (handle, counters, ring, returns), zero-filled.
  struct alignas(64) Header {
    detail::ChannelDevice device;
    Counter head, consumed, quiet_done;
  };
  void* block_ = nullptr;
  bool pinned_ = false;
  detail::Command* ring_ = nullptr;
  detail::Return* returns_ = nullptr;
  Counter* consumed_ = nullptr;
  Counter* quiet_done_ = nullptr;
  uint64_t tail_ = 0;
  std::set<uint64_t> unread_;  // returns given, not yet read by their producers
  detail::ChannelDevice* device_ = nullptr;
};

}  // namespace gshmem
