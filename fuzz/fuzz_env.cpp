// Environment values and the tools' arguments: every registry variable's parser (sizes with units,
// seconds, integers, choices), the subsystem list, host:port.
#include <string>
#include <string_view>

#include "host/base/env.hpp"
#include "host/base/log.hpp"
#include "host/base/sock.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  for (const gshmem::EnvSpec& spec : gshmem::Env::registry()) gshmem::Env::accepts(spec, text);
  uint64_t bytes = 0;
  if (gshmem::Env::parse_size(text, &bytes)) gshmem::format_bytes(bytes);
  double s = 0;
  if (gshmem::Env::parse_seconds(text, &s)) {
    if (!(s >= 0) || s > gshmem::Env::kForeverSeconds) __builtin_trap();
    // Every parsed value converts without overflow (UBSan names a cast that would), and a
    // positive one never to 0.
    if (s > 0 && gshmem::Env::to_nanoseconds(s) == 0) __builtin_trap();
  }
  gshmem::log::parse_subsys(text);
  std::string host;
  int port = 0;
  if (gshmem::sock::split_host_port(std::string(text), &host, &port) &&
      (port < 1 || port > 65535 || host.empty())) {
    __builtin_trap();
  }
  return 0;
}
