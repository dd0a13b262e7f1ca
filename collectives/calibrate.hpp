// Measuring the collectives on the running job's team (gshmem-info --calibrate, and the planner
// check in perftest/): every candidate the planner may choose, at every size of a sweep, timed
// the way nccl-tests times a collective (back-to-back calls, the slowest PE's time, best of
// `reps` alternated repeats).
#pragma once

#include <cstdint>
#include <cstdio>
#include <string_view>
#include <utility>
#include <vector>

#include "collectives/calibration.hpp"

namespace gshmem::coll {

struct MeasureSpec {
  std::vector<Coll> colls;  // empty: every collective
  uint64_t lo = 8, hi = 64u << 20;
  int reps = 3;
  bool fresh = false;  // calibrate_main: replace the shape's earlier runs instead of adding one
  double budget_us = 3000;  // how long a candidate's calls take per repeat (at least 3 calls)
};

// What the planner may choose for coll on the shape: (algorithm, protocol) pairs.
std::vector<std::pair<Algo, Proto>> candidates(Coll coll, const TeamShape& s);

// Collective over GSHMEM_TEAM_WORLD: every PE calls it with the same spec, after gshmem_init, on a
// host heap. Uses two symmetric buffers of spec.hi bytes and set_overrides (restored before it
// returns). PE 0 prints progress to `progress` when given. `live`, when given: also the planner
// as it runs (nothing forced, its live choices on: adapt.hpp), timed among the candidates, one
// curve per collective with algo Auto (which no calibration file holds).
CalTable measure_world(const MeasureSpec& spec, FILE* progress,
                       std::vector<CalCurve>* live = nullptr);

// gshmem-info --calibrate SPEC: init, measure_world, and PE 0 merges the table into the cache file
// (calibration_path()) with the links refitted: on a shape measured before, this job's curves are
// a new run of its table (CalTable::add_run; fresh=1: they replace the earlier runs of the same
// collectives). Returns the exit status (2 after saying why).
int calibrate_main(std::string_view spec);

// Parses "op=allreduce,op=broadcast,sizes=8-64M,reps=3,budget=3000,fresh=1" into *spec; false (with
// *why) when malformed.
bool parse_measure_spec(std::string_view text, MeasureSpec* spec, std::string* why);

}  // namespace gshmem::coll
