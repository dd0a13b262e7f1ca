// gshmem_planner_check: is the planner's choice the fastest algorithm on this machine? Measures
// every candidate (algorithm + protocol) of each collective at each size of the sweep, the way
// gshmem-info --calibrate does (collectives/calibrate.hpp), then compares the time of the
// candidate the planner chooses with the best measured one, for the planner as this job runs it
// (its calibration, if PE 0 found one, else the constants) and for the constants alone. Among
// the candidates it also times the calls with nothing forced, the planner as a program runs it:
// its plan and, for long calls (256 KiB and up, or 10 us), its live choices
// (collectives/adapt.hpp), which follow the machine when it runs the plan slower than calibrated.
// The "live" columns compare that time with the best candidate's. As for a program that calls a
// shape often, with GSHMEM_ADAPT_PROBE=1 the live calls are timed after the probe of the live
// choice's first epochs (each candidate runs an epoch once per shape; untimed here, as every
// candidate's first calls are).
//
//   gshmemrun -n 4 [--ppn 2] gshmem_planner_check [op=allreduce,...,sizes=8-64M,reps=3]
//                                                 [--tolerance 1.10] [--record FILE]
//   gshmem_planner_check --judge FILE [--tolerance 1.10]
//
// On a shared machine one job's measurement is one sample of it: which of two close candidates
// is faster can change from job to job. --record adds this job's measurements to FILE as a run
// (the calibration file's format, one run per job); --judge, outside a job, compares the planner's
// choices (with the calibration the jobs used) with each candidate's mean time over the
// recorded runs. The live times go to FILE.live, a line per collective, size and job.
//
// Exit status: 0 every chosen candidate within the tolerance of the best, 1 one is not, 2 bad
// arguments or an unreadable FILE.
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "collectives/calibrate.hpp"
#include "collectives/coll_host.hpp"
#include "gshmem/collectives.h"
#include "gshmem/gshmem.h"
#include "host/base/env.hpp"

namespace gc = gshmem::coll;

namespace {

std::string name_of(gc::Algo a, gc::Proto p) {
  return std::string(gc::algo_name(a)) + (p == gc::Proto::LL ? "/ll" : "");
}

// Prints, per collective and size of `measured`, the planner's choice on `shape` against the
// candidate with the least time (each candidate's mean over the table's runs). Returns 1 when
// a choice is slower than the best by more than `tolerance`.
// `live`: the planner's calls with nothing forced, at the same sizes (each point's mean over the
// jobs), shown beside.
int judge(const gc::CalTable& measured, const gc::TeamShape& shape, double tolerance,
          const std::vector<gc::CalCurve>& live) {
  int status = 0;
  double worst = 1, worst_model = 1, worst_live = 0;
  std::vector<gc::Coll> colls;
  for (const gc::CalCurve& c : measured.curves) {
    bool seen = false;
    for (gc::Coll k : colls) seen = seen || k == c.coll;
    if (!seen) colls.push_back(c.coll);
  }
  for (gc::Coll coll : colls) {
    std::vector<std::pair<gc::Algo, gc::Proto>> cands;
    std::vector<uint64_t> sizes;
    for (const gc::CalCurve& c : measured.curves) {
      if (c.coll != coll || c.run != 0) continue;
      cands.emplace_back(c.algo, c.proto);
      if (sizes.empty()) {
        for (const auto& pt : c.points) sizes.push_back(pt.first);
      }
    }
    const gc::CalCurve* lc = nullptr;
    for (const gc::CalCurve& c : live) {
      if (c.coll == coll) lc = &c;
    }
    std::printf("\n# %s\n%10s %-12s %10s %-12s %10s %7s | %-12s %7s | %10s %7s\n",
                gc::coll_name(coll), "bytes", "chosen", "us", "best", "us", "ratio", "constants",
                "ratio", "live us", "ratio");
    for (uint64_t bytes : sizes) {
      size_t best = 0;
      std::vector<double> t(cands.size());
      for (size_t i = 0; i < cands.size(); ++i) {
        t[i] = measured.mean_us(coll, cands[i].first, cands[i].second, bytes);
        if (t[i] >= 0 && (t[best] < 0 || t[i] < t[best])) best = i;
      }
      auto time_of = [&](const gc::Plan& p) {
        for (size_t i = 0; i < cands.size(); ++i) {
          if (cands[i] == std::make_pair(p.algo, p.proto)) return t[i];
        }
        return -1.0;
      };
      gc::Overrides as_run, model;
      model.use_calibration = false;
      const gc::Plan p = gc::make_plan(coll, shape, bytes, as_run);
      const gc::Plan m = gc::make_plan(coll, shape, bytes, model);
      const double tp = time_of(p), tm = time_of(m), tb = t[best];
      const double ratio = tp > 0 ? tp / tb : 99, ratio_m = tm > 0 ? tm / tb : 99;
      worst = std::max(worst, ratio);
      worst_model = std::max(worst_model, ratio_m);
      if (ratio > tolerance) status = 1;
      std::printf("%10llu %-12s %10.2f %-12s %10.2f %7.2f%s| %-12s %7.2f",
                  (unsigned long long)bytes, name_of(p.algo, p.proto).c_str(), tp,
                  name_of(cands[best].first, cands[best].second).c_str(), tb, ratio,
                  ratio > tolerance ? "*" : " ", name_of(m.algo, m.proto).c_str(), ratio_m);
      double tl = -1;
      for (size_t i = 0; lc && i < lc->points.size(); ++i) {
        if (lc->points[i].first == bytes) tl = lc->points[i].second;
      }
      if (tl > 0) {
        worst_live = std::max(worst_live, tl / tb);
        std::printf(" | %10.2f %7.2f", tl, tl / tb);
      }
      std::printf("\n");
    }
  }
  std::printf("\n# worst ratio: %.2f with the planner as run, %.2f with the constants: %s\n", worst,
              worst_model, status ? "target missed (* rows)" : "every choice within the target");
  if (worst_live > 0) {
    std::printf(
        "# worst live ratio: %.2f (the calls with nothing forced against the best "
        "candidate)\n",
        worst_live);
  }
  return status;
}

// Nanoseconds one way of a cache line passed back and forth between PE 0 and PE 1 (the least of 100
// batches of 20 round trips, so a batch the scheduler cut into does not count); -1 where they are
// on different nodes (or the job has one PE). Collective. The host moves a job's vCPUs: measured
// here, 30-60 ns while it runs them as siblings of one core and 160-240 ns while it has placed them
// apart, the state changing within seconds. Algorithms that read what a peer has just written run
// 2-3x slower in the second (AllReduce 8 MiB, 14 jobs: direct2 0.72-1.04 ms against 1.6-2.4 ms,
// direct by LL 1.3-1.7 against 2.6-3.5, direct 0.63-0.96 in both), so a check job's ratios can move
// with it. PE 0 gets the time; the others get -1, and so does PE 0 when no batch finished within a
// second (a partner that stopped answering). The spin has no pause instruction: on some x86 cores
// one costs more than the handoff it would wait for.
double handoff_ns() {
  using clock = std::chrono::steady_clock;
  auto* word = static_cast<long long*>(gshmem_calloc(1, sizeof(long long)));
  const int me = gshmem_my_pe();
  auto* peer =
      gshmem_n_pes() >= 2 && me < 2 ? static_cast<long long*>(gshmem_ptr(word, 1 - me)) : nullptr;
  double best = -1;
  gshmem_barrier_all();
  if (peer) {
    // Every wait ends: a partner that stops answering (descheduled for a second) ends it too.
    const auto deadline = clock::now() + std::chrono::seconds(1);
    std::atomic_ref<long long> mine(*word), theirs(*peer);
    auto await = [&](long long v) {
      for (unsigned n = 1; mine.load(std::memory_order_acquire) != v; ++n) {
        if (n % 1024 == 0 && clock::now() > deadline) return false;
      }
      return true;
    };
    bool ok = true;
    long long k = 0;
    for (int b = 0; b < 100 && ok; ++b) {  // a batch cut short by the deadline does not count
      const auto t0 = clock::now();
      for (int i = 0; i < 20 && ok; ++i, ++k) {
        if (me == 0) {
          theirs.store(2 * k + 1, std::memory_order_release);
          ok = await(2 * k + 2);
        } else {
          ok = await(2 * k + 1);
          if (ok) theirs.store(2 * k + 2, std::memory_order_release);
        }
      }
      const double ns = std::chrono::duration<double, std::nano>(clock::now() - t0).count() / 40;
      if (ok && (best < 0 || ns < best)) best = ns;
    }
    if (me != 0) best = -1;
  }
  gshmem_barrier_all();
  gshmem_free(word);
  return best;
}

int usage(const std::string& why) {
  std::fprintf(stderr,
               "gshmem_planner_check: %s\nusage: gshmemrun -n N gshmem_planner_check "
               "[op=NAME,...,sizes=8-64M,reps=3] [--tolerance 1.10] [--record FILE]\n"
               "       gshmem_planner_check --judge FILE [--tolerance 1.10]\n",
               why.c_str());
  return 2;
}

// FILE.live: "live COLL BYTES US" lines, every job's; each point's mean over the jobs.
std::vector<gc::CalCurve> read_live(const std::string& path) {
  std::vector<gc::CalCurve> out;
  std::vector<std::vector<int>> jobs;  // per curve, per point: how many jobs measured it
  FILE* f = std::fopen(path.c_str(), "r");
  if (!f) return out;
  char coll_name[32];
  unsigned long long bytes;
  double us;
  while (std::fscanf(f, " live %31s %llu %lf", coll_name, &bytes, &us) == 3) {
    gc::Coll coll;
    if (!gc::parse_coll(coll_name, &coll) || !(us > 0)) continue;
    size_t c = 0;
    while (c < out.size() && out[c].coll != coll) ++c;
    if (c == out.size()) {
      out.push_back({coll, gc::Algo::Auto, gc::Proto::Auto, {}});
      jobs.emplace_back();
    }
    auto& pts = out[c].points;
    size_t i = 0;
    while (i < pts.size() && pts[i].first != bytes) ++i;
    if (i == pts.size()) {
      pts.emplace_back(bytes, 0.0);
      jobs[c].push_back(0);
    }
    pts[i].second += us;
    ++jobs[c][i];
  }
  std::fclose(f);
  for (size_t c = 0; c < out.size(); ++c) {
    for (size_t i = 0; i < out[c].points.size(); ++i) out[c].points[i].second /= jobs[c][i];
  }
  return out;
}

// Adds this job's live times to FILE.live (a new one with the first job's FILE, so an old one
// left beside it is not mixed in).
bool record_live(const std::string& path, const std::vector<gc::CalCurve>& live, bool first) {
  FILE* f = std::fopen(path.c_str(), first ? "w" : "a");
  if (!f) {
    std::fprintf(stderr, "gshmem_planner_check --record: cannot write %s\n", path.c_str());
    return false;
  }
  for (const gc::CalCurve& c : live) {
    for (const auto& [bytes, us] : c.points) {
      std::fprintf(f, "live %s %llu %.6g\n", gc::coll_name(c.coll), (unsigned long long)bytes, us);
    }
  }
  return std::fclose(f) == 0;
}

// --judge FILE: the recorded runs against the planner with this host's calibration.
int judge_file(const std::string& path, double tolerance) {
  std::string why;
  std::unique_ptr<gc::Calibration> runs = gc::load_calibration(path, &why);
  if (!runs || runs->tables.size() != 1) {
    return usage(path + ": " + (why.empty() ? "not one table of recorded runs" : why));
  }
  const gc::CalTable& measured = runs->tables.front();
  const std::vector<gc::CalCurve> live = read_live(path + ".live");
  gc::TeamShape shape;
  if (!gc::parse_shape_key(measured.shape, &shape)) return usage("bad shape " + measured.shape);
  if (gshmem::Env::get().str("GSHMEM_CALIBRATION") != "off") {
    gc::install_calibration(gc::load_calibration(gc::calibration_path(), &why));
  }
  const gc::Calibration* cal = gc::installed_calibration();
  std::printf(
      "# gshmem_planner_check --judge %s: %s\n# planner: %s\n"
      "# each candidate's mean time over %d check job(s); ratio = the chosen candidate's / "
      "the best's; target <= %.2f\n",
      path.c_str(), measured.shape.c_str(),
      cal ? ("calibration " + cal->origin).c_str() : "no calibration (the model's constants)",
      measured.runs, tolerance);
  return judge(measured, shape, tolerance, live);
}

// Adds `job` to the runs recorded in `path` (a new file on the first job: *first set).
bool record(const std::string& path, const gc::CalTable& job, bool* first) {
  std::string why;
  std::unique_ptr<gc::Calibration> runs = gc::load_calibration(path, &why);
  if (!why.empty()) {
    std::fprintf(stderr, "gshmem_planner_check --record: %s\n", why.c_str());
    return false;
  }
  *first = !runs;
  if (!runs) runs = std::make_unique<gc::Calibration>();
  if (runs->tables.empty()) {
    runs->tables.push_back(job);
  } else if (runs->tables.front().shape != job.shape) {
    std::fprintf(stderr, "gshmem_planner_check --record: %s holds runs of %s, not %s\n",
                 path.c_str(), runs->tables.front().shape.c_str(), job.shape.c_str());
    return false;
  } else {
    runs->tables.front().add_run(job, false, gc::kMaxRuns);
  }
  if (!gc::write_calibration_file(path, *runs, &why)) {
    std::fprintf(stderr, "gshmem_planner_check --record: %s\n", why.c_str());
    return false;
  }
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  gc::MeasureSpec spec;
  double tolerance = 1.10;
  std::string record_path, judge_path, why;
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--tolerance") && i + 1 < argc) {
      tolerance = std::atof(argv[++i]);
      if (!(tolerance >= 1)) return usage("--tolerance must be at least 1");
    } else if (!std::strcmp(argv[i], "--record") && i + 1 < argc) {
      record_path = argv[++i];
    } else if (!std::strcmp(argv[i], "--judge") && i + 1 < argc) {
      judge_path = argv[++i];
    } else if (!gc::parse_measure_spec(argv[i], &spec, &why)) {
      return usage(why);
    }
  }
  if (!judge_path.empty()) return judge_file(judge_path, tolerance);

  gshmem_init();
  const bool talk = gshmem_my_pe() == 0;
  const gc::TeamShape shape = gc::team_shape(GSHMEM_TEAM_WORLD);
  const gc::Calibration* cal = gc::installed_calibration();
  if (talk) {
    std::printf(
        "# gshmem_planner_check: %s\n# planner: %s\n", gc::shape_key(shape).c_str(),
        cal ? ("calibration " + cal->origin).c_str() : "no calibration (the model's constants)");
    std::printf(
        "# every candidate measured now (best of %d); ratio = the chosen candidate's time "
        "/ the best's; target <= %.2f\n",
        spec.reps, tolerance);
  }
  std::vector<gc::CalCurve> live;
  const double handoff_before = handoff_ns();
  const gc::CalTable fresh = gc::measure_world(spec, talk ? stdout : nullptr, &live);
  const double handoff_after = handoff_ns();
  int status = 0;
  if (talk && (handoff_before > 0 || handoff_after > 0)) {
    auto ns = [](double t) { return t > 0 ? std::to_string(long(t + 0.5)) : std::string("-"); };
    std::printf("# cache-line handoff PE 0 <-> PE 1: %s ns before the sweep, %s ns after\n",
                ns(handoff_before).c_str(), ns(handoff_after).c_str());
  }
  if (talk) {
    bool first = false;
    status = judge(fresh, shape, tolerance, live);
    if (!record_path.empty() &&
        (!record(record_path, fresh, &first) || !record_live(record_path + ".live", live, first))) {
      status = 2;
    }
  }
  // Every PE exits with PE 0's verdict.
  auto* verdict = static_cast<int32_t*>(gshmem_malloc(2 * sizeof(int32_t)));
  verdict[0] = status;
  gshmem_broadcast(GSHMEM_TEAM_WORLD, verdict + 1, verdict, 1, GSHMEM_INT32, 0, nullptr);
  status = verdict[1];
  gshmem_free(verdict);
  gshmem_finalize();
  return status;
}
