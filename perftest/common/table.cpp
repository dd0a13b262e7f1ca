#include "perftest/common/table.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace perftest {

namespace {

constexpr int kWidth = 14;  // every text column; wide enough for "memcpy(GB/s)" and big sizes

// Four significant digits without an exponent: latencies here run from nanoseconds (0.003012)
// to milliseconds (12345), and a fixed number of decimals would flatten one end.
std::string text_number(double v) {
  int decimals = 3;
  if (std::isfinite(v) && v != 0) {
    decimals = std::clamp(3 - int(std::floor(std::log10(std::fabs(v)))), 0, 6);
  }
  char buf[48];
  std::snprintf(buf, sizeof buf, "%.*f", decimals, v);
  return buf;
}

// More digits than the text: sub-0.1 us latencies must survive a ratio.
std::string json_number(double v) {
  if (!std::isfinite(v)) return "null";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.6g", v);
  return buf;
}

// Text cells come from program literals (names of ops), so escaping is only defensive.
std::string json_string(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out + "\"";
}

}  // namespace

Cell::Cell(std::string s) : text(s), json(json_string(s)) {}
Cell::Cell(double v) : text(text_number(v)), json(json_number(v)) {}
Cell::Cell(int v) : text(std::to_string(v)), json(text) {}

Table::Table(std::string test, const std::string& title, std::vector<Column> extra, Metric metric,
             bool json, bool speak)
    : test_(std::move(test)),
      extra_(std::move(extra)),
      metric_(metric),
      json_(json),
      speak_(speak) {
  if (!speak_) return;
  std::printf("# %s: %s\n%-*s", test_.c_str(), title.c_str(), kWidth, "size(B)");
  for (const Column& c : extra_) std::printf("%-*s", kWidth, c.header.c_str());
  std::printf("%s\n", metric_.header);
  std::fflush(stdout);
}

void Table::row(size_t size, const std::vector<Cell>& extra, double value) {
  if (!speak_) return;
  std::printf("%-*zu", kWidth, size);
  for (const Cell& c : extra) std::printf("%-*s", kWidth, c.text.c_str());
  std::printf("%s\n", text_number(value).c_str());
  if (json_) {
    std::string line = "{\"test\":" + json_string(test_) + ",\"size\":" + std::to_string(size);
    for (size_t i = 0; i < extra.size() && i < extra_.size(); ++i) {
      line += "," + json_string(extra_[i].key) + ":" + extra[i].json;
    }
    line += ",\"value\":" + json_number(value) + ",\"unit\":" + json_string(metric_.unit) + "}";
    std::printf("%s\n", line.c_str());
  }
  // Flushed per row: a job that dies later (or a baseline that crashes in finalize) keeps it.
  std::fflush(stdout);
}

void Table::note(const std::string& line) {
  if (!speak_) return;
  std::printf("# %s\n", line.c_str());
  std::fflush(stdout);
}

}  // namespace perftest
