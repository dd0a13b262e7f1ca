#include "host/base/log.hpp"

#include <cstdarg>
#include <cstdio>
#include <cstring>
#include <string>
#include <unistd.h>

#include "host/base/env.hpp"

namespace gshmem::log {

Config g_config;

namespace {

int g_pe = -1;
char g_where[160];

const char* kNames[] = {"INIT", "BOOTSTRAP", "HEAP", "TEAM", "TRANSPORT", "PROXY", "COLL", "MOE"};

void refresh_where() {
  char host[64] = "?";
  gethostname(host, sizeof host - 1);
  if (g_pe >= 0) {
    std::snprintf(g_where, sizeof g_where, "%s:%d:PE %d", host, int(getpid()), g_pe);
  } else {
    std::snprintf(g_where, sizeof g_where, "%s:%d", host, int(getpid()));
  }
}

const char* subsys_name(Subsys s) {
  for (int i = 0; i < 8; ++i) {
    if (s == (1u << i)) return kNames[i];
  }
  return "?";
}

void vwrite(const char* level, const char* subsys, const char* fmt, va_list ap) {
  char msg[2048];
  std::vsnprintf(msg, sizeof msg, fmt, ap);
  // One write per line so lines from concurrent PEs do not interleave mid-line.
  char line[2300];
  int n = subsys ? std::snprintf(line, sizeof line, "%s gshmem %s %s: %s\n", where(), level, subsys,
                                 msg)
                 : std::snprintf(line, sizeof line, "gshmem: %s: %s\n", where(), msg);
  if (n > int(sizeof line)) n = sizeof line;
  ssize_t rc = ::write(STDERR_FILENO, line, size_t(n));
  (void)rc;
}

}  // namespace

void configure() {
  const Env& env = Env::get();
  const std::string& level = env.str("GSHMEM_DEBUG");
  g_config.level = level == "NONE"    ? Level::None
                   : level == "INFO"  ? Level::Info
                   : level == "TRACE" ? Level::Trace
                                      : Level::Warn;
  g_config.subsys = parse_subsys(env.str("GSHMEM_DEBUG_SUBSYS"));
}

uint32_t parse_subsys(std::string_view text) {
  std::string list(text);
  bool exclude = !list.empty() && list[0] == '^';
  if (exclude) list.erase(0, 1);
  uint32_t mask = 0;
  size_t pos = 0;
  while (pos <= list.size()) {
    size_t comma = list.find(',', pos);
    std::string item =
        list.substr(pos, comma == std::string::npos ? std::string::npos : comma - pos);
    if (item == "ALL") mask = ~0u;
    for (int i = 0; i < 8; ++i) {
      if (item == kNames[i]) mask |= 1u << i;
    }
    if (comma == std::string::npos) break;
    pos = comma + 1;
  }
  return exclude ? ~mask : mask;
}

void set_pe(int pe) {
  g_pe = pe;
  g_where[0] = 0;  // refreshed at the next line: cheap enough for a fork handler
}

const char* where() {
  if (!g_where[0]) refresh_where();
  return g_where;
}

void write(Level level, Subsys subsys, const char* fmt, ...) {
  static const char* levels[] = {"NONE", "WARN", "INFO", "TRACE"};
  va_list ap;
  va_start(ap, fmt);
  vwrite(levels[int(level)], subsys_name(subsys), fmt, ap);
  va_end(ap);
}

namespace {
thread_local char t_last_error[2048];
}  // namespace

void error(const char* fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  va_list copy;
  va_copy(copy, ap);
  std::vsnprintf(t_last_error, sizeof t_last_error, fmt, copy);
  va_end(copy);
  vwrite("ERROR", nullptr, fmt, ap);
  va_end(ap);
}

const char* last_error() {
  return t_last_error;
}

}  // namespace gshmem::log
