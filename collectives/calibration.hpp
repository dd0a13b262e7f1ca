// The planner's measurements of this machine (issue: a planner that fits the machine).
// `gshmem-info --calibrate` (under gshmemrun) times every algorithm and protocol the planner may
// choose for each collective on the job's team shape and writes them, with link costs (alpha,
// GB/s) fitted to them, to a cache file per host and build. At gshmem_init PE 0 reads that file and
// every PE receives its text (the runtime's init share), so every PE plans alike. Then the planner
// chooses, for a shape the file holds, from the measured times (interpolated between the measured
// sizes); for other shapes it uses the model with the fitted link costs; with no file, the model's
// constants (kLinkCosts). GSHMEM_CALIBRATION=off ignores the file.
//
// The machine does not keep one speed: on a shared host an algorithm can be fast in most jobs and
// several times slower in some (measured, 2 PEs on 2 cores, AllReduce 512 KiB: direct 14-17 us in
// 8 of 8 jobs; direct2 14 us in 6 and 48 us in 2), and which of two is faster can change between
// jobs. So a table keeps each calibration job as a run of its own (the last kKeptRuns), and the
// planner chooses the candidate whose mean loss against each run's fastest is least: the least
// expected slowdown over the machine states the runs saw (capped, below). With one run, simply the
// fastest. (On a host of 2 vCPUs, the states are where the host runs them: as siblings of one core,
// a cache line passes between them in 30-60 ns, placed apart in 160-240 ns, and algorithms that
// read what a peer has just written run 2-3x slower then; the planner check prints it. The median
// loss, the best in the typical job, was tried instead: on recorded runs it did no better, and a
// job long enough to see both states pays the mean.) A loss counts at most kLossCap, and so does a
// time: a state costs an algorithm 2-3.4x (the direct2 jobs above: 3.4x, counted as 3), but a
// point can be 5-13x slower in one job alone, in every repeat of its sweep (measured, 2 PEs,
// AllReduce 1 MiB: direct 48 and 40 us in two runs and 656 us in a third, 7.6x that run's
// fastest, its 512 KiB point as in the others; at 1-2 MiB every candidate had such a point in
// some run), and with three runs that one point would outweigh every other run. With three runs
// or more, such a point is first brought to its run's level at the neighbouring sizes
// (CalTable::repaired); the cap bounds what that leaves.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "collectives/planner.hpp"

namespace gshmem::coll {

// Measured times of one candidate (algorithm + protocol) of one collective: (bytes as the planner
// counts them, microseconds per call), sorted by bytes.
struct CalCurve {
  Coll coll = Coll::AllReduce;
  Algo algo = Algo::Direct;
  Proto proto = Proto::Simple;
  std::vector<std::pair<uint64_t, double>> points;
  int run = 0;  // the calibration job that measured it (0: the oldest kept)
};

// The calibration jobs a table keeps per shape, and the most a file may hold.
inline constexpr int kKeptRuns = 4;
inline constexpr int kMaxRuns = 16;
// The most one run's loss counts in the planner's choice (see above).
inline constexpr double kLossCap = 3.0;
// A point of one run this much slower than the runs' median at its size, and than its
// neighbouring sizes in the same run are against theirs, is a glitch (CalTable::repaired).
inline constexpr double kGlitch = 1.5;

// Every curve measured on one team shape (shape_key), in runs 0 .. runs-1 (curves in run order).
struct CalTable {
  std::string shape;
  std::vector<CalCurve> curves;
  int runs = 1;

  const CalCurve* find(Coll coll, Algo algo, Proto proto, int run = 0) const;
  bool covers(Coll coll) const;
  // The candidate's mean time at `bytes` over the runs that measured it; -1 if none did.
  double mean_us(Coll coll, Algo algo, Proto proto, uint64_t bytes) const;
  // Of `cands`, the index of the one the runs favour at `bytes`: the least mean loss against
  // each run's fastest candidate (its time / that run's least, at most kLossCap), ties to the
  // lesser time (as *us); -1 when no candidate was measured. *us: its mean time over the runs, each
  // run's at most kLossCap times that run's least (the time the plan predicts).
  int choose(Coll coll, const std::vector<std::pair<Algo, Proto>>& cands, uint64_t bytes,
             double* us) const;
  // The curve as the choice counts it. A machine state slows a run's neighbouring sizes alike;
  // a point slower than the runs' median by more than kGlitch while its neighbours in the same
  // run are not (by kGlitch against their own ratio) is a glitch of that moment (measured, 4
  // PEs on two virtual nodes, AllGather 32 MiB by ring: 21.4, 20.3 and 47.6 ms in three runs,
  // 1.12 and 1.07 times the median at 16 and 64 MiB in the third; that one point made the plan
  // choose a candidate 26% slower in the check jobs). Such a point takes its run's level from its
  // neighbours: the median times the larger neighbour's ratio. With fewer than 3 runs, as it is.
  // The repaired time is never below the least the runs measured at that size.
  CalCurve repaired(const CalCurve& cv) const;
  // interpolate(repaired(cv), bytes), repairing only the points it reads (a plan's cost).
  double repaired_at(const CalCurve& cv, uint64_t bytes) const;
  // Adds `job`'s curves (one calibration job) as the newest run. fresh: first forgets the
  // earlier runs' curves of the collectives `job` measured. The newest `keep` runs stay, and no
  // run is left without curves.
  void add_run(const CalTable& job, bool fresh = false, int keep = kKeptRuns);
};

// Link costs fitted to the tables (least squares of log(predicted / measured)).
struct CalLink {
  LinkClass cls = LinkClass::HostMemory;
  LinkCost cost{};
  int points = 0;
  double rms = 0;  // root mean square of log(predicted / measured) at the fit
};

struct Calibration {
  std::string origin;  // where it came from (the file), for gshmem-info and the INFO line
  std::vector<CalLink> links;
  std::vector<CalTable> tables;

  const CalTable* table(const TeamShape& s) const;
  const CalLink* link(LinkClass c) const;
};

// "n=4,nodes=2,ppn=2,intra=host,inter=tcp,gpu=0,oversubscribed=1": what a table is measured on.
std::string shape_key(const TeamShape& s);
// The shape a key names; false when it is not one shape_key() writes.
bool parse_shape_key(const std::string& key, TeamShape* s);

// Measured microseconds of a curve at `bytes`: linear between neighbouring points, the line
// through the last two beyond the largest, the smallest point's time below it.
double interpolate(const CalCurve& c, uint64_t bytes);

// The cache file's text, and back. parse() rejects anything malformed (with *why naming the line):
// a damaged or foreign file must never change a plan.
std::string format_calibration(const Calibration& c);
bool parse_calibration(std::string_view text, Calibration* out, std::string* why);

// Fits c->links to c->tables: the host link class from single-node tables, then the network's
// from multi-node tables with the node's costs fixed. Classes without points keep no fit.
void fit_links(Calibration* c);

// The cache file: GSHMEM_CALIBRATION_FILE, else $XDG_CACHE_HOME/gshmem (or ~/.cache/gshmem)
// /calibration-HOST-BUILD.txt, BUILD naming this libgshmem (its size and modification time).
// Empty when there is no home to put it in.
std::string calibration_path();

// The calibration the planner uses (nullptr: the constants). install() keeps every calibration
// it was given alive, so a plan made on another thread never reads freed memory.
void install_calibration(std::unique_ptr<Calibration> c);
const Calibration* installed_calibration();

// The file's text (at most 4 MiB); false with *why set, or empty when the file does not exist.
bool read_calibration_file(const std::string& path, std::string* text, std::string* why);

// Writes c to `path` (creating its directory) through a temporary file and a rename: a reader
// never sees half a file. False with *why set.
bool write_calibration_file(const std::string& path, const Calibration& c, std::string* why);

// Reads and parses `path`: nullptr (with *why set, empty when the file does not exist) if it
// cannot be used.
std::unique_ptr<Calibration> load_calibration(const std::string& path, std::string* why);

}  // namespace gshmem::coll
