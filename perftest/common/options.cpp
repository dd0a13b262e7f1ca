#include "perftest/common/options.hpp"

#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace perftest {

std::vector<size_t> Options::sizes() const {
  std::vector<size_t> out;
  for (size_t s = min_size; s <= max_size; s *= factor) {
    out.push_back(s);
    if (s > max_size / factor) break;  // the next step would overflow or pass MAX
  }
  return out;
}

Options Args::over(const Options& d) const {
  Options o = d;
  o.min_size = min_size.value_or(d.min_size);
  o.max_size = max_size.value_or(d.max_size);
  o.factor = factor.value_or(d.factor);
  o.iters = iters.value_or(d.iters);
  o.warmup = warmup.value_or(d.warmup);
  o.window = window.value_or(d.window);
  o.json = json || d.json;
  return o;
}

namespace {

void print_usage(const Usage& u, const Options& d) {
  std::printf(
      "usage: %s [options]%s%s\n"
      "%s\n"
      "  -b MIN        smallest message size in bytes, K/M/G suffixes allowed (default %zu)\n"
      "  -e MAX        largest message size (default %zu)\n"
      "  -f FACTOR     size step factor (default %zu)\n"
      "  -n ITERS      timed iterations per size (default %d)\n"
      "  -w WARMUP     untimed iterations per size (default %d)\n"
      "  --window W    operations in flight per iteration, bandwidth tests (default %d)\n"
      "  --json        also print one JSON object per result row\n"
      "  -h, --help    this text\n",
      u.program, u.operands ? " " : "", u.operands ? u.operands : "", u.what, d.min_size,
      d.max_size, d.factor, d.iters, d.warmup, d.window);
}

// "4M" -> 4194304. Returns false on anything but digits and one optional K/M/G suffix.
bool parse_size(const char* s, size_t* out) {
  if (!*s || *s == '-') return false;
  char* end = nullptr;
  errno = 0;
  unsigned long long v = std::strtoull(s, &end, 10);
  if (errno || end == s) return false;
  int shift = 0;
  switch (std::toupper(static_cast<unsigned char>(*end))) {
    case 'K':
      shift = 10;
      break;
    case 'M':
      shift = 20;
      break;
    case 'G':
      shift = 30;
      break;
  }
  if (shift) ++end;
  if (*end || v > (~0ull >> shift)) return false;
  *out = size_t(v << shift);
  return true;
}

bool parse_count(const char* s, int* out, int min) {
  size_t v = 0;
  if (!parse_size(s, &v) || v < size_t(min) || v > 1u << 30) return false;
  *out = int(v);
  return true;
}

}  // namespace

Args parse_args(int argc, char** argv, const Usage& usage, const Options& defaults, bool speak) {
  Args a;
  auto fail = [&](const char* fmt, const char* arg) {
    if (speak) {
      std::fprintf(stderr, "%s: ", usage.program);
      std::fprintf(stderr, fmt, arg);
      std::fprintf(stderr, " (try -h)\n");
    }
    a.exit_code = 2;
    return a;
  };
  for (int i = 1; i < argc; ++i) {
    const std::string opt = argv[i];
    if (opt == "-h" || opt == "--help") {
      if (speak) print_usage(usage, defaults);
      a.exit_code = 0;
      return a;
    }
    if (opt == "--json") {
      a.json = true;
      continue;
    }
    if (opt[0] != '-') {
      if (!usage.operands) return fail("unexpected argument '%s'", argv[i]);
      a.operands.push_back(opt);
      continue;
    }
    if (opt != "-b" && opt != "-e" && opt != "-f" && opt != "-n" && opt != "-w" &&
        opt != "--window") {
      return fail("unknown option '%s'", argv[i]);
    }
    if (i + 1 >= argc) return fail("%s needs a value", argv[i]);
    const char* val = argv[++i];
    size_t size = 0;
    int count = 0;
    if (opt == "-b" || opt == "-e") {
      if (!parse_size(val, &size) || size == 0) return fail("bad size '%s'", val);
      (opt == "-b" ? a.min_size : a.max_size) = size;
    } else if (opt == "-f") {
      if (!parse_size(val, &size) || size < 2) return fail("factor must be >= 2, got '%s'", val);
      a.factor = size;
    } else if (opt == "-n") {
      if (!parse_count(val, &count, 1)) return fail("bad iteration count '%s'", val);
      a.iters = count;
    } else if (opt == "-w") {
      if (!parse_count(val, &count, 0)) return fail("bad warmup count '%s'", val);
      a.warmup = count;
    } else {
      if (!parse_count(val, &count, 1)) return fail("bad window '%s'", val);
      a.window = count;
    }
  }
  Options o = a.over(defaults);
  if (o.min_size > o.max_size) return fail("-b is larger than -e%s", "");
  return a;
}

}  // namespace perftest
