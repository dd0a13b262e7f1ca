// The one logger. GSHMEM_DEBUG sets the level, GSHMEM_DEBUG_SUBSYS the subsystems; every line
// carries host, pid and PE so interleaved output from many PEs can be told apart.
#pragma once

#include <cstdint>
#include <string_view>

namespace gshmem::log {

enum class Level : int { None = 0, Warn = 1, Info = 2, Trace = 3 };

enum Subsys : uint32_t {
  INIT = 1u << 0,
  BOOTSTRAP = 1u << 1,
  HEAP = 1u << 2,
  TEAM = 1u << 3,
  TRANSPORT = 1u << 4,
  PROXY = 1u << 5,
  COLL = 1u << 6,
  MOE = 1u << 7,
};

struct Config {
  Level level = Level::Warn;
  uint32_t subsys = ~0u;
};
extern Config g_config;

// Reads GSHMEM_DEBUG and GSHMEM_DEBUG_SUBSYS (done once, by init; before that WARN/ALL apply).
void configure();
// GSHMEM_DEBUG_SUBSYS's value as a mask: names separated by commas, ALL, a leading ^ inverts.
uint32_t parse_subsys(std::string_view list);
// The PE number to put on lines once it is known (-1 before).
void set_pe(int pe);

inline bool enabled(Level level, Subsys subsys) {
  return int(level) <= int(g_config.level) && (g_config.subsys & subsys);
}

void write(Level level, Subsys subsys, const char* fmt, ...) __attribute__((format(printf, 3, 4)));

// Errors are always printed, with the same prefix, to stderr.
void error(const char* fmt, ...) __attribute__((format(printf, 1, 2)));
// The message of this thread's last error() ("" if none), for gshmemx_get_last_error.
const char* last_error();

// "host:pid:PE n" (or "host:pid" before the PE is known), for messages built elsewhere.
const char* where();

}  // namespace gshmem::log

#define GSHMEM_LOG(LEVEL, SUBSYS, ...)                                                       \
  do {                                                                                       \
    if (::gshmem::log::enabled(::gshmem::log::Level::LEVEL, ::gshmem::log::SUBSYS)) {        \
      ::gshmem::log::write(::gshmem::log::Level::LEVEL, ::gshmem::log::SUBSYS, __VA_ARGS__); \
    }                                                                                        \
  } while (0)
#define GSHMEM_WARN(SUBSYS, ...) GSHMEM_LOG(Warn, SUBSYS, __VA_ARGS__)
#define GSHMEM_INFO(SUBSYS, ...) GSHMEM_LOG(Info, SUBSYS, __VA_ARGS__)
#define GSHMEM_TRACE(SUBSYS, ...) GSHMEM_LOG(Trace, SUBSYS, __VA_ARGS__)
