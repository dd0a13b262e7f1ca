// Command line of every perftest program (gshmem ones and the MPI baseline alike):
//   -b MIN -e MAX -f FACTOR   message sizes MIN, MIN*FACTOR, ... up to MAX (K/M/G suffixes:
//   1K=1024) -n ITERS -w WARMUP        timed and untimed iterations per size
//   --window W                operations in flight per timed iteration (bandwidth tests)
//   --json                    also print each row as a JSON line (format in table.hpp)
//   -h                        usage
// A program states its defaults; flags the user gave override them. Programs that run several
// tests with different defaults (the MPI baseline) keep the parsed Args and apply it per test.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

namespace perftest {

struct Options {
  size_t min_size = 8;
  size_t max_size = size_t(1) << 20;
  size_t factor = 2;
  int iters = 1000;
  int warmup = 100;
  int window = 64;
  bool json = false;

  // MIN, MIN*FACTOR, ... while <= MAX.
  std::vector<size_t> sizes() const;
};

// What a program tells the user in -h.
struct Usage {
  const char* program;
  const char* what;                // one line: what it measures
  const char* operands = nullptr;  // e.g. "[TEST...]" with its explanation; null: none accepted
};

// The command line as given: unset fields keep the program's defaults.
struct Args {
  std::optional<size_t> min_size, max_size, factor;
  std::optional<int> iters, warmup, window;
  bool json = false;
  std::vector<std::string> operands;
  // Set when the program should end now with this status: 0 after -h, 2 after bad input.
  std::optional<int> exit_code;

  Options over(const Options& defaults) const;
};

// Never exits: a parallel program must still finalise its runtime. `speak` selects the one
// process that prints usage and errors.
Args parse_args(int argc, char** argv, const Usage& usage, const Options& defaults, bool speak);

}  // namespace perftest
