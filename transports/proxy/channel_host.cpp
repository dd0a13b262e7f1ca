#include "transports/proxy/channel_host.hpp"

#include <cstdlib>
#include <cstring>
#include <new>

namespace gshmem {

ChannelHost::ChannelHost(size_t capacity) {
  size_t cap = 1;
  while (cap < capacity) cap <<= 1;
  ring_ = static_cast<detail::Command*>(std::aligned_alloc(64, cap * sizeof(detail::Command)));
  if (!ring_) throw std::bad_alloc();
  std::memset(static_cast<void*>(ring_), 0, cap * sizeof(detail::Command));
  returns_ = static_cast<detail::Return*>(std::aligned_alloc(64, cap * sizeof(detail::Return)));
  if (!returns_) throw std::bad_alloc();
  std::memset(static_cast<void*>(returns_), 0, cap * sizeof(detail::Return));
  device_.ring = ring_;
  device_.returns = returns_;
  device_.mask = cap - 1;
  device_.head = &head_.value;
  device_.consumed = &consumed_.value;
  device_.quiet_done = &quiet_done_.value;
}

ChannelHost::~ChannelHost() {
  std::free(ring_);
  std::free(returns_);
}

const detail::Command* ChannelHost::peek() const {
  const detail::Command* slot = &ring_[tail_ & device_.mask];
  uint64_t seq = detail::atomic_ref<uint64_t>(const_cast<detail::Command*>(slot)->seq).load(detail::acquire);
  return seq == tail_ + 1 ? slot : nullptr;
}

void ChannelHost::release(uint64_t ticket) {
  detail::atomic_ref<uint64_t>(consumed_.value).store(ticket, detail::release);
}

void ChannelHost::give_return(uint64_t ticket, uint64_t value) {
  detail::Return& r = returns_[ticket & device_.mask];
  r.value = value;
  detail::atomic_ref<uint64_t>(r.tag).store(ticket + 1, detail::release);
  unread_.insert(ticket);
}

uint64_t ChannelHost::oldest_unread() {
  while (!unread_.empty()) {
    uint64_t t = *unread_.begin();
    // The producer clears the tag once it has read the value (channel_call).
    if (detail::atomic_ref<uint64_t>(returns_[t & device_.mask].tag).load(detail::acquire) == t + 1) {
      return t;
    }
    unread_.erase(unread_.begin());
  }
  return UINT64_MAX;
}

void ChannelHost::mark_quiet_done(uint64_t ticket) {
  detail::atomic_ref<uint64_t>(quiet_done_.value).store(ticket, detail::release);
}

}  // namespace gshmem
