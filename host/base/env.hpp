// The one environment registry: every GSHMEM_ variable with its type, default and description,
// parsed once. Call sites read variables by their full name, so grep finds every use.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace gshmem {

enum class EnvKind { Bool, Int, Size, Seconds, String, Choice };

struct EnvSpec {
  const char* name;
  EnvKind kind;
  const char* default_value;
  const char* choices;  // Choice: values separated by '|'
  const char* description;
  bool internal;  // set by gshmem's own tools (gshmemrun), not meant for users
};

class Env {
 public:
  struct Entry {
    const EnvSpec* spec;
    std::string value;  // as given, or the default
    bool from_environment;
  };

  // Parsed on first use. A malformed value is reported (naming the variable and what is expected)
  // and the process exits: there is no sensible way to continue with a misread setting.
  static const Env& get();

  bool flag(std::string_view name) const;
  int64_t integer(std::string_view name) const;
  uint64_t size(std::string_view name) const;  // bytes; accepts K, M, G, T suffixes
  double seconds(std::string_view name) const;
  // The same in nanoseconds (to_nanoseconds).
  uint64_t nanoseconds(std::string_view name) const;
  const std::string& str(std::string_view name) const;  // String and Choice
  bool is_set(std::string_view name) const;

  const std::vector<Entry>& entries() const { return entries_; }
  // Variables in the environment that start with GSHMEM_ but are not in the registry.
  const std::vector<std::string>& unknown() const { return unknown_; }

  static const std::vector<EnvSpec>& registry();
  // Parsers shared with the command-line tools; they return false on malformed input.
  static bool parse_bool(std::string_view text, bool* out);  // 1/0, true/false, yes/no, on/off
  static bool parse_size(std::string_view text, uint64_t* bytes);
  // Seconds with an optional unit (s, ms, m); values past kForeverSeconds read as kForeverSeconds.
  static bool parse_seconds(std::string_view text, double* seconds);
  static constexpr double kForeverSeconds = 1e9;  // about 32 years
  // Seconds (>= 0) as nanoseconds: at least 1 when positive, at most UINT64_MAX.
  static uint64_t to_nanoseconds(double seconds);
  // Whether `value` is well-formed for the variable (what the registry checks at start-up).
  static bool accepts(const EnvSpec& spec, std::string_view value);

 private:
  Env();
  const Entry& entry(std::string_view name, EnvKind expected) const;
  std::vector<Entry> entries_;
  std::vector<std::string> unknown_;
};

// "1.5 GiB", "512 KiB", "12 B": for messages and tables.
std::string format_bytes(uint64_t bytes);

}  // namespace gshmem
