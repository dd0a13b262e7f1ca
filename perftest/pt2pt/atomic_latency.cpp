// Latency of 64-bit remote atomics, PE 0 -> PE 1, one row per operation. Fetching forms are
// complete when they return; the non-fetching add is followed by gshmem_quiet to be complete too.
#include <cstdint>

#include "gshmem/gshmem.h"
#include "perftest/common/gshmem_bench.hpp"
#include "perftest/common/timing.hpp"
#include "perftest/pt2pt/defaults.hpp"

namespace {

void measure(const perftest::Bench& b) {
  using namespace perftest;
  const Options& o = b.opts;
  auto* word = static_cast<uint64_t*>(gshmem_calloc(1, sizeof(uint64_t)));
  Table table = b.table("atomic_latency", "gshmem_uint64_atomic_* on PE 1's word, from PE 0",
                        {{"op", "op"}}, kLatency);
  // Fetched values feed `sink`, so no call is dead code to the compiler.
  uint64_t sink = 0;
  auto row = [&](const char* op, auto&& body) {
    gshmem_barrier_all();
    if (b.me == 0)
      table.row(sizeof(uint64_t), {op}, usec(seconds_per_iter(o.warmup, o.iters, body)));
    gshmem_barrier_all();
  };
  row("fetch_add", [&](long) { sink += gshmem_uint64_atomic_fetch_add(word, 1, 1); });
  row("add", [&](long) {
    gshmem_uint64_atomic_add(word, 1, 1);
    gshmem_quiet();
  });
  // Only PE 0 writes the word, so tracking its value makes every compare_swap succeed.
  uint64_t expected = b.me == 0 ? gshmem_uint64_atomic_fetch(word, 1) : 0;
  row("compare_swap", [&](long) {
    uint64_t old = gshmem_uint64_atomic_compare_swap(word, expected, expected + 1, 1);
    expected = old == expected ? expected + 1 : old;
  });
  row("swap", [&](long k) { sink += gshmem_uint64_atomic_swap(word, uint64_t(k), 1); });
  row("fetch", [&](long) { sink += gshmem_uint64_atomic_fetch(word, 1); });
  keep(&sink);
  gshmem_free(word);
}

}  // namespace

int main(int argc, char** argv) {
  perftest::Usage usage{"gshmem_atomic_latency",
                        "Latency of 64-bit fetch_add, add+quiet, compare_swap, swap, fetch, "
                        "PE 0 -> PE 1."};
  return perftest::run_gshmem_bench(argc, argv, usage, perftest::pt2pt::element_latency_defaults(),
                                    2, measure);
}
