#include "perftest/common/gshmem_bench.hpp"

#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "gshmem/gshmem.h"

namespace perftest {

void* symmetric_alloc(size_t bytes) {
  void* p = gshmem_malloc(bytes);
  if (!p) gshmem_global_exit(1);
  return p;
}

char* private_alloc(size_t bytes, int fill) {
  auto* p = static_cast<char*>(std::aligned_alloc(4096, (bytes + 4095) / 4096 * 4096));
  if (!p) {
    std::fprintf(stderr, "perftest: PE %d: out of memory allocating %zu bytes\n", gshmem_my_pe(),
                 bytes);
    gshmem_global_exit(1);
  }
  std::memset(p, fill, bytes);
  return p;
}

int run_gshmem_bench(int argc, char** argv, const Usage& usage, const Options& defaults,
                     int min_pes, const std::function<void(const Bench&)>& body) {
  gshmem_init();
  Bench b{gshmem_my_pe(), gshmem_n_pes(), defaults};
  Args args = parse_args(argc, argv, usage, defaults, b.me == 0);
  int status = args.exit_code.value_or(0);
  if (!args.exit_code && b.npes < min_pes) {
    if (b.me == 0) {
      std::fprintf(stderr, "%s: needs at least %d PEs, got %d (run it as gshmemrun -n %d %s)\n",
                   usage.program, min_pes, b.npes, min_pes, usage.program);
    }
    status = 2;
  }
  if (!args.exit_code && status == 0) {
    b.opts = args.over(defaults);
    body(b);
  }
  gshmem_finalize();
  return status;
}

}  // namespace perftest
