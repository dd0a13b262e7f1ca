// How one thread makes its pushes (gshmem/device/group.cuh): plain, or streamed while plain ones
// run slow (host/runtime/push_copy.cpp says why and what was measured). Pure: fed the time of
// each plain copy push, it says whether the next push streams.
#pragma once

#include <cstddef>
#include <cstdint>

namespace gshmem::detail {

class PushPacer {
 public:
  // A plain push moving fewer bytes per ns than this is slow (a spell: about 2; usually 6-45).
  static constexpr double kSlowBytesPerNs = 4.0;
  // Streamed pushes after two slow plain ones in a row: kFirstStreak, doubled while the plain
  // pushes after a streak stay slow, up to kMaxStreak.
  static constexpr uint32_t kFirstStreak = 16;
  static constexpr uint32_t kMaxStreak = 1024;
  // A thread's first plain pushes are not judged: they fault in the receive slots' pages.
  static constexpr uint32_t kUntimedPushes = 16;

  // Whether the next push streams (a streamed one counts down the streak).
  bool stream_next();
  // A plain copy push of n bytes took ns.
  void plain_took(size_t n, uint64_t ns);

 private:
  uint32_t untimed_left_ = kUntimedPushes;
  uint32_t streamed_left_ = 0;
  uint32_t streak_ = kFirstStreak;
  bool last_slow_ = false;
};

}  // namespace gshmem::detail
