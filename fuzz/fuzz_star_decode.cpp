// The star protocol's wire format (gshmemrun's socket, the unique-id and PMIx TCP port): any bytes
// either parse into messages whose parts add up, or are refused; nothing reads past the input.
#include <cstring>

#include "host/bootstrap/star.hpp"

using namespace gshmem::star;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const char* p = reinterpret_cast<const char*>(data);
  size_t max_len = size % 2 ? kMaxHello : size_t(1) << 30;
  while (size) {
    Message m;
    size_t used = 0;
    Parse r = decode(p, size, max_len, &m, &used);
    if (r != Parse::Done) break;
    if (used != sizeof(Header) + m.what.size() + m.data.size() || used > size) __builtin_trap();
    if (!header_ok(m.h, max_len)) __builtin_trap();
    p += used;
    size -= used;
  }
  return 0;
}
