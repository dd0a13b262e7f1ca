// Emulated-atomic messages from the fabric: any 64 bytes (or any other size) are either rejected
// or name an aligned operand wholly inside a segment, which this harness then touches (ASan
// reports a check that let one out).
#include <cstring>
#include <vector>

#include "transports/proxy/amo_message.hpp"

using namespace gshmem;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static std::vector<char> seg0(4096), seg1(100);
  static const uint64_t bytes[] = {4096, 100, 0};
  AmoLimits limits{0x5eed5eed5eed5eedull, 4, bytes, 3, 2048};
  const char* why = "";
  AmoVerdict v = check_amo_message(data, size, limits, &why);
  if (v == AmoVerdict::Reject) return 0;
  AmoMessage m;
  std::memcpy(&m, data, sizeof m);
  if (m.key != limits.key || m.from < 0 || m.from >= limits.n_pes) __builtin_trap();
  if (v == AmoVerdict::Reply) {
    if (m.cookie >= limits.n_cookies) __builtin_trap();
    return 0;
  }
  size_t w = amo_width(m.amo_type);
  char* base = m.segment == 0 ? seg0.data() : seg1.data();
  if (m.segment > 1 || m.offset % w) __builtin_trap();
  uint64_t old = 0;
  std::memcpy(&old, base + m.offset, w);
  std::memcpy(base + m.offset, &m.value, w);
  return 0;
}
