#include "perftest/moe/moe_bench.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "perftest/common/timing.hpp"

namespace perftest::moe {

namespace {

const char* type_name(gm::DType t, int scale_block) {
  switch (t) {
    case gm::DType::F32:
      return "fp32";
    case gm::DType::BF16:
      return "bf16";
    case gm::DType::F16:
      return "fp16";
    case gm::DType::Bytes:
      return scale_block ? "fp8+scales" : "fp8";
  }
  return "?";
}

// The shapes people benchmark (ANCHORS.md): DeepSeek-V3/R1 with its fp8 dispatch recipe, and
// DeepSeek-V2-Lite in bf16.
std::vector<Shape> all_shapes() {
  return {
      {"deepseek-v3", 7168, 256, 8, gm::DType::Bytes, gm::DType::BF16, 128},
      {"deepseek-v2-lite", 2048, 64, 6, gm::DType::BF16, gm::DType::BF16, 0},
  };
}

constexpr int kDecodeMax = 128;
constexpr int kPrefillMax = 4096;

}  // namespace

gm::Config Shape::config(int tokens, double capacity_factor) const {
  gm::Config c;
  c.max_tokens = tokens;
  c.num_experts = experts;
  c.experts_per_token = topk;
  c.hidden = hidden;
  c.dispatch_type = dispatch_type;
  c.combine_type = combine_type;
  c.scale_block = scale_block;
  c.capacity_factor = capacity_factor;
  return c;
}

std::string Shape::describe() const {
  return name + " (hidden " + std::to_string(hidden) + ", " + std::to_string(experts) +
         " experts, top-" + std::to_string(topk) + ", " + type_name(dispatch_type, scale_block) +
         " dispatch, " + type_name(combine_type, 0) + " combine)";
}

int MoeOptions::iters(int tokens) const {
  return iters_given ? base.iters : std::clamp(2048 / tokens, 10, 200);
}
int MoeOptions::warmup(int tokens) const {
  return warmup_given ? base.warmup : std::max(2, iters(tokens) / 10);
}
double MoeOptions::factor(int tokens) const {
  return factor_given ? capacity_factor : tokens > kDecodeMax ? 2.0 : 0.0;
}

Parsed parse(int argc, char** argv, const char* program, const char* what, bool speak, int npes) {
  Parsed out;
  MoeOptions& o = out.opts;
  bool full = false;
  std::vector<char*> rest = {argv[0]};
  auto fail = [&](const std::string& why) {
    if (speak) std::fprintf(stderr, "%s: %s (try -h)\n", program, why.c_str());
    out.exit_code = 2;
    return out;
  };
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--full")) {
      full = true;
    } else if (!std::strcmp(argv[i], "--capacity-factor")) {
      char* end = nullptr;
      if (i + 1 >= argc || (o.capacity_factor = std::strtod(argv[++i], &end)) < 0 || *end) {
        return fail("--capacity-factor needs a number >= 0");
      }
      o.factor_given = true;
    } else {
      rest.push_back(argv[i]);
    }
  }
  Options d;
  d.min_size = 1;
  d.max_size = full ? kPrefillMax : kDecodeMax;
  d.factor = 2;
  d.iters = 20;
  d.warmup = 2;
  const std::string usage_what =
      std::string(what) +
      "\n  SHAPE: deepseek-v3, deepseek-v2-lite (default both); -b/-e/-f: tokens per rank "
      "(default 1..128, --full: 1..4096)\n  --full          prefill token counts too\n"
      "  --capacity-factor F  receive buffers for F x the average load (default: worst case "
      "up to 128 tokens, 2 above)";
  Usage usage{program, usage_what.c_str(), "[SHAPE...] [--full] [--capacity-factor F]"};
  Args a = parse_args(int(rest.size()), rest.data(), usage, d, speak);
  if (a.exit_code) {
    out.exit_code = a.exit_code;
    return out;
  }
  o.base = a.over(d);
  o.iters_given = a.iters.has_value();
  o.warmup_given = a.warmup.has_value();
  for (size_t t : o.base.sizes()) o.tokens.push_back(int(t));
  for (const std::string& name : a.operands) {
    bool found = false;
    for (const Shape& s : all_shapes()) {
      if (s.name == name || s.name == "deepseek-" + name) {
        o.shapes.push_back(s);
        found = true;
      }
    }
    if (!found) return fail("unknown shape '" + name + "' (deepseek-v3, deepseek-v2-lite)");
  }
  if (o.shapes.empty()) o.shapes = all_shapes();
  for (const Shape& s : o.shapes) {
    if (s.experts % npes) {
      return fail(s.name + " has " + std::to_string(s.experts) + " experts, not a multiple of " +
                  std::to_string(npes) + " ranks");
    }
  }
  return out;
}

namespace {

std::vector<Column> moe_columns(bool floor) {
  std::vector<Column> c = {{"tokens", "tokens"},
                           {"dispatch(us)", "dispatch"},
                           {"combine(us)", "combine"},
                           {"disp(GB/s)", "dispatch_bw"},
                           {"comb(GB/s)", "combine_bw"}};
  if (floor) {
    c.push_back({"disp_floor(us)", "dispatch_floor"});
    c.push_back({"comb_floor(us)", "combine_floor"});
  }
  return c;
}

}  // namespace

MoeTable::MoeTable(const char* test, const Shape& shape, int npes, const std::string& how,
                   bool json, bool speak, double floor_bw)
    : floor_bw_(floor_bw),
      table_(test, shape.describe() + ", " + std::to_string(npes) + " ranks, " + how,
             moe_columns(floor_bw > 0), kLatency, json, speak) {
  table_.note(
      "size(B): bytes a rank dispatches (rows x (values + scales)); latency: the slowest rank's "
      "mean; GB/s: a rank's bytes / that latency; last column: dispatch + combine");
  if (floor_bw > 0) {
    table_.note(
        "floor: a rank's dispatch / combine bytes at the device-to-device copy "
        "bandwidth a PE measured in this run with every PE copying at once, " +
        Cell(floor_bw / 1e9).text + " GB/s");
  }
}

void MoeTable::row(int tokens, const Point& worst, const Point& bytes) {
  std::vector<Cell> cells = {Cell(tokens), Cell(usec(worst.dispatch)), Cell(usec(worst.combine)),
                             Cell(gb_per_s(bytes.dispatch_bytes, worst.dispatch)),
                             Cell(gb_per_s(bytes.combine_bytes, worst.combine))};
  if (floor_bw_ > 0) {
    cells.emplace_back(usec(bytes.dispatch_bytes / floor_bw_));
    cells.emplace_back(usec(bytes.combine_bytes / floor_bw_));
  }
  table_.row(size_t(bytes.dispatch_bytes), cells, usec(worst.dispatch + worst.combine));
}

int64_t pairs_sent(const std::vector<int32_t>& indices, int tokens, int topk) {
  return std::count_if(indices.begin(), indices.begin() + int64_t(tokens) * topk,
                       [](int32_t x) { return x >= 0; });
}

double host_seconds(const std::function<void()>& f) {
  auto t0 = std::chrono::steady_clock::now();
  f();
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

Point time_iterations(int warmup, int iters, const std::function<void()>& sync,
                      const std::function<void()>& dispatch, const std::function<void()>& experts,
                      const std::function<void()>& combine, const Timer& timed) {
  auto seconds = [&](const std::function<void()>& f) { return timed ? timed(f) : host_seconds(f); };
  Point p;
  for (int i = 0; i < warmup + iters; ++i) {
    sync();
    const double d = seconds(dispatch);
    experts();
    sync();
    const double c = seconds(combine);
    if (i >= warmup) {
      p.dispatch += d;
      p.combine += c;
    }
  }
  p.dispatch /= iters;
  p.combine /= iters;
  return p;
}

}  // namespace perftest::moe
