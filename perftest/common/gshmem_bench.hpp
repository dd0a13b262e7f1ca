// Start-up and shut-down shared by the gshmem perftest programs: init, the command line (usage and
// errors printed by PE 0 only), the PE-count check, finalize. The measuring code gets a Bench.
#pragma once

#include <functional>

#include "perftest/common/options.hpp"
#include "perftest/common/table.hpp"

namespace perftest {

struct Bench {
  int me;
  int npes;
  Options opts;

  // A table that only PE 0 prints.
  Table table(std::string test, const std::string& title, std::vector<Column> extra,
              Metric metric) const {
    return Table(std::move(test), title, std::move(extra), metric, opts.json, me == 0);
  }
};

// Both end the job (status 1) when memory runs out; gshmem_malloc has already said why.
// gshmem_malloc, collective. Release with gshmem_free.
void* symmetric_alloc(size_t bytes);
// Private, page-aligned and filled with `fill`, so a timed loop takes no first-touch faults.
// Release with std::free.
char* private_alloc(size_t bytes, int fill);

// Returns main()'s status. body runs on every PE when the job has at least min_pes PEs.
int run_gshmem_bench(int argc, char** argv, const Usage& usage, const Options& defaults,
                     int min_pes, const std::function<void(const Bench&)>& body);

}  // namespace perftest
