// Latency of gshmem_barrier_all (quiet + synchronisation) and gshmem_sync_all (synchronisation
// only) over every PE of the job; any number of PEs. PE 0's average is reported.
#include "gshmem/gshmem.h"
#include "perftest/common/gshmem_bench.hpp"
#include "perftest/common/timing.hpp"
#include "perftest/pt2pt/defaults.hpp"

namespace {

void measure(const perftest::Bench& b) {
  using namespace perftest;
  const Options& o = b.opts;
  Table table =
      b.table("barrier_latency", "all PEs, PE 0's time", {{"op", "op"}, {"PEs", "npes"}}, kLatency);
  auto row = [&](const char* op, auto&& body) {
    gshmem_barrier_all();
    double t = seconds_per_iter(o.warmup, o.iters, body);
    table.row(0, {op, b.npes}, usec(t));
  };
  row("barrier_all", [](long) { gshmem_barrier_all(); });
  row("sync_all", [](long) { gshmem_sync_all(); });
  gshmem_barrier_all();
}

}  // namespace

int main(int argc, char** argv) {
  perftest::Usage usage{"gshmem_barrier_latency",
                        "Latency of gshmem_barrier_all and gshmem_sync_all over all PEs."};
  return perftest::run_gshmem_bench(argc, argv, usage, perftest::pt2pt::barrier_defaults(), 1,
                                    measure);
}
