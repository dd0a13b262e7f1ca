// What gshmem_moe_a2a_perf and its MPI baseline (perftest/baselines/mpi_moe_a2a.cpp) share, so
// that both measure the same work the same way: the model shapes, the command line, the
// workload (moe::reference::synthesize_all: every rank can regenerate every rank's inputs), the
// checks against the reference, the timing of one iteration, and the result table.
//
//   [SHAPE...] [-b MIN_TOKENS] [-e MAX_TOKENS] [-f FACTOR] [-n ITERS] [-w WARMUP] [--full]
//   [--capacity-factor F] [--json]
//
// SHAPE: deepseek-v3 (hidden 7168, 256 experts, top-8, fp8 dispatch with an fp32 scale per 128
// values, bf16 combine) and deepseek-v2-lite (hidden 2048, 64 experts, top-6, bf16 both ways);
// both by default. Token counts per rank: 1, 2, 4 .. 128 (decode) by default; --full sweeps on
// to 4096 (prefill; give gshmem a larger GSHMEM_SYMMETRIC_SIZE, e.g. 4G, for deepseek-v3).
// -n/-w default to more iterations for fewer tokens.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "gshmem/moe.hpp"
#include "perftest/common/options.hpp"
#include "perftest/common/table.hpp"

namespace perftest::moe {

namespace gm = gshmem::moe;

struct Shape {
  std::string name;
  int hidden;
  int experts;
  int topk;
  gm::DType dispatch_type;
  gm::DType combine_type;
  int scale_block;  // 0: no scales

  // The config of one sweep point (team WORLD, worst-case buffers unless a factor is given).
  gm::Config config(int tokens, double capacity_factor) const;
  std::string describe() const;
};

struct MoeOptions {
  Options base;               // -n -w as given or defaulted per point (see iters/warmup)
  std::vector<Shape> shapes;  // the operands, or all
  std::vector<int> tokens;    // the sweep
  double capacity_factor = 0;
  bool factor_given = false;
  bool iters_given = false, warmup_given = false;

  int iters(int tokens) const;
  int warmup(int tokens) const;
  // The factor for a point: the one given, else worst-case buffers for decode sizes and 2 for
  // prefill sizes (worst-case buffers for thousands of tokens take gigabytes per PE).
  double factor(int tokens) const;
};

// Parses the command line (usage and errors printed where `speak`). exit_code as in Args.
struct Parsed {
  MoeOptions opts;
  std::optional<int> exit_code;
};
Parsed parse(int argc, char** argv, const char* program, const char* what, bool speak, int npes);

// Per-rank timings of one sweep point, in seconds per iteration, and what moved.
struct Point {
  double dispatch = 0, combine = 0;              // mean over the timed iterations
  double dispatch_bytes = 0, combine_bytes = 0;  // this rank's rows sent, in bytes
};

// The table both programs print: one row per token count, with dispatch and combine latency
// (us, the slowest rank's mean) and bandwidth (GB/s: the ranks' mean bytes per latency);
// the metric column is dispatch + combine. With `floor_bw` (bytes/s, a GPU's device-to-device
// copy bandwidth measured in the same run) two more columns: the time the ranks' mean dispatch
// and combine bytes take at that bandwidth, the floor no exchange of those rows beats.
class MoeTable {
 public:
  MoeTable(const char* test, const Shape& shape, int npes, const std::string& how, bool json,
           bool speak, double floor_bw = 0);
  // `worst`: the slowest rank's timings; `bytes`: the ranks' mean bytes.
  void row(int tokens, const Point& worst, const Point& bytes);
  void note(const std::string& line) { table_.note(line); }

 private:
  double floor_bw_;
  Table table_;
};

// Rows a rank sends for `indices` of `tokens` tokens (slots whose index is -1 send nothing).
int64_t pairs_sent(const std::vector<int32_t>& indices, int tokens, int topk);

// Seconds f takes by the host clock.
double host_seconds(const std::function<void()>& f);

// Runs warmup + iters iterations of: sync, dispatch (timed), the stand-in experts, sync,
// combine (timed). Returns this rank's mean dispatch and combine seconds. `timed(f)` returns the
// seconds f takes (default: host_seconds).
using Timer = std::function<double(const std::function<void()>&)>;
Point time_iterations(int warmup, int iters, const std::function<void()>& sync,
                      const std::function<void()>& dispatch, const std::function<void()>& experts,
                      const std::function<void()>& combine, const Timer& timed = nullptr);

}  // namespace perftest::moe
