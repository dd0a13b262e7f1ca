// The planner's measurements of this machine (issue: a planner that fits the machine).
// `gshmem-info --calibrate` (under gshmemrun) times every algorithm and protocol the planner may
// choose for each collective on the job's team shape and writes them, with link costs (alpha,
// GB/s) fitted to them, to a cache file per host and build. At gshmem_init PE 0 reads that file and
// every PE receives its text (the runtime's init share), so every PE plans alike. Then the planner
// chooses, for a shape the file holds, the candidate with the least measured time (interpolated
// between the measured sizes); for other shapes it uses the model with the fitted link costs; with
// no file, the model's constants (kLinkCosts). GSHMEM_CALIBRATION=off ignores the file.
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
};

// Every curve measured on one team shape (shape_key).
struct CalTable {
  std::string shape;
  std::vector<CalCurve> curves;

  const CalCurve* find(Coll coll, Algo algo, Proto proto) const;
  bool covers(Coll coll) const;
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

// Reads and parses `path`: nullptr (with *why set, empty when the file does not exist) if it
// cannot be used.
std::unique_ptr<Calibration> load_calibration(const std::string& path, std::string* why);

}  // namespace gshmem::coll
