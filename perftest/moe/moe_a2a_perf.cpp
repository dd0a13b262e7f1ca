// gshmem_moe_a2a_perf: MoE dispatch and combine latency and bandwidth through
// gshmem::moe::AllToAll, for DeepSeek-V3- and DeepSeek-V2-Lite-shaped layers, tokens per rank
// swept. On a GPU heap the calls run as kernels on a stream, timed with CUDA events, beside the
// floor (the bytes at the GPU's copy bandwidth, measured in the same run) and the published
// figures of pplx-garden and DeepEP. Every rank routes its tokens uniformly at random (top-k
// distinct experts); the first call of every point is checked against the reference
// (moe/reference.hpp) and any difference makes the exit status 1.
//
//   gshmemrun -n 4 gshmem_moe_a2a_perf [deepseek-v3] [deepseek-v2-lite] [-b 1 -e 128 -f 2]
//                                      [-n ITERS -w WARMUP] [--full] [--capacity-factor F]
//                                      [--json]
//
// The MPI baseline (perftest/baselines/mpi_moe_a2a.cpp) measures the same iterations the usual
// way; perftest/moe_compare.sh runs both side by side.
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "gshmem/gshmem.h"
#include "gshmem/moe.hpp"
#include "host/base/env.hpp"
#include "moe/reference.hpp"
#include "perftest/moe/moe_bench.hpp"
#include "perftest/moe/moe_memory.hpp"

namespace {

using namespace perftest::moe;
namespace ref = gshmem::moe::reference;

std::string format_factor(double f) {
  char buf[48];
  std::snprintf(buf, sizeof buf, "capacity factor %.3g", f);
  return buf;
}

// The slowest rank's timings and the ranks' mean bytes, on PE 0 (zeros elsewhere).
struct Reduced {
  Point worst, mean;
};

Reduced reduce(const Point& mine, int me, int n) {
  auto* all = static_cast<double*>(gshmem_calloc(size_t(4 * n), sizeof(double)));
  const double v[4] = {mine.dispatch, mine.combine, mine.dispatch_bytes, mine.combine_bytes};
  gshmem_putmem(all + 4 * me, v, sizeof v, 0);
  gshmem_barrier_all();
  Reduced r;
  if (me == 0) {
    // Through the API: on a GPU heap the symmetric copy is device memory.
    std::vector<double> got(size_t(4 * n));
    gshmem_getmem(got.data(), all, got.size() * sizeof(double), 0);
    for (int s = 0; s < n; ++s) {
      const double* p = got.data() + 4 * s;
      r.worst.dispatch = std::max(r.worst.dispatch, p[0]);
      r.worst.combine = std::max(r.worst.combine, p[1]);
      r.mean.dispatch_bytes += p[2] / n;
      r.mean.combine_bytes += p[3] / n;
    }
  }
  gshmem_free(all);
  return r;
}

// The published figures the GPU table is read beside (ANCHORS.md): not measured here.
void published_notes(MoeTable& table, const Shape& shape) {
  if (shape.name != "deepseek-v3") return;
  table.note(
      "published, not measured here (DeepSeek-V3 decode, 128 tokens per rank, EP8 on 8 "
      "GPUs): pplx-garden on EFA 49.7 us dispatch, 64.2 us combine; DeepEP on InfiniBand "
      "77 us dispatch, 114 us combine");
}

// Runs the sweep of one shape; returns the number of differences from the reference found here.
// On a GPU heap the inputs are device memory and every call is enqueued on one stream and timed
// with CUDA events (Memory).
int run_shape(const MoeOptions& o, const Shape& shape, int me, int n, bool gpu) {
  std::unique_ptr<Memory> mem = gpu ? gpu_memory() : host_memory();
  void* stream = mem->stream();
  // Every PE measures at once: PEs that share a GPU share its bandwidth in the calls too.
  gshmem_barrier_all();
  const double floor_bw = mem->copy_bandwidth();
  MoeTable table(
      "moe_a2a", shape, n,
      gpu ? "gshmem::moe::AllToAll kernels on a stream (GPU heap)" : "gshmem::moe::AllToAll",
      o.base.json, me == 0, floor_bw);
  if (gpu) published_notes(table, shape);
  std::string memory = "symmetric buffers per PE:";
  int wrong = 0;
  for (int tokens : o.tokens) {
    gshmem::moe::Config cfg = shape.config(tokens, o.factor(tokens));
    auto a2a = std::make_unique<gshmem::moe::AllToAll>(cfg);
    auto all = ref::synthesize_all(cfg, n, std::vector<int32_t>(size_t(n), tokens),
                                   ref::Routing::Uniform, uint64_t(tokens));
    const ref::Inputs& in = all[size_t(me)];
    const size_t yb = size_t(cfg.hidden) * gshmem::moe::dtype_size(cfg.combine_type);
    const void* x = mem->upload(in.x);
    const float* scales = in.scales.empty() ? nullptr : mem->upload(in.scales);
    const int32_t* indices = mem->upload(in.indices);
    const int32_t* count = mem->upload(std::vector<int32_t>{in.tokens});
    const float* weights = mem->upload(in.weights);

    // The checked call; its expert outputs serve every timed iteration (the same routing each
    // time, so the same rows). A capacity-sized handle may not take it: every rank says so
    // alike, and all retry with a handle of the factor the overflow asks for.
    gshmem::moe::ExpertBatch b;
    for (;;) {
      try {
        b = a2a->dispatch(x, scales, indices, count, stream);
        a2a->sync(stream);  // a GPU heap reports an overflow here
        break;
      } catch (const gshmem::moe::CapacityError& e) {
        cfg.capacity_factor = e.overflow().min_capacity_factor;
        table.note(std::to_string(tokens) + " tokens: " + e.reason() + "; retrying with " +
                   format_factor(cfg.capacity_factor));
        a2a.reset();
        a2a = std::make_unique<gshmem::moe::AllToAll>(cfg);
      }
    }
    memory += " " + std::to_string(tokens) + " tok " +
              gshmem::format_bytes(a2a->info().symmetric_bytes) + " (" +
              (cfg.capacity_factor > 0 ? format_factor(cfg.capacity_factor) : "worst case") + ");";
    std::vector<std::vector<uint8_t>> batch_copy;
    const gshmem::moe::ExpertBatch hb = mem->to_host(b, batch_copy);
    std::string bad = ref::check_dispatch(cfg, n, all, me, hb);
    std::vector<uint8_t> y_host(size_t(b.num_local_experts) * size_t(b.expert_capacity) * yb);
    ref::run_experts(cfg, me, hb, y_host.data());
    const void* y = mem->upload(y_host);
    std::vector<uint8_t> out_host(size_t(tokens) * yb);
    void* out = mem->scratch(out_host.size());
    a2a->combine(out, y, weights, stream);
    mem->download(out_host.data(), out, out_host.size());
    if (bad.empty()) {
      bad =
          ref::check_combine(cfg, out_host.data(), ref::expected_combine(cfg, n, all, me), tokens);
    }
    if (!bad.empty()) {
      std::fprintf(stderr, "gshmem_moe_a2a_perf: PE %d, %s, %d tokens: wrong result: %s\n", me,
                   shape.name.c_str(), tokens, bad.c_str());
      ++wrong;
    }

    Point mine = time_iterations(
        o.warmup(tokens), o.iters(tokens), [] { gshmem_barrier_all(); },
        [&] { a2a->dispatch(x, scales, indices, count, stream); }, [] {},
        [&] { a2a->combine(out, y, weights, stream); },
        [&](const std::function<void()>& f) { return mem->time(f); });
    const int64_t rows = pairs_sent(in.indices, tokens, cfg.experts_per_token);
    mine.dispatch_bytes = double(rows) * double(b.token_bytes + b.scales_per_token * 4);
    mine.combine_bytes = double(rows) * double(yb);
    Reduced r = reduce(mine, me, n);
    table.row(tokens, r.worst, r.mean);
  }
  table.note(memory);
  return wrong;
}

}  // namespace

int main(int argc, char** argv) {
  gshmem_init();
  const int me = gshmem_my_pe(), n = gshmem_n_pes();
  Parsed parsed =
      parse(argc, argv, "gshmem_moe_a2a_perf",
            "MoE dispatch/combine latency and bandwidth through gshmem::moe::AllToAll", me == 0, n);
  int status = parsed.exit_code.value_or(0);
  if (!parsed.exit_code) {
    int wrong = 0;
    try {
      const bool gpu = gshmemx_heap_kind() == GSHMEMX_HEAP_DEVICE;
      for (const Shape& s : parsed.opts.shapes) wrong += run_shape(parsed.opts, s, me, n, gpu);
    } catch (const gshmem::Error& e) {  // e.g. a symmetric heap too small for the buffers
      if (me == 0) std::fprintf(stderr, "gshmem_moe_a2a_perf: %s\n", e.what());
      gshmem_finalize();
      return 1;
    }
    auto* total = static_cast<int*>(gshmem_calloc(1, sizeof(int)));
    gshmem_int_atomic_add(total, wrong, 0);
    gshmem_barrier_all();
    if (gshmem_int_g(total, 0)) status = 1;
    if (me == 0 && status)
      std::printf("# wrong results on %d rank(s): FAILED\n", gshmem_int_g(total, 0));
    gshmem_free(total);
  }
  gshmem_finalize();
  return status;
}
