// The unique id (and the PMIx rendezvous card, which has its form): what decodes re-encodes to the
// same text, and decoding never trusts a length or a number in it.
#include <cstring>
#include <string>

#include "host/bootstrap/uid_format.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  gshmem::uid::Info info;
  const char* p = reinterpret_cast<const char*>(data);
  if (!gshmem::uid::decode(p, size, &info)) return 0;
  if (info.port < 1 || info.port > 65535 || info.host.empty() || info.secret.size() != 32) {
    __builtin_trap();
  }
  std::string text = gshmem::uid::encode(info);
  if (text != std::string(p, strnlen(p, size))) __builtin_trap();
  return 0;
}
