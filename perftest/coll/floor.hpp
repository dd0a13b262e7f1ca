// The memory floor of the collective perftests: on CPU PEs every byte a collective moves is a load
// or a store through the memory system, so no algorithm runs faster than its own traffic at the
// machine's memory bandwidth. measure_memory() measures that bandwidth in the same run, with
// STREAM's copy and triad run by every PE at once (one thread each, as the PEs run the
// collective); traffic() says what the planner's algorithm must move per PE; floor_us() is the
// time that traffic takes at the measured rates. The perftests print floor_us / measured time:
// 1 is the limit, and a fraction well below it says the time goes elsewhere (waits, extra copies,
// a slow reduction loop).
#pragma once

#include <cstddef>
#include <functional>

#include "collectives/planner.hpp"
#include "perftest/coll/nccl_format.hpp"

namespace collperf {

// Bandwidths per PE while every PE runs the same loop, counted as STREAM counts them: bytes read
// plus bytes written by the program (not the write-allocate reads the hardware adds; the
// collectives' traffic is counted the same way, so the ratio is fair).
struct MemoryBandwidth {
  double copy_gbps = 0;    // c = a (memcpy, as the collectives copy)
  double triad_gbps = 0;   // a = b + q * c (two loads and a store, as a two-source reduction)
  size_t array_bytes = 0;  // each of the three arrays of every PE
  int reps = 0;            // best of
  double seconds = 0;      // the whole measurement, first touch of the arrays included
};

// Called by every PE at once. barrier() synchronises all PEs; slowest(x) returns the maximum of x
// over the PEs (each rep is timed by its slowest PE, so the figure is what all PEs together get).
// The arrays are sized so that all PEs' arrays together are 1.5 times the last-level cache, and
// at least 32 MiB each.
MemoryBandwidth measure_memory(int npes, const std::function<void()>& barrier,
                               const std::function<double(double)>& slowest);

// What one call moves through memory, averaged over the PEs (all PEs share the memory system, so
// the total over PEs is what bounds the call), split by the loop that moves it.
struct Traffic {
  double copied = 0;   // bytes read plus written by copies (memcpy)
  double reduced = 0;  // bytes read plus written by reductions
  bool known = false;  // false: the algorithm is not modelled (Hier, whose bound is the network)
};

// How the call's buffers are laid out, as far as the traffic depends on it. src_published /
// dst_published: peers read the buffer in place (coll_api.cpp's CallArgs::src_pub / dst_pub);
// otherwise the direct algorithms copy it into the PE's pool first.
struct Buffers {
  bool src_published = false;
  bool dst_published = false;
  bool in_place = false;  // nccl-tests' in-place layout (copies of a block onto itself vanish)
};

// The traffic of `algo` for one call of shape s (elements of es bytes) on n PEs of one node.
Traffic traffic(Op op, gshmem::coll::Algo algo, int n, const Shape& s, size_t es, Buffers buf);

// Microseconds `t` takes at the rates of `bw`; 0 when t is not known or nothing was measured.
double floor_us(const Traffic& t, const MemoryBandwidth& bw);

}  // namespace collperf
