#include "perftest/pt2pt/rma_bw.hpp"

#include <cstdlib>
#include <cstring>
#include <string>

#include "gshmem/gshmem.h"
#include "perftest/common/gshmem_bench.hpp"
#include "perftest/common/timing.hpp"
#include "perftest/pt2pt/defaults.hpp"

namespace perftest {

namespace {

constexpr size_t kSummarySize = size_t(1) << 20;

void measure(const Bench& b, RmaDirection dir) {
  const Options& o = b.opts;
  const bool put = dir == RmaDirection::Put;
  const std::string test = put ? "put_bw" : "get_bw";
  const char* call = put ? "gshmem_putmem_nbi" : "gshmem_getmem_nbi";
  // The remote end lives in the symmetric heap; the local end and the memcpy pair are private.
  // All page-aligned and touched: neither side of the comparison pays first-touch faults or
  // gets a luckier alignment.
  char* remote = static_cast<char*>(symmetric_alloc(o.max_size));
  std::memset(remote, b.me, o.max_size);
  char* local = private_alloc(o.max_size, 1);
  char* copy_src = private_alloc(o.max_size, 2);
  char* copy_dst = private_alloc(o.max_size, 3);

  Table table = b.table(test,
                        "window of " + std::to_string(o.window) + " " + call +
                            " + gshmem_quiet, PE 0 <-> PE 1; memcpy: the same loop, PE 0 alone",
                        {{"memcpy(GB/s)", "memcpy"}}, kBandwidth);
  double ratio_at_summary = -1;
  for (size_t size : o.sizes()) {
    gshmem_barrier_all();
    if (b.me == 0) {
      // NVSHMEM's loop shape: every operation of the window hits the same addresses. The
      // memcpy reference repeats exactly that, so both see the same cache behaviour.
      double t_copy = seconds_per_iter(o.warmup, o.iters, [&](long) {
        for (int w = 0; w < o.window; ++w) {
          std::memcpy(copy_dst, copy_src, size);
          keep(copy_dst);
        }
      });
      double t_rma = seconds_per_iter(o.warmup, o.iters, [&](long) {
        for (int w = 0; w < o.window; ++w) {
          if (put) {
            gshmem_putmem_nbi(remote, local, size, 1);
          } else {
            gshmem_getmem_nbi(local, remote, size, 1);
          }
        }
        gshmem_quiet();
        keep(local);
      });
      double bytes = double(size) * o.window;
      table.row(size, {gb_per_s(bytes, t_copy)}, gb_per_s(bytes, t_rma));
      if (size == kSummarySize) ratio_at_summary = t_copy / t_rma;
    }
    gshmem_barrier_all();
  }
  if (ratio_at_summary >= 0) {
    char line[64];
    std::snprintf(line, sizeof line, "%s/memcpy at 1 MiB: %.2f", test.c_str(), ratio_at_summary);
    table.note(line);
  }
  std::free(copy_dst);
  std::free(copy_src);
  std::free(local);
  gshmem_free(remote);
}

}  // namespace

int rma_bw_main(int argc, char** argv, RmaDirection dir) {
  const bool put = dir == RmaDirection::Put;
  Usage usage{put ? "gshmem_put_bw" : "gshmem_get_bw",
              put ? "Bandwidth of windows of gshmem_putmem_nbi + gshmem_quiet, PE 0 -> PE 1."
                  : "Bandwidth of windows of gshmem_getmem_nbi + gshmem_quiet, PE 0 <- PE 1."};
  return run_gshmem_bench(argc, argv, usage, pt2pt::bandwidth_defaults(), 2,
                          [dir](const Bench& b) { measure(b, dir); });
}

}  // namespace perftest
