#include "host/bootstrap/uid_format.hpp"

#include <cstring>

namespace gshmem::uid {

namespace {

constexpr const char* kTag = "gshuid1";
// sock::random_hex(16): 128 bits.
constexpr size_t kSecretChars = 32;

bool all_hex(const std::string& s) {
  for (char c : s) {
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return false;
  }
  return true;
}

}  // namespace

std::string encode(const Info& info) {
  return std::string(kTag) + "|" + info.host + "|" + std::to_string(info.port) + "|" + info.secret;
}

bool decode(const char* bytes, size_t n, Info* out) {
  std::string s(bytes, strnlen(bytes, n));
  size_t a = s.find('|');
  if (a == std::string::npos || s.substr(0, a) != kTag) return false;
  size_t b = s.find('|', a + 1);
  if (b == std::string::npos) return false;
  size_t c = s.find('|', b + 1);
  if (c == std::string::npos) return false;
  std::string host = s.substr(a + 1, b - a - 1);
  std::string port = s.substr(b + 1, c - b - 1);
  std::string secret = s.substr(c + 1);
  // One spelling per id: no leading zeros, so what decodes re-encodes to the same text.
  if (host.empty() || port.empty() || port.size() > 5 || port[0] == '0') return false;
  int p = 0;
  for (char ch : port) {
    if (ch < '0' || ch > '9') return false;
    p = p * 10 + (ch - '0');
  }
  if (p < 1 || p > 65535 || secret.size() != kSecretChars || !all_hex(secret)) return false;
  out->host = std::move(host);
  out->port = p;
  out->secret = std::move(secret);
  return true;
}

}  // namespace gshmem::uid
