// The nccl-tests side of the collective perftests, shared by gshmem's programs and the Open MPI
// baseline (so both print the same table): the command line (nccl-tests' -b -e -f -n -w -c -d -o
// -r on top of perftest/common's options), sizes and counts per collective, the busbw factors,
// crafted inputs with exact expected results, and the table itself:
//
//   #                                                              out-of-place in-place # size
//   count      type   redop    root     time   algbw   busbw #wrong     time   algbw   busbw #wrong
//   #        (B)    (elements)                               (us)  (GB/s)  (GB/s)            (us)
//   (GB/s)  (GB/s)
//            8             2     float     sum      -1    18.75    0.00    0.00      0    17.60
//            0.00    0.00      0
//   # Out of bounds values : 0 OK
//   # Avg bus bandwidth    : 7.86
//
// With --json each row is also printed as one JSON line (after the row; only JSON lines start
// with '{'): {"test":"allreduce","size":8,"count":2,"type":"float","redop":"sum","root":-1,
// "time":18.75,"algbw":0.0,"busbw":0.0,"wrong":0,"time_ip":...,"algbw_ip":...,"busbw_ip":...,
// "wrong_ip":0} plus any extra keys the program adds (gshmem: "algo").
//
// gshmem's programs may add the memory floor (perftest/coll/floor.hpp) as three columns after
// nccl-tests' ones: floor(us), the time the call's memory traffic takes at the bandwidth measured
// in the same run (out-of-place), and floor / floor_ip, that time over the measured one (1: at
// the limit); in JSON "floor_us", "floor", "floor_us_ip", "floor_ip".
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "perftest/common/options.hpp"

namespace collperf {

enum class Op { AllReduce, AllGather, ReduceScatter, Broadcast, AllToAll, Reduce };

const char* op_name(Op c);                     // "allreduce", ...
bool parse_op(const std::string& s, Op* out);  // also accepts nccl-tests names (all_reduce)
double bus_factor(Op c, int n);
bool has_root(Op c);
bool reduces(Op c);

// Element types the perftests know (a subset maps to MPI types in the baseline).
enum class Type { Float, Double, Half, BFloat16, Int8, Uint8, Int32, Uint32, Int64, Uint64 };
enum class Redop { Sum, Prod, Min, Max, Avg };

const char* type_name(Type t);
size_t type_size(Type t);
const char* redop_name(Redop r);

struct Config {
  perftest::Options base;    // -b -e -f -n -w --json
  bool check = true;         // -c
  Type type = Type::Float;   // -d
  Redop redop = Redop::Sum;  // -o
  int root = 0;              // -r
  bool symmetric = true;     // gshmem only: --private uses malloc'd buffers
  int floor = -1;            // gshmem only: --floor 1, --no-floor 0, -1: when MAX >= kFloorAuto
};

// The smallest largest size of a sweep for which the floor is measured unless asked: below it
// the synchronisation, not memory, bounds every size, and the measurement would dominate the run.
inline constexpr size_t kFloorAuto = size_t(1) << 20;

// Parses the command line (every process calls it; `speak` prints usage and errors). Sets
// *exit_code when the program should end now (0 after -h, 2 after bad input).
Config parse(int argc, char** argv, const char* program, const char* what, bool speak, bool gshmem,
             int* exit_code);

// One size of the sweep: the per-PE element counts of the send and receive buffers and the
// figures nccl-tests prints.
struct Shape {
  size_t bytes;       // the "size" column
  size_t count;       // the "count" column (elements of the larger buffer)
  size_t send_count;  // elements each PE sends (its src)
  size_t recv_count;  // elements each PE receives (its dst)
  size_t per_peer;    // the count argument of the collective call
};
Shape shape_for(Op c, size_t bytes, int n, size_t esize);
// The shapes of a sweep that have something to measure (per_peer > 0), in the sweep's order.
std::vector<Shape> measured_shapes(Op c, const std::vector<size_t>& sizes, int n, size_t esize);

// Crafted inputs (as nccl-tests does): small integers whose reductions are exact in every type,
// so the check is exact. fill() writes PE `pe`'s send buffer; expected() is element i of
// `pe`'s receive buffer for a run with n PEs.
void fill(Type t, Redop r, void* buf, size_t count, int pe, uint64_t salt);
// Elements of dst (recv_count of them) that differ from the expected result on PE `pe`.
size_t count_wrong(Op c, Type t, Redop r, const void* dst, const Shape& s, int pe, int n, int root,
                   uint64_t salt);

struct Result {
  double time_us = 0, algbw = 0, busbw = 0;
  long wrong = -1;       // -1: not checked (prints N/A)
  double floor_us = -1;  // the memory floor's time; 0: not modelled; < 0: not measured
};

class Table {
 public:
  // floor: print the floor columns (Result::floor_us).
  Table(Op c, const Config& cfg, int n, bool speak, bool floor = false);
  // Prints the header (nccl-tests' three lines).
  void header();
  void row(const Shape& s, const Result& out_of_place, const Result& in_place,
           const std::string& json_extra = "");
  // "# Out of bounds values : N OK|FAILED" and "# Avg bus bandwidth : X"; returns the total of
  // wrong values (the program exits non-zero when it is not 0).
  long footer();

 private:
  Op op_;
  Config cfg_;
  int n_;
  bool speak_;
  bool floor_;
  long wrong_ = 0;
  double busbw_sum_ = 0;
  int rows_ = 0;
};

}  // namespace collperf
