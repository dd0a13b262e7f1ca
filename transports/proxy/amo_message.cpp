#include "transports/proxy/amo_message.hpp"

#include <cstring>

#include "gshmem/device/amo_op.cuh"
#include "gshmem/device/channel.cuh"

namespace gshmem {

size_t amo_width(uint8_t amo_type) {
  switch (detail::AmoType(amo_type)) {
    case detail::AmoType::I32:
    case detail::AmoType::U32:
    case detail::AmoType::F32:
      return 4;
    case detail::AmoType::I64:
    case detail::AmoType::U64:
    case detail::AmoType::F64:
      return 8;
  }
  return 0;
}

namespace {

// Floating-point types have only fetch, set and swap (the proxy applies nothing else to them).
bool op_allowed(uint8_t amo_op, uint8_t amo_type) {
  if (amo_op > uint8_t(AmoOp::Xor)) return false;
  auto type = detail::AmoType(amo_type);
  bool floating = type == detail::AmoType::F32 || type == detail::AmoType::F64;
  auto op = AmoOp(amo_op);
  return !floating || op == AmoOp::Fetch || op == AmoOp::Set || op == AmoOp::Swap;
}

}  // namespace

AmoVerdict check_amo_message(const void* bytes, size_t n, const AmoLimits& limits,
                             const char** why) {
  AmoMessage m;
  if (n != sizeof m) {
    *why = "a message of the wrong size";
    return AmoVerdict::Reject;
  }
  std::memcpy(&m, bytes, sizeof m);
  // The key first: a stranger learns nothing from which later check failed.
  if (m.key != limits.key) {
    *why = "a message without the job's key (not from a PE of this job)";
    return AmoVerdict::Reject;
  }
  if (m.from < 0 || m.from >= limits.n_pes) {
    *why = "a message from a PE out of range";
    return AmoVerdict::Reject;
  }
  if (m.kind == kAmoReply) {
    if (m.cookie >= limits.n_cookies) {
      *why = "a reply for an unknown request";
      return AmoVerdict::Reject;
    }
    return AmoVerdict::Reply;
  }
  if (m.kind != kAmoRequest) {
    *why = "a message of an unknown kind";
    return AmoVerdict::Reject;
  }
  size_t width = amo_width(m.amo_type);
  if (!width || !op_allowed(m.amo_op, m.amo_type)) {
    *why = "an atomic request with an unknown type or operation";
    return AmoVerdict::Reject;
  }
  if (m.segment >= limits.n_segments || limits.segment_bytes[m.segment] < width ||
      m.offset > limits.segment_bytes[m.segment] - width || m.offset % width != 0) {
    *why = "an atomic request outside the symmetric segments or misaligned";
    return AmoVerdict::Reject;
  }
  return AmoVerdict::Request;
}

}  // namespace gshmem
