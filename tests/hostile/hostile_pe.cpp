// The job the hostile tests attack (tests/hostile): PEs that keep doing checked work (puts,
// atomics, heap allocations, which go through the bootstrap server) until the file named by
// HOSTILE_STOP appears or 60 s pass. PE 0 prints the job's addresses for the attacker; every PE
// prints "hostile-ok pe=P rounds=R" when every value it checked was right, then finalizes.
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "gshmem/gshmem.h"

int main() {
  gshmem_init();
  int me = gshmem_my_pe(), n = gshmem_n_pes();
  const char* stop_path = std::getenv("HOSTILE_STOP");
  const char* addr = std::getenv("GSHMEM_LAUNCHER_ADDR");
  std::printf("pe-pid pe=%d pid=%d\n", me, int(::getpid()));
  if (me == 0) std::printf("launcher-addr=%s\n", addr ? addr : "");
  std::fflush(stdout);
  auto* slots = static_cast<long*>(gshmem_calloc(size_t(n), sizeof(long)));
  auto* counter = static_cast<long*>(gshmem_calloc(1, sizeof(long)));
  auto* stop = static_cast<int*>(gshmem_calloc(1, sizeof(int)));
  long bad = 0, added = 0;
  int rounds = 0;
  auto start = std::chrono::steady_clock::now();
  while (!*stop) {
    ++rounds;
    for (int t = 0; t < n; ++t) {
      gshmem_long_p(&slots[me], rounds * 1000L + me, t);
      gshmem_long_atomic_add(counter, rounds, t);
    }
    added += rounds;
    // A collective allocation: agreement through the bootstrap server while it is attacked.
    void* p = gshmem_malloc(4096);
    if (!p) ++bad;
    gshmem_barrier_all();
    for (int s = 0; s < n; ++s) bad += slots[s] != rounds * 1000L + s;
    gshmem_free(p);
    if (me == 0) {
      struct stat st;
      double elapsed =
          std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      int done = (stop_path && ::stat(stop_path, &st) == 0) || elapsed > 60;
      for (int t = 0; t < n; ++t) gshmem_int_p(stop, done, t);
    }
    gshmem_barrier_all();
    ::usleep(20000);
  }
  gshmem_barrier_all();
  // Every PE added 1 + 2 + ... + rounds to every PE's counter.
  bad += *counter != added * n;
  if (bad == 0)
    std::printf("hostile-ok pe=%d rounds=%d\n", me, rounds);
  else
    std::printf("hostile-bad pe=%d wrong=%ld counter=%ld want=%ld\n", me, bad, *counter, added * n);
  std::fflush(stdout);
  gshmem_finalize();
  return bad ? 1 : 0;
}
