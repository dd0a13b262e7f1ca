#include "transports/proxy/channel_host.hpp"

#include <cstdlib>
#include <cstring>
#include <new>

#include "host/cuda/gpu.hpp"

namespace gshmem {

ChannelHost::ChannelHost(size_t capacity, bool pinned) : pinned_(pinned) {
  size_t cap = 1;
  while (cap < capacity) cap <<= 1;
  size_t ring_at = sizeof(Header);
  size_t returns_at = ring_at + cap * sizeof(detail::Command);
  size_t bytes = returns_at + cap * sizeof(detail::Return);
  if (pinned) {
    block_ = gpu::pinned_alloc(bytes, "the proxy channel");  // zeroed
  } else {
    block_ = std::aligned_alloc(64, (bytes + 63) / 64 * 64);
    if (!block_) throw std::bad_alloc();
    std::memset(block_, 0, bytes);
  }
  auto* h = static_cast<Header*>(block_);
  ring_ = reinterpret_cast<detail::Command*>(static_cast<char*>(block_) + ring_at);
  returns_ = reinterpret_cast<detail::Return*>(static_cast<char*>(block_) + returns_at);
  consumed_ = &h->consumed;
  quiet_done_ = &h->quiet_done;
  device_ = &h->device;
  device_->ring = ring_;
  device_->returns = returns_;
  device_->mask = cap - 1;
  // Only a GPU's threads take tickets from a pinned channel: the counter is GPU memory, so taking
  // one is a device atomic (one on host memory would need PCIe atomics to the host).
  device_->head = pinned ? static_cast<uint64_t*>(gpu::device_alloc(64, "the proxy channel's head"))
                         : &h->head.value;
  device_->consumed = &h->consumed.value;
  device_->quiet_done = &h->quiet_done.value;
  held_.assign(cap, kFree);
}

ChannelHost::~ChannelHost() {
  if (pinned_) {
    gpu::device_free(device_->head);
    gpu::pinned_free(block_);
  } else {
    std::free(block_);
  }
}

const detail::Command* ChannelHost::peek() const {
  const detail::Command* slot = &ring_[tail_ & device_->mask];
  uint64_t seq =
      detail::atomic_ref<uint64_t>(const_cast<detail::Command*>(slot)->seq).load(detail::acquire);
  return seq == tail_ + 1 ? slot : nullptr;
}

void ChannelHost::hold(uint64_t ticket) {
  held_[ticket & device_->mask] = kPending;
}

void ChannelHost::give_return(uint64_t ticket, uint64_t value) {
  detail::Return& r = returns_[ticket & device_->mask];
  r.value = value;
  detail::atomic_ref<uint64_t>(r.tag).store(ticket + 1, detail::release);
  held_[ticket & device_->mask] = kGiven;
}

void ChannelHost::release_taken() {
  for (; oldest_ < tail_; ++oldest_) {
    Hold& h = held_[oldest_ & device_->mask];
    if (h == kPending) break;
    // The producer clears the tag once it has read the value (channel_call).
    if (h == kGiven &&
        detail::atomic_ref<uint64_t>(returns_[oldest_ & device_->mask].tag).load(detail::acquire) ==
            oldest_ + 1) {
      break;
    }
    h = kFree;
  }
  detail::atomic_ref<uint64_t>(consumed_->value).store(oldest_, detail::release);
}

void ChannelHost::mark_quiet_done(uint64_t ticket) {
  detail::atomic_ref<uint64_t>(quiet_done_->value).store(ticket, detail::release);
}

}  // namespace gshmem
