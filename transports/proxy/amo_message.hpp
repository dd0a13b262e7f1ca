// The messages proxies send each other over the fabric for emulated atomics, and the check every
// received one passes before the proxy acts on it. A message arrives from any endpoint that can
// reach this one, so nothing in it is trusted: it must carry the job's key, name a PE of the job,
// and stay inside a segment, naturally aligned, with an operation its type has.
#pragma once

#include <cstddef>
#include <cstdint>

namespace gshmem {

enum : uint32_t { kAmoRequest = 1, kAmoReply = 2 };

struct AmoMessage {
  uint32_t kind;
  uint8_t amo_op, amo_type, segment, pad;
  int32_t from;
  uint32_t cookie;
  uint64_t offset, value, cond, result;
  uint64_t key;  // the job's key: drawn by rank 0 at init, known only to the job's PEs
  uint64_t reserved;
};
static_assert(sizeof(AmoMessage) == 64, "one message per cache line");

// What a message is checked against.
struct AmoLimits {
  uint64_t key = 0;
  int n_pes = 0;
  const uint64_t* segment_bytes = nullptr;  // by segment number
  size_t n_segments = 0;
  uint32_t n_cookies = 0;  // replies name a request slot below this
};

enum class AmoVerdict { Request, Reply, Reject };

// Checks `n` received bytes; *why says what is wrong with a rejected one (a static string).
AmoVerdict check_amo_message(const void* bytes, size_t n, const AmoLimits& limits,
                             const char** why);

// The bytes an operand of this type occupies (0: not a type).
size_t amo_width(uint8_t amo_type);

}  // namespace gshmem
