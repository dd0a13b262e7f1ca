// The host side of pushes (gshmem/device/group.cuh): copies of kStreamMinBytes or more that
// another PE reads next, made plain or with non-temporal stores ("streamed"), which send the lines
// to memory instead of into this core's cache.
//
// Which one is faster depends on where the reader's core is. Measured on 2 vCPUs, a 256 KiB
// buffer that one process writes and the other then reads, again and again:
// - mostly, a plain write took 29-41 us and the read 6-9 us; streamed, 9-12 us and 16-26 us.
//   A ring AllReduce at 2 PEs, 4 MiB, took 243 us with plain pushes and 545 us streamed.
// - in spells of seconds to minutes, when the host ran the two vCPUs apart, a plain write took
//   116-156 us (every line it stores is in the reader's cache from the round before and has to
//   come back from afar) and the read 15-21 us; streamed, the same as before. The ring AllReduce
//   at 1 MiB took 577-614 us with plain pushes against 90-258 us streamed.
// So a thread pushes plain and times each plain copy push (PushPacer, push_copy.hpp). When two in
// a row move fewer than kSlowBytesPerNs (the spell: 2 bytes/ns, against 6-45 otherwise), it
// streams its next pushes, then tries plain again: kFirstStreak of them, twice as many each time
// the plain pushes that follow are still slow (up to kMaxStreak), kFirstStreak again after a fast
// one. A reduction's push follows the thread's choice but is not timed: its time is its
// arithmetic's too (a half-precision sum converts every element, and may stay under 4 bytes/ns
// on a machine whose stores are fast, which would keep the thread streaming). Two slow ones,
// because one may just have lost its core for a while: with more PEs than cores, a streak after
// every such push made ring AllReduce at 4 PEs on 2 cores 1.26x slower at 1 MiB in a perftest
// (median of 10 jobs). A thread's first kUntimedPushes are not judged: they fault in the pages
// of the receive slots (the first two pushes of a ring AllReduce took 280-310 us for 256 KiB),
// and a streak from them made a short perftest at 1 MiB 10% slower.
#include "host/runtime/push_copy.hpp"

#include <cstdint>
#include <cstring>
#include <string>

#include "gshmem/device/group.cuh"
#include "host/base/env.hpp"

#if defined(__x86_64__)
#include <emmintrin.h>
#endif

namespace gshmem::detail {

bool PushPacer::stream_next() {
  if (streamed_left_ == 0) return false;
  --streamed_left_;
  return true;
}

void PushPacer::plain_took(size_t n, uint64_t ns) {
  if (untimed_left_ > 0) {
    --untimed_left_;
    return;
  }
  const bool slow = double(n) < kSlowBytesPerNs * double(ns);
  if (slow && last_slow_) {
    streamed_left_ = streak_;
    streak_ = streak_ < kMaxStreak ? 2 * streak_ : kMaxStreak;
  }
  if (!slow) streak_ = kFirstStreak;
  last_slow_ = slow && !last_slow_;
}

namespace {

enum class PushSetting { Auto, Plain, Stream };

PushSetting push_setting() {
  // Non-temporal stores are x86's here: elsewhere stream_store is memcpy, and streaming only adds
  // a fence.
#if defined(__x86_64__)
  const std::string v = Env::get().str("GSHMEM_PUSH_STREAM");
  return v == "plain"    ? PushSetting::Plain
         : v == "stream" ? PushSetting::Stream
                         : PushSetting::Auto;
#else
  return PushSetting::Plain;
#endif
}

thread_local PushPacer pacer;
thread_local PushCounts counts;

}  // namespace

PushMode push_begin() {
  static const PushSetting setting = push_setting();
  PushMode m{setting == PushSetting::Stream, 0};
  if (setting == PushSetting::Auto) {
    m.stream = pacer.stream_next();
    if (!m.stream) m.t0 = now_ns();
  }
  ++(m.stream ? counts.streamed : counts.plain);
  return m;
}

void push_end(const PushMode& m, size_t n) {
  if (m.t0) pacer.plain_took(n, now_ns() - m.t0);
}

PushCounts push_counts() {
  return counts;
}

void stream_store(void* dst, const void* src, size_t n) {
#if defined(__x86_64__)
  char* d = static_cast<char*>(dst);
  const char* s = static_cast<const char*>(src);
  // movntdq needs a 16-byte aligned destination; the head up to it goes by memcpy.
  size_t head = size_t(-reinterpret_cast<uintptr_t>(d)) & 15;
  if (head > n) head = n;
  std::memcpy(d, s, head);
  d += head;
  s += head;
  n -= head;
  size_t i = 0;
  for (; i + 64 <= n; i += 64) {
    const __m128i a = _mm_loadu_si128(reinterpret_cast<const __m128i*>(s + i));
    const __m128i b = _mm_loadu_si128(reinterpret_cast<const __m128i*>(s + i + 16));
    const __m128i c = _mm_loadu_si128(reinterpret_cast<const __m128i*>(s + i + 32));
    const __m128i e = _mm_loadu_si128(reinterpret_cast<const __m128i*>(s + i + 48));
    _mm_stream_si128(reinterpret_cast<__m128i*>(d + i), a);
    _mm_stream_si128(reinterpret_cast<__m128i*>(d + i + 16), b);
    _mm_stream_si128(reinterpret_cast<__m128i*>(d + i + 32), c);
    _mm_stream_si128(reinterpret_cast<__m128i*>(d + i + 48), e);
  }
  for (; i + 16 <= n; i += 16) {
    _mm_stream_si128(reinterpret_cast<__m128i*>(d + i),
                     _mm_loadu_si128(reinterpret_cast<const __m128i*>(s + i)));
  }
  std::memcpy(d + i, s + i, n - i);
#else
  std::memcpy(dst, src, n);
#endif
}

void stream_fence() {
#if defined(__x86_64__)
  _mm_sfence();
#else
  __atomic_thread_fence(__ATOMIC_SEQ_CST);
#endif
}

}  // namespace gshmem::detail
