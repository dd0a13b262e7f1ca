// gshmem demo: run with `gshmemrun -n 4 gshmem_demo`.
//
// Each PE writes a greeting into its right neighbour's symmetric buffer with put-with-signal; the
// neighbour waits for the signal and prints what arrived. Then every PE adds to a counter on
// PE 0 with an atomic, a barrier makes the total visible, and PE 0 checks it.
#include <cstdio>
#include <cstring>
#include <unistd.h>

#include "gshmem/gshmem.h"

int main() {
  gshmem_init();
  int me = gshmem_my_pe(), n = gshmem_n_pes();
  char host[64] = "?";
  gethostname(host, sizeof host - 1);

  char* inbox = static_cast<char*>(gshmem_calloc(1, 128));
  uint64_t* arrived = static_cast<uint64_t*>(gshmem_calloc(1, sizeof(uint64_t)));
  long* counter = static_cast<long*>(gshmem_calloc(1, sizeof(long)));

  char greeting[128];
  std::snprintf(greeting, sizeof greeting, "hello from PE %d of %d (pid %d on %s)", me, n,
                int(getpid()), host);
  int right = (me + 1) % n, left = (me + n - 1) % n;
  gshmem_putmem_signal(inbox, greeting, sizeof greeting, arrived, 1, GSHMEM_SIGNAL_SET, right);
  gshmem_signal_wait_until(arrived, GSHMEM_CMP_EQ, 1);
  std::printf("PE %d received from its left neighbour PE %d: \"%s\"\n", me, left, inbox);
  std::fflush(stdout);

  for (int i = 0; i < 1000; ++i) gshmem_long_atomic_add(counter, me + 1, 0);
  gshmem_barrier_all();
  if (me == 0) {
    long want = 1000L * n * (n + 1) / 2;
    std::printf("PE 0: counter after %d PEs x 1000 atomic adds of (pe+1) = %ld (expected %ld) %s\n",
                n, *counter, want, *counter == want ? "OK" : "WRONG");
  }
  gshmem_free(counter);
  gshmem_free(arrived);
  gshmem_free(inbox);
  gshmem_finalize();
  return 0;
}
