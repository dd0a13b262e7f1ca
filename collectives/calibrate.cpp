#include "collectives/calibrate.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <string>

#include "collectives/adapt.hpp"
#include "collectives/coll_host.hpp"
#include "gshmem/collectives.h"
#include "gshmem/device/platform.cuh"
#include "gshmem/gshmem.h"
#include "host/base/env.hpp"

namespace gshmem::coll {

std::vector<std::pair<Algo, Proto>> candidates(Coll coll, const TeamShape& s) {
  std::vector<std::pair<Algo, Proto>> out;
  if (s.n < 2) return out;
  for (int i = 1; i < kNumAlgos; ++i) {
    const Algo a = Algo(i);
    if (!applicable(coll, a, s) || duplicate_schedule(coll, a, s)) continue;
    out.emplace_back(a, Proto::Simple);
    if (ll_applicable(coll, a, s)) out.emplace_back(a, Proto::LL);
  }
  return out;
}

namespace {

const Coll kAllColls[] = {Coll::AllReduce,     Coll::Reduce,    Coll::AllGather,
                          Coll::ReduceScatter, Coll::Broadcast, Coll::AllToAll};

double now_us() {
  return double(gshmem::detail::now_ns()) / 1e3;  // the clock every wait of gshmem uses
}

// One call of `coll` moving `bytes` as the planner counts them (the larger buffer), in floats;
// false when the size holds no element per PE.
struct Call {
  Coll coll;
  size_t count = 0;  // the count argument
  uint64_t bytes = 0;

  Call(Coll c, uint64_t size, int n) : coll(c) {
    const uint64_t es = sizeof(float);
    const bool per_pe = c == Coll::AllGather || c == Coll::ReduceScatter || c == Coll::AllToAll;
    count = size_t(size / es / (per_pe ? uint64_t(n) : 1));
    bytes = uint64_t(count) * es * (per_pe ? uint64_t(n) : 1);
  }

  void run(void* dst, const void* src) const {
    const gshmem_team_t w = GSHMEM_TEAM_WORLD;
    int rc = -1;
    switch (coll) {
      case Coll::AllReduce:
        rc = gshmem_allreduce(w, dst, src, count, GSHMEM_FLOAT, GSHMEM_SUM, nullptr);
        break;
      case Coll::Reduce:
        rc = gshmem_reduce(w, dst, src, count, GSHMEM_FLOAT, GSHMEM_SUM, 0, nullptr);
        break;
      case Coll::AllGather:
        rc = gshmem_allgather(w, dst, src, count, GSHMEM_FLOAT, nullptr);
        break;
      case Coll::ReduceScatter:
        rc = gshmem_reducescatter(w, dst, src, count, GSHMEM_FLOAT, GSHMEM_SUM, nullptr);
        break;
      case Coll::Broadcast:
        rc = gshmem_broadcast(w, dst, src, count, GSHMEM_FLOAT, 0, nullptr);
        break;
      case Coll::AllToAll:
        rc = gshmem_alltoall(w, dst, src, count, GSHMEM_FLOAT, nullptr);
        break;
    }
    if (rc != GSHMEM_SUCCESS) {
      // The call logged why; every PE fails the same call.
      std::fprintf(stderr, "gshmem calibration: %s of %zu floats failed (status %d)\n",
                   coll_name(coll), count, rc);
      gshmem_global_exit(1);
    }
  }
};

// Elementwise maximum over the PEs, with the environment's plans (not a forced candidate's).
void max_over_pes(std::vector<double>* v) {
  set_overrides(nullptr);
  std::vector<double> in = *v;
  double* sym = static_cast<double*>(gshmem_malloc(2 * in.size() * sizeof(double)));
  std::memcpy(sym, in.data(), in.size() * sizeof(double));
  if (gshmem_allreduce(GSHMEM_TEAM_WORLD, sym + in.size(), sym, in.size(), GSHMEM_DOUBLE,
                       GSHMEM_MAX, nullptr) != GSHMEM_SUCCESS) {
    gshmem_global_exit(1);
  }
  std::memcpy(v->data(), sym + in.size(), in.size() * sizeof(double));
  gshmem_free(sym);
}

// Forces candidate (a, pr) of coll; Auto: forces nothing (the planner as it runs).
void force(Coll coll, Algo a, Proto pr) {
  if (a == Algo::Auto) {
    set_overrides(nullptr);
    return;
  }
  Overrides o;
  o.algo[int(coll)] = a;
  o.proto = pr;
  set_overrides(&o);
}

}  // namespace

CalTable measure_world(const MeasureSpec& spec, FILE* progress, std::vector<CalCurve>* live) {
  const TeamShape shape = team_shape(GSHMEM_TEAM_WORLD);
  const int n = shape.n;
  CalTable table{shape_key(shape), {}};
  char* src = static_cast<char*>(gshmem_malloc(spec.hi));
  char* dst = static_cast<char*>(gshmem_malloc(spec.hi));
  if (!src || !dst) {
    std::fprintf(stderr, "gshmem calibration: no room for two buffers of %llu B in the heap\n",
                 (unsigned long long)spec.hi);
    gshmem_global_exit(1);
  }
  std::memset(src, 0, spec.hi);
  std::memset(dst, 0, spec.hi);
  const bool talk = progress && gshmem_my_pe() == 0;
  for (Coll coll : spec.colls.empty()
                       ? std::vector<Coll>(std::begin(kAllColls), std::end(kAllColls))
                       : spec.colls) {
    auto cands = candidates(coll, shape);
    if (cands.empty()) continue;
    // The planner as it runs: the last "candidate", forcing nothing.
    if (live) cands.emplace_back(Algo::Auto, Proto::Auto);
    const double start = now_us();
    // The sizes (those that hold an element per PE, each once).
    std::vector<Call> calls;
    for (uint64_t size = spec.lo; size <= spec.hi; size *= 2) {
      const Call call(coll, size, n);
      if (call.count > 0 && (calls.empty() || call.bytes != calls.back().bytes)) {
        calls.push_back(call);
      }
      if (size > spec.hi / 2) break;
    }
    if (calls.empty()) continue;  // no curve without points: the file would not parse
    const size_t first = table.curves.size();
    for (const auto& [a, pr] : cands) table.curves.push_back({coll, a, pr, {}});
    // Untimed first calls of every candidate: its buffers' first touch, its plan, the caches.
    for (const auto& [a, pr] : cands) {
      force(coll, a, pr);
      for (int i = 0; i < 200; ++i) calls.front().run(dst, src);
    }
    // Each candidate's iterations at each size, from one warm-up call (the slowest PE's).
    const size_t nc = cands.size(), ns = calls.size();
    std::vector<double> warm(ns * nc);
    for (size_t k = 0; k < ns; ++k) {
      for (size_t c = 0; c < nc; ++c) {
        force(coll, cands[c].first, cands[c].second);
        if (cands[c].first == Algo::Auto && overrides().probe) {
          // The planner as a program that calls this shape often runs it: past the probe of its
          // live choice's first epochs (GSHMEM_ADAPT_PROBE, adapt.hpp), which costs a program at
          // most kLiveMaxCands - 1 epochs once.
          const Plan p = make_plan(coll, shape, calls[k].bytes, overrides());
          const int settle = may_go_live(calls[k].bytes, p, overrides())
                                 ? kLiveMaxCands * live_epoch_calls(shape, p.predicted_us)
                                 : 0;
          for (int i = 0; i < settle; ++i) calls[k].run(dst, src);
        }
        gshmem_barrier_all();
        const double t0 = now_us();
        calls[k].run(dst, src);
        warm[k * nc + c] = now_us() - t0;
      }
    }
    max_over_pes(&warm);
    // Repeats sweep every size in turn, and candidates alternate at each: a slow spell of the
    // machine falls on one repeat of a few points, and on every candidate alike.
    std::vector<double> t(size_t(spec.reps) * ns * nc);
    for (int r = 0; r < spec.reps; ++r) {
      for (size_t k = 0; k < ns; ++k) {
        for (size_t c = 0; c < nc; ++c) {
          const int iters =
              int(std::clamp(spec.budget_us / std::max(warm[k * nc + c], 0.01), 3.0, 2000.0));
          force(coll, cands[c].first, cands[c].second);
          // The PEs leave a barrier apart (by a time slice when they share cores); one untimed
          // call of the candidate itself lines them up as it will in the loop.
          gshmem_barrier_all();
          calls[k].run(dst, src);
          const double t0 = now_us();
          for (int i = 0; i < iters; ++i) calls[k].run(dst, src);
          t[(size_t(r) * ns + k) * nc + c] = (now_us() - t0) / iters;
        }
      }
    }
    max_over_pes(&t);
    for (size_t k = 0; k < ns; ++k) {
      for (size_t c = 0; c < nc; ++c) {
        double best = t[k * nc + c];
        for (int r = 1; r < spec.reps; ++r) best = std::min(best, t[(size_t(r) * ns + k) * nc + c]);
        table.curves[first + c].points.emplace_back(calls[k].bytes, std::max(best, 1e-3));
      }
    }
    set_overrides(nullptr);
    if (live) {
      live->push_back(std::move(table.curves.back()));
      table.curves.pop_back();
      cands.pop_back();
    }
    if (talk) {
      std::fprintf(progress, "  %-13s %zu candidate(s), %zu size(s): %.1f s\n", coll_name(coll),
                   cands.size(), table.curves[first].points.size(), (now_us() - start) / 1e6);
      std::fflush(progress);
    }
  }
  set_overrides(nullptr);
  gshmem_free(dst);
  gshmem_free(src);
  return table;
}

bool parse_measure_spec(std::string_view text, MeasureSpec* spec, std::string* why) {
  std::string_view item;
  while (next_list_item(&text, &item)) {
    size_t eq = item.find('=');
    if (eq == std::string_view::npos)
      return *why = "'" + std::string(item) + "' is not key=value", false;
    std::string key(item.substr(0, eq)), val(item.substr(eq + 1));
    uint64_t num = 0;
    const bool is_num = Env::parse_size(val, &num);
    Coll c;
    if (key == "op" && val == "all") {
      spec->colls.assign(std::begin(kAllColls), std::end(kAllColls));
    } else if (key == "op" && parse_coll(val, &c)) {
      if (std::find(spec->colls.begin(), spec->colls.end(), c) == spec->colls.end()) {
        spec->colls.push_back(c);
      }
    } else if (key == "sizes") {
      size_t dash = val.find('-');
      if (dash == std::string::npos || !Env::parse_size(val.substr(0, dash), &spec->lo) ||
          !Env::parse_size(val.substr(dash + 1), &spec->hi) || spec->lo == 0 ||
          spec->lo > spec->hi || spec->hi > (1ull << 30)) {
        return *why = "sizes must be MIN-MAX with 0 < MIN <= MAX <= 1G, e.g. 8-64M", false;
      }
    } else if (key == "fresh" && is_num && num <= 1) {
      spec->fresh = num == 1;
    } else if (key == "reps" && is_num && num >= 1 && num <= 100) {
      spec->reps = int(num);
    } else if (key == "budget" && is_num && num >= 1 && num <= 10000000) {
      spec->budget_us = double(num);
    } else {
      return *why = "bad item '" + std::string(item) + "'", false;
    }
  }
  return true;
}

namespace {

int usage_error(const std::string& why) {
  std::fprintf(stderr,
               "gshmem-info --calibrate: %s\n"
               "  run under the launcher, one job per team shape to calibrate:\n"
               "    gshmemrun -n 4 gshmem-info --calibrate [op=NAME,...,sizes=8-64M,reps=3,"
               "budget=USEC,fresh=0|1]\n",
               why.c_str());
  return 2;
}

}  // namespace

int calibrate_main(std::string_view text) {
  MeasureSpec spec;
  std::string why;
  if (!parse_measure_spec(text, &spec, &why)) return usage_error(why);
  const std::string path = calibration_path();
  if (path.empty()) return usage_error("no cache directory (set HOME or GSHMEM_CALIBRATION_FILE)");
  gshmem_init();
  const int me = gshmem_my_pe();
  if (gshmem_n_pes() < 2) {
    gshmem_finalize();
    return usage_error("one PE has nothing to calibrate");
  }
  if (gshmemx_heap_kind() != GSHMEMX_HEAP_HOST) {
    gshmem_finalize();
    return usage_error(
        "the heap is on a GPU: calibration measures CPU PEs only for now "
        "(GSHMEM_HEAP=host); GPU teams keep the model's constants");
  }
  const TeamShape shape = team_shape(GSHMEM_TEAM_WORLD);
  if (me == 0) {
    std::printf("Calibrating the collectives on %s (sizes %llu-%llu B, best of %d)\n",
                shape_key(shape).c_str(), (unsigned long long)spec.lo, (unsigned long long)spec.hi,
                spec.reps);
    std::fflush(stdout);
  }
  CalTable table = measure_world(spec, stdout);
  if (table.curves.empty()) {
    gshmem_finalize();
    return usage_error("no size of the sweep holds an element per PE: nothing was measured");
  }
  int status = 0;
  if (me == 0) {
    // Keep the file's other shapes; a damaged file is replaced.
    std::string load_why;
    std::unique_ptr<Calibration> cal = load_calibration(path, &load_why);
    if (!cal) cal = std::make_unique<Calibration>();
    if (!load_why.empty()) std::printf("  replacing %s\n", load_why.c_str());
    auto same = std::find_if(cal->tables.begin(), cal->tables.end(),
                             [&](const CalTable& t) { return t.shape == table.shape; });
    if (same != cal->tables.end()) {
      // Which algorithm is fastest can change from one job to the next (memory placement, where
      // the scheduler puts the PEs, the machine's other load): each job is a run of the table, and
      // the planner chooses what loses least over them (the mean). fresh=1 forgets the earlier
      // runs of the collectives measured now; the others keep theirs.
      same->add_run(table, spec.fresh);
      if (spec.fresh) {
        std::printf("  replaced the earlier runs of the collectives measured now (fresh=1)\n");
      } else {
        std::printf(
            "  added as run %d of the %d this shape keeps, one per job (the planner weighs them "
            "all; fresh=1 forgets the earlier ones)\n",
            same->runs, kKeptRuns);
      }
    } else {
      cal->tables.push_back(std::move(table));
    }
    fit_links(cal.get());
    std::string write_why;
    if (!write_calibration_file(path, *cal, &write_why)) {
      std::fprintf(stderr, "gshmem-info --calibrate: cannot write %s\n", write_why.c_str());
      status = 1;
    } else {
      std::printf("Wrote %s (%zu table(s))\n", path.c_str(), cal->tables.size());
      for (const CalLink& l : cal->links) {
        std::printf(
            "  fitted %-5s alpha %.3g us, %.3g GB/s per PE (%d points, rms log error %.2f;"
            " constants: %.3g us, %.3g GB/s)\n",
            link_cost(l.cls).name, l.cost.alpha_us, l.cost.gbps, l.points, l.rms,
            default_link_cost(l.cls).alpha_us, default_link_cost(l.cls).gbps);
      }
    }
  }
  gshmem_finalize();
  return status;
}

}  // namespace gshmem::coll
