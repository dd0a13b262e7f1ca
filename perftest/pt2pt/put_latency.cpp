// Latency of one blocking gshmem_putmem followed by gshmem_quiet (the put is complete at the
// target when the pair returns), PE 0 -> PE 1.
#include <cstdlib>

#include "gshmem/gshmem.h"
#include "perftest/common/gshmem_bench.hpp"
#include "perftest/common/timing.hpp"
#include "perftest/pt2pt/defaults.hpp"

namespace {

void measure(const perftest::Bench& b) {
  using namespace perftest;
  const Options& o = b.opts;
  char* remote = static_cast<char*>(symmetric_alloc(o.max_size));
  char* local = private_alloc(o.max_size, 1);
  Table table = b.table("put_latency", "gshmem_putmem + gshmem_quiet, PE 0 -> PE 1", {}, kLatency);
  for (size_t size : o.sizes()) {
    gshmem_barrier_all();
    if (b.me == 0) {
      double t = seconds_per_iter(o.warmup, o.iters, [&](long) {
        gshmem_putmem(remote, local, size, 1);
        gshmem_quiet();
      });
      table.row(size, usec(t));
    }
    gshmem_barrier_all();
  }
  std::free(local);
  gshmem_free(remote);
}

}  // namespace

int main(int argc, char** argv) {
  perftest::Usage usage{"gshmem_put_latency",
                        "Latency of gshmem_putmem + gshmem_quiet, PE 0 -> PE 1."};
  return perftest::run_gshmem_bench(argc, argv, usage, perftest::pt2pt::rma_latency_defaults(), 2,
                                    measure);
}
