/* The scheduling floor of a barrier when PEs outnumber cores: N processes pinned to one core
 * pass a token round-robin with sched_yield, and the time per hand-off is printed. A barrier of
 * P PEs on C cores cannot finish before each core has run each of its P/C processes once, so
 * (P/C) hand-offs bound its latency from below, whatever the algorithm.
 *   gshmem_sched_handoff [N]   (default 4) */
#define _GNU_SOURCE
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

int main(int argc, char** argv) {
  int n = argc > 1 ? atoi(argv[1]) : 4;
  const long iters = 100000;
  volatile long* token =
      mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  if (n < 2 || token == MAP_FAILED) return 2;
  cpu_set_t one;
  CPU_ZERO(&one);
  CPU_SET(sched_getcpu(), &one);
  sched_setaffinity(0, sizeof one, &one);
  struct timespec a, b;
  clock_gettime(CLOCK_MONOTONIC, &a);
  for (int i = 0; i < n; ++i) {
    if (fork() == 0) {
      for (long k = 0; k < iters; ++k) {
        while (*token % n != i) sched_yield();
        __sync_fetch_and_add(token, 1);
      }
      _exit(0);
    }
  }
  for (int i = 0; i < n; ++i) wait(NULL);
  clock_gettime(CLOCK_MONOTONIC, &b);
  double ns = (b.tv_sec - a.tv_sec) * 1e9 + (b.tv_nsec - a.tv_nsec);
  printf("sched_handoff: %d processes on one core: %.3f us per hand-off\n", n,
         ns / 1e3 / (iters * n));
  return 0;
}
