// Latency of single-element puts, PE 0 -> PE 1, two ways:
//   p_latency    gshmem_longlong_p + gshmem_quiet, back to back (completion cost)
//   p_pingpong   PE 0 p's a counter to PE 1, which waits for it and p's it back; half the round
//                trip (delivery cost as a waiting peer sees it)
// The size column is the element size; -b/-e do not apply.
#include "gshmem/gshmem.h"
#include "perftest/common/gshmem_bench.hpp"
#include "perftest/common/timing.hpp"
#include "perftest/pt2pt/defaults.hpp"

namespace {

void measure(const perftest::Bench& b) {
  using namespace perftest;
  const Options& o = b.opts;
  constexpr size_t kSize = sizeof(long long);
  auto* flag = static_cast<long long*>(gshmem_calloc(1, kSize));

  Table quiet =
      b.table("p_latency", "gshmem_longlong_p + gshmem_quiet, PE 0 -> PE 1", {}, kLatency);
  gshmem_barrier_all();
  if (b.me == 0) {
    double t = seconds_per_iter(o.warmup, o.iters, [&](long k) {
      gshmem_longlong_p(flag, k, 1);
      gshmem_quiet();
    });
    quiet.row(kSize, usec(t));
  }
  gshmem_barrier_all();

  // Each PE clears its own flag of what the first table left; the barrier orders that before
  // the first ping. No quiet in the loop: OpenSHMEM puts complete without one, and a quiet would
  // add its own cost to the delivery being measured.
  *flag = 0;
  gshmem_barrier_all();
  Table pingpong = b.table(
      "p_pingpong", "gshmem_longlong_p + gshmem_longlong_wait_until, PE 0 <-> PE 1, half RTT", {},
      kLatency);
  if (b.me < 2) {
    const int peer = 1 - b.me;
    double t = seconds_per_iter(o.warmup, o.iters, [&](long k) {
      if (b.me == 0) {
        gshmem_longlong_p(flag, k + 1, peer);
        gshmem_longlong_wait_until(flag, GSHMEM_CMP_EQ, k + 1);
      } else {
        gshmem_longlong_wait_until(flag, GSHMEM_CMP_EQ, k + 1);
        gshmem_longlong_p(flag, k + 1, peer);
      }
    });
    pingpong.row(kSize, usec(t / 2));
  }
  gshmem_barrier_all();
  gshmem_free(flag);
}

}  // namespace

int main(int argc, char** argv) {
  perftest::Usage usage{"gshmem_p_latency",
                        "Latency of gshmem_longlong_p: p+quiet and ping-pong, PE 0 <-> PE 1."};
  return perftest::run_gshmem_bench(argc, argv, usage, perftest::pt2pt::element_latency_defaults(),
                                    2, measure);
}
