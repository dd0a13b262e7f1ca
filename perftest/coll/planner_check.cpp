// gshmem_planner_check: is the planner's choice the fastest algorithm on this machine? Measures
// every candidate (algorithm + protocol) of each collective at each size of the sweep, the way
// gshmem-info --calibrate does (collectives/calibrate.hpp), then compares the time of the
// candidate the planner chooses with the best measured one, for the planner as this job runs it
// (its calibration, if PE 0 found one, else the constants) and for the constants alone.
//
//   gshmemrun -n 4 [--ppn 2] gshmem_planner_check [op=allreduce,...,sizes=8-64M,reps=3]
//                                                 [--tolerance 1.10]
//
// Exit status: 0 every chosen candidate within the tolerance of the best, 1 one is not, 2 bad
// arguments.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "collectives/calibrate.hpp"
#include "collectives/coll_host.hpp"
#include "gshmem/collectives.h"
#include "gshmem/gshmem.h"

namespace gc = gshmem::coll;

namespace {

std::string name_of(gc::Algo a, gc::Proto p) {
  return std::string(gc::algo_name(a)) + (p == gc::Proto::LL ? "/ll" : "");
}

}  // namespace

int main(int argc, char** argv) {
  gc::MeasureSpec spec;
  double tolerance = 1.10;
  std::string why;
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--tolerance") && i + 1 < argc) {
      tolerance = std::atof(argv[++i]);
    } else if (!gc::parse_measure_spec(argv[i], &spec, &why) || tolerance < 1) {
      std::fprintf(stderr,
                   "gshmem_planner_check: %s\nusage: gshmemrun -n N gshmem_planner_check "
                   "[op=NAME,...,sizes=8-64M,reps=3] [--tolerance 1.10]\n",
                   why.empty() ? "bad --tolerance" : why.c_str());
      return 2;
    }
  }
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
  const gc::CalTable fresh = gc::measure_world(spec, talk ? stdout : nullptr);
  int worst_status = 0;
  double worst = 1, worst_model = 1;
  if (talk) {
    gc::Coll last = gc::Coll(255);
    for (const gc::CalCurve& first : fresh.curves) {
      if (first.coll == last) continue;
      last = first.coll;
      std::printf("\n# %s\n%10s %-12s %10s %-12s %10s %7s | %-12s %7s\n", gc::coll_name(last),
                  "bytes", "chosen", "us", "best", "us", "ratio", "constants", "ratio");
      for (size_t k = 0; k < first.points.size(); ++k) {
        const uint64_t bytes = first.points[k].first;
        // The best candidate measured at this size.
        const gc::CalCurve* best = nullptr;
        for (const gc::CalCurve& c : fresh.curves) {
          if (c.coll == last && k < c.points.size() &&
              (!best || c.points[k].second < best->points[k].second)) {
            best = &c;
          }
        }
        auto time_of = [&](const gc::Plan& p) {
          const gc::CalCurve* c = fresh.find(last, p.algo, p.proto);
          return c && k < c->points.size() ? c->points[k].second : -1.0;
        };
        gc::Overrides as_run, model;
        model.use_calibration = false;
        const gc::Plan p = gc::make_plan(last, shape, bytes, as_run);
        const gc::Plan m = gc::make_plan(last, shape, bytes, model);
        const double t = time_of(p), tm = time_of(m), tb = best->points[k].second;
        const double ratio = t > 0 ? t / tb : 99, ratio_m = tm > 0 ? tm / tb : 99;
        worst = std::max(worst, ratio);
        worst_model = std::max(worst_model, ratio_m);
        if (ratio > tolerance) worst_status = 1;
        std::printf("%10llu %-12s %10.2f %-12s %10.2f %7.2f%s| %-12s %7.2f\n",
                    (unsigned long long)bytes, name_of(p.algo, p.proto).c_str(), t,
                    name_of(best->algo, best->proto).c_str(), tb, ratio,
                    ratio > tolerance ? "*" : " ", name_of(m.algo, m.proto).c_str(), ratio_m);
      }
    }
    std::printf("\n# worst ratio: %.2f with the planner as run, %.2f with the constants: %s\n",
                worst, worst_model,
                worst_status ? "target missed (* rows)" : "every choice within the target");
  }
  // Every PE exits with PE 0's verdict.
  auto* status = static_cast<int32_t*>(gshmem_malloc(2 * sizeof(int32_t)));
  status[0] = worst_status;
  gshmem_broadcast(GSHMEM_TEAM_WORLD, status + 1, status, 1, GSHMEM_INT32, 0, nullptr);
  worst_status = status[1];
  gshmem_free(status);
  gshmem_finalize();
  return worst_status;
}
