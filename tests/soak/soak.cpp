// The soak: the verified mix of tests/soak/mix.hpp, iteration after iteration for a bounded time,
// while what a leak would make grow is watched: each PE's resident memory and open descriptors,
// the symmetric heap's bytes and blocks in use, and /dev/shm on each node.
//
//   gshmemrun -n 8 --ppn 4 soak [--seconds S] [--iterations N] [--sample S] [--warmup N]
//                               [--settle S] [--rss-slack-kib K] [--parts LIST]
//
// The baseline is taken after the warm-up iterations (the first of which uses the largest size
// of every choice, so allocators, pools and connections reach their high-water marks), the end
// figures after the last iteration, both with the run's own objects alive. With --settle S the
// warm-up goes on (for at most S seconds) until no PE's resident memory grew by more than 512 KiB
// over the last 100 iterations. What settles so is a ring of fixed size becoming resident as its
// write position goes round: rxm's completion queue, sized for FI_UNIVERSE_SIZE peers ((128 + 128)
// * 256 entries of 192 bytes at libfabric's default, 12 MiB per PE), fills over the first 65536
// completions, ~600 iterations: +12 MiB, flat after (FI_UNIVERSE_SIZE=8 leaves +1 MiB). The
// growth measured after it is the run's own. A leak does not settle: the warm-up ends at S and the
// growth after it still fails the run. Samples in between (every --sample seconds) show a trend.
// Fails (exit 1 on every PE) on any wrong result, on a descriptor, heap byte, heap block or
// /dev/shm entry more at the end than at the baseline, or on resident memory grown by more than the
// slack (8 MiB and 2 % of the baseline by default: what the allocators may still take as the run
// goes, and far less than a leak of a few KiB per iteration adds up to over a run of hundreds of
// iterations).
//
// Seeded from PE 0's clock, or MP_TEST_SEED to reproduce a run.
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <set>
#include <string>
#include <vector>

#include "gshmem/collectives.h"
#include "gshmem/gshmem.h"
#include "host/runtime/runtime.hpp"
#include "tests/common/mp_util.hpp"
#include "tests/soak/mix.hpp"
#include "tests/soak/resources.hpp"

namespace {

struct Options {
  double seconds = 0;   // 0: bounded by iterations only
  long iterations = 0;  // 0: bounded by time only
  double sample = 10;
  long warmup = 2;
  double settle = 0;  // seconds the warm-up may go on until resident memory is flat
  long rss_slack_kib = 8192;
  double rss_slack_pct = 2;
  unsigned parts = soak::Mix::kAll;
};

[[noreturn]] void usage(const char* why) {
  std::fprintf(
      stderr,
      "soak: %s\nusage: soak [--seconds S] [--iterations N] [--sample S] [--warmup N] "
      "[--settle S] [--rss-slack-kib K] [--parts heap,rma,atomics,signals,collectives,teams,moe]\n",
      why);
  std::exit(2);
}

Options parse(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (i + 1 >= argc) usage(("missing value after " + a).c_str());
    const char* v = argv[++i];
    if (a == "--parts") {
      if (!(o.parts = soak::Mix::parse_parts(v)))
        usage(("bad part list '" + std::string(v) + "'").c_str());
      continue;
    }
    char* end = nullptr;
    double d = std::strtod(v, &end);
    if (!*v || *end || d < 0) usage(("bad value '" + std::string(v) + "' of " + a).c_str());
    if (a == "--seconds") {
      o.seconds = d;
    } else if (a == "--iterations") {
      o.iterations = long(d);
    } else if (a == "--sample") {
      o.sample = d;
    } else if (a == "--warmup") {
      o.warmup = long(d);
    } else if (a == "--settle") {
      o.settle = d;
    } else if (a == "--rss-slack-kib") {
      o.rss_slack_kib = long(d);
    } else {
      usage(("unknown option " + a).c_str());
    }
  }
  if (o.seconds == 0 && o.iterations == 0) usage("give --seconds or --iterations");
  if (o.warmup < 1) usage("--warmup must be at least 1 (the largest sizes come first)");
  return o;
}

// What is measured on each PE.
struct Figures {
  int64_t rss_kib, anon_kib, shmem_kib, fds, heap_bytes, heap_blocks;
};

Figures measure() {
  const auto& a = gshmem::detail::default_runtime()->heap().allocator();
  soak::Rss r = soak::rss_kib();
  return {r.total, r.anon, r.shmem, soak::open_fds(), int64_t(a.used()), int64_t(a.blocks())};
}

std::vector<Figures> gather(const Figures& mine) {
  std::vector<Figures> all(static_cast<size_t>(gshmem_n_pes()));
  gshmem_allgather(GSHMEM_TEAM_WORLD, all.data(), &mine, sizeof(Figures) / sizeof(int64_t),
                   GSHMEM_INT64, nullptr);
  return all;
}

void print_sample(double t, long it, const std::vector<Figures>& now,
                  const std::vector<Figures>& base) {
  int64_t rmin = now[0].rss_kib, rmax = rmin, dmax = now[0].rss_kib - base[0].rss_kib;
  int64_t fmin = now[0].fds, fmax = fmin, fd = now[0].fds - base[0].fds;
  int64_t anon = now[0].anon_kib - base[0].anon_kib, shmem = now[0].shmem_kib - base[0].shmem_kib;
  for (size_t p = 0; p < now.size(); ++p) {
    rmin = std::min(rmin, now[p].rss_kib);
    rmax = std::max(rmax, now[p].rss_kib);
    dmax = std::max(dmax, now[p].rss_kib - base[p].rss_kib);
    fmin = std::min(fmin, now[p].fds);
    fmax = std::max(fmax, now[p].fds);
    fd = std::max(fd, now[p].fds - base[p].fds);
    anon = std::max(anon, now[p].anon_kib - base[p].anon_kib);
    shmem = std::max(shmem, now[p].shmem_kib - base[p].shmem_kib);
  }
  std::printf(
      "soak: sample t=%7.1fs iteration %6ld  rss %lld..%lld KiB (max growth %+lld KiB: anon "
      "%+lld, shmem %+lld)  fds %lld..%lld (max growth %+lld)  heap %lld bytes in %lld blocks\n",
      t, it, (long long)rmin, (long long)rmax, (long long)dmax, (long long)anon, (long long)shmem,
      (long long)fmin, (long long)fmax, (long long)fd, (long long)now[0].heap_bytes,
      (long long)now[0].heap_blocks);
  std::fflush(stdout);
}

}  // namespace

int main(int argc, char** argv) {
  Options opt = parse(argc, argv);
  gshmem_init();
  const int me = gshmem_my_pe(), n = gshmem_n_pes();
  const bool node_leader = gshmem_team_my_pe(GSHMEM_TEAM_NODE) == 0;
  const uint64_t seed = gshmem_test::job_seed();
  const auto t0 = std::chrono::steady_clock::now();
  auto elapsed = [&] {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  };

  // The job's processes, so /dev/shm entries they hold are not taken for another job's.
  std::vector<int64_t> pids(static_cast<size_t>(n));
  int64_t my_pid = getpid();
  gshmem_allgather(GSHMEM_TEAM_WORLD, pids.data(), &my_pid, 1, GSHMEM_INT64, nullptr);
  std::set<long> job_pids(pids.begin(), pids.end());
  job_pids.insert(long(getppid()));  // gshmemrun
  const std::set<std::string> shm_at_init = soak::shm_entries();
  const long rss_at_init = soak::rss_kib().total;

  soak::Checker checker(seed);
  long it = 0, warmed = 0;
  std::vector<Figures> base, now;
  {
    soak::Mix mix(opt.parts);
    for (; it < opt.warmup; ++it) {
      checker.set_iteration(it);
      mix.iteration(it, gshmem_test::key(seed, "iteration", it), it == 0, checker);
    }
    // Settling: the warm-up goes on while some PE's RSS still grows (PE 0's clock bounds it).
    constexpr long kSettleWindow = 100;
    constexpr int64_t kSettleKib = 512;
    base = gather(measure());
    const double t_settle = elapsed();
    long settled_at = -1;
    while (opt.settle > 0) {
      for (long w = 0; w < kSettleWindow; ++w, ++it) {
        checker.set_iteration(it);
        mix.iteration(it, gshmem_test::key(seed, "iteration", it), false, checker);
      }
      std::vector<Figures> s = gather(measure());
      int64_t grew = 0;
      for (size_t p = 0; p < s.size(); ++p) grew = std::max(grew, s[p].rss_kib - base[p].rss_kib);
      int64_t ctl[2] = {grew <= kSettleKib, elapsed() - t_settle >= opt.settle};
      gshmem_broadcast(GSHMEM_TEAM_WORLD, ctl, ctl, 2, GSHMEM_INT64, 0, nullptr);
      if (me == 0) {
        std::printf("soak: settling, iteration %ld: max RSS growth over the last %ld %+lld KiB\n",
                    it, kSettleWindow, (long long)grew);
        std::fflush(stdout);
      }
      base = s;
      if (ctl[0]) {
        settled_at = it;
        break;
      }
      if (ctl[1]) break;
    }
    if (me == 0 && opt.settle > 0) {
      if (settled_at >= 0) {
        std::printf("soak: resident memory settled after %ld iterations, %.1fs\n", settled_at,
                    elapsed());
      } else {
        std::printf("soak: resident memory did not settle in %.0fs; measuring from here\n",
                    opt.settle);
      }
    }
    warmed = it;
    const std::set<std::string> fds_at_base = soak::fd_targets();
    const double t_base = elapsed();
    if (me == 0) {
      std::printf("soak: %d PEs, seed %llu, warm-up of %ld iterations took %.1fs\n", n,
                  (unsigned long long)seed, warmed, t_base);
      print_sample(t_base, it, base, base);
    }
    double next_sample = t_base + opt.sample;
    for (;;) {
      // PE 0's clock decides, for everyone: stop, and take a sample.
      int64_t ctl[2] = {0, 0};
      if (me == 0) {
        double t = elapsed();
        // Both bounds count from the baseline: what is measured.
        ctl[0] = (opt.seconds > 0 && t - t_base >= opt.seconds) ||
                 (opt.iterations > 0 && it - warmed >= opt.iterations);
        ctl[1] = !ctl[0] && opt.sample > 0 && t >= next_sample;
        if (ctl[1]) next_sample = t + opt.sample;
      }
      gshmem_broadcast(GSHMEM_TEAM_WORLD, ctl, ctl, 2, GSHMEM_INT64, 0, nullptr);
      if (ctl[0]) break;
      if (ctl[1]) {
        auto s = gather(measure());
        if (me == 0) print_sample(elapsed(), it, s, base);
      }
      checker.set_iteration(it);
      mix.iteration(it, gshmem_test::key(seed, "iteration", it), false, checker);
      ++it;
    }
    now = gather(measure());
    if (now[size_t(me)].fds > base[size_t(me)].fds) {
      // Name what is new (the listing's own descriptor differs each time: not named).
      for (const std::string& f : soak::fd_targets()) {
        if (!fds_at_base.count(f) && f.find("/proc/") == std::string::npos) {
          std::fprintf(stderr, "[PE %d] descriptor opened during the soak: %s\n", me, f.c_str());
        }
      }
    }
    if (me == 0) std::printf("soak: time on PE 0 by part: %s\n", mix.times().c_str());
  }
  const double duration = elapsed();

  // /dev/shm, on each node's first PE: what appeared since init and is not another job's.
  int64_t shm[3] = {-1, -1, -1};  // entries at init, at the end, ours among the new ones
  if (node_leader) {
    auto end = soak::shm_entries();
    auto ours = soak::new_shm_entries(shm_at_init, end, job_pids);
    shm[0] = int64_t(shm_at_init.size());
    shm[1] = int64_t(end.size());
    shm[2] = int64_t(ours.size());
    for (const std::string& e : ours) {
      std::fprintf(stderr, "[PE %d] /dev/shm/%s appeared during the soak\n", me, e.c_str());
    }
  }
  std::vector<int64_t> shm_all(static_cast<size_t>(3 * n));
  gshmem_allgather(GSHMEM_TEAM_WORLD, shm_all.data(), shm, 3, GSHMEM_INT64, nullptr);
  int64_t failures = checker.failures(), total_failures = 0;
  gshmem_allreduce(GSHMEM_TEAM_WORLD, &total_failures, &failures, 1, GSHMEM_INT64, GSHMEM_SUM,
                   nullptr);

  int bad = total_failures ? 1 : 0;
  if (me == 0) {
    print_sample(duration, it, now, base);
    std::printf("soak: %ld iterations (%ld after the warm-up) in %.1fs, %lld failed checks\n", it,
                it - warmed, duration, (long long)total_failures);
    std::printf("soak: RSS at init %ld KiB on PE 0; the baseline is after the warm-up\n",
                rss_at_init);
    std::printf(
        "  PE   rss start    rss end    delta (anon  shmem)  fds start  end  delta  heap bytes "
        "start      end  blocks start  end\n");
    for (int p = 0; p < n; ++p) {
      const Figures& b = base[size_t(p)];
      const Figures& e = now[size_t(p)];
      int64_t slack = std::max<int64_t>(opt.rss_slack_kib,
                                        int64_t(double(b.rss_kib) * opt.rss_slack_pct / 100));
      bool grew = e.rss_kib - b.rss_kib > slack || e.fds > b.fds || e.heap_bytes > b.heap_bytes ||
                  e.heap_blocks > b.heap_blocks;
      std::printf(
          "  %2d %9lld KiB %9lld %+8lld (%+5lld %+6lld)  %9lld %4lld %+6lld  %16lld %8lld  %12lld "
          "%4lld%s\n",
          p, (long long)b.rss_kib, (long long)e.rss_kib, (long long)(e.rss_kib - b.rss_kib),
          (long long)(e.anon_kib - b.anon_kib), (long long)(e.shmem_kib - b.shmem_kib),
          (long long)b.fds, (long long)e.fds, (long long)(e.fds - b.fds), (long long)b.heap_bytes,
          (long long)e.heap_bytes, (long long)b.heap_blocks, (long long)e.heap_blocks,
          grew ? "  GREW" : "");
      bad |= grew ? 1 : 0;
    }
    for (int p = 0; p < n; ++p) {
      const int64_t* s = &shm_all[size_t(3 * p)];
      if (s[0] < 0) continue;
      std::printf(
          "  /dev/shm seen by PE %d (first of its node): %lld entries at init, %lld at the "
          "end, %lld new ones of this job%s\n",
          p, (long long)s[0], (long long)s[1], (long long)s[2], s[2] ? "  GREW" : "");
      bad |= s[2] ? 1 : 0;
    }
    std::printf("soak: %s (slack: rss %ld KiB or %.0f%% of the baseline, fds/heap/dev-shm 0)\n",
                bad ? "FAILED" : "passed", opt.rss_slack_kib, opt.rss_slack_pct);
    std::fflush(stdout);
  }
  int64_t verdict = bad;
  gshmem_broadcast(GSHMEM_TEAM_WORLD, &verdict, &verdict, 1, GSHMEM_INT64, 0, nullptr);
  gshmem_finalize();
  return verdict ? 1 : 0;
}
