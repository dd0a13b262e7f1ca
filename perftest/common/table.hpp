// Result tables in the NVSHMEM perftest layout, optionally mirrored as JSON lines.
//
// Text (what people read):
//   # put_bw: window of 64 gshmem_putmem_nbi + gshmem_quiet, PE 0 -> PE 1
//   size(B)       memcpy(GB/s)  BW(GB/s)
//   8             0.512         0.498
// `size(B)` is always the first column and the metric the last; extra columns sit between.
// Notes are further `# ...` lines.
//
// JSON (with --json; for scripts): one object per row on its own stdout line, after the row's
// text line. Only JSON lines start with '{', so `grep '^{'` separates them. Keys, in this order:
//   "test"   the table's id (e.g. "put_bw", "atomic_latency")
//   "size"   bytes per operation (integer)
//   one key per extra column, e.g. "op":"fetch_add", "memcpy":9.87, "npes":8
//   "value"  the metric (number), "unit": "GB/s" (1e9 bytes/s) or "us"
// Example: {"test":"put_bw","size":8,"memcpy":0.51,"value":0.498,"unit":"GB/s"}
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace perftest {

struct Metric {
  const char* header;
  const char* unit;
};
inline constexpr Metric kBandwidth{"BW(GB/s)", "GB/s"};
inline constexpr Metric kLatency{"latency(us)", "us"};

struct Column {
  std::string header;  // in the text table
  std::string key;     // in JSON
};

// A value in an extra column: text or a number, already formatted for both outputs.
struct Cell {
  Cell(const char* s) : Cell(std::string(s)) {}
  Cell(std::string s);
  Cell(double v);
  Cell(int v);
  std::string text;
  std::string json;
};

class Table {
 public:
  // Prints the header at once. `speak` false makes every call a no-op, so all processes of a
  // parallel program can run the same code and only one prints.
  Table(std::string test, const std::string& title, std::vector<Column> extra, Metric metric,
        bool json, bool speak);
  void row(size_t size, const std::vector<Cell>& extra, double value);
  void row(size_t size, double value) { row(size, {}, value); }
  void note(const std::string& line);

 private:
  std::string test_;
  std::vector<Column> extra_;
  Metric metric_;
  bool json_;
  bool speak_;
};

}  // namespace perftest
