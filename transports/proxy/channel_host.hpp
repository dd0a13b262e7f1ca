// The host side of the proxy channel: owns the ring and its counters, and is the (single)
// consumer. The producer side is inline device code in gshmem/device/channel.cuh.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

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

  // Consumer side: whichever thread runs the proxy engine (under its lock). peek() returns the next
  // published command or nullptr; pop() takes it; ticket() is the ticket of the peeked command.
  const detail::Command* peek() const;
  void pop() { ++tail_; }
  uint64_t ticket() const { return tail_; }
  // A ticket's slot, and the return slot it shares with later tickets, stay out of the producers'
  // reach while its producer waits for a return: from hold(t) (the command is taken, its return
  // comes later) or give_return(t) until the producer has read the return. Both are called for
  // the ticket being executed (before pop()) or one taken and still held.
  void hold(uint64_t ticket);
  // Completes ticket t for the producer waiting on it, with a fetched value.
  void give_return(uint64_t ticket, uint64_t value);
  // Hands every slot before the oldest held ticket (or before ticket(), when none is held) back
  // to the producers.
  void release_taken();
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
  // Per ring slot, the state of the ticket in it (tickets from oldest_ to tail_ fit the ring).
  enum Hold : uint8_t { kFree, kPending, kGiven };
  std::vector<Hold> held_;
  uint64_t oldest_ = 0;  // no ticket before this one is held
  detail::ChannelDevice* device_ = nullptr;
};

}  // namespace gshmem
