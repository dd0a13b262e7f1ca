// The one timing loop of the perftests, and the unit conversions that go with it.
#pragma once

#include <chrono>
#include <cstddef>

namespace perftest {

// Runs body(k) `warmup` times untimed, then `iters` times timed; returns seconds per timed
// iteration. k counts every call from 0, so bodies that exchange values (ping-pong) get a fresh
// one each time. Both sides of a two-sided exchange call this with the same counts.
template <class Body>
double seconds_per_iter(int warmup, int iters, Body&& body) {
  long k = 0;
  for (int i = 0; i < warmup; ++i) body(k++);
  auto start = std::chrono::steady_clock::now();
  for (int i = 0; i < iters; ++i) body(k++);
  std::chrono::duration<double> elapsed = std::chrono::steady_clock::now() - start;
  return elapsed.count() / iters;
}

// Warms a job up before its first timed size: calls body() in rounds of 1, 2, 4, ... until the
// slowest PE has spent `seconds` in them. slowest(v) returns the largest v of all PEs (a collective
// call on each), so every PE runs the same rounds. A job's first milliseconds carry one-off costs
// (the scheduler settling the processes on cores, first faults) that a count of warm-up calls of
// a 50 ns collective does not cover: on 2 shared cores, half of the 2-PE broadcast runs timed their
// first size (8 B) at 0.21 us and the next at 0.05 us.
template <class Body, class Slowest>
void warm_up_job(double seconds, Body&& body, Slowest&& slowest) {
  auto start = std::chrono::steady_clock::now();
  for (long round = 1;; round = round < (1L << 16) ? 2 * round : round) {
    for (long i = 0; i < round; ++i) body();
    std::chrono::duration<double> spent = std::chrono::steady_clock::now() - start;
    if (slowest(spent.count()) >= seconds) return;
  }
}

// The job warm-up of the collective perftests (both gshmem's and the Open MPI baseline).
inline constexpr double kJobWarmupSeconds = 0.05;

inline double gb_per_s(double bytes, double seconds) {
  return bytes / seconds / 1e9;
}
inline double usec(double seconds) {
  return seconds * 1e6;
}

// Makes the compiler assume memory behind p is read, so a benchmark copy into a buffer nobody
// reads is not optimised away.
inline void keep(const void* p) {
  asm volatile("" : : "r"(p) : "memory");
}

}  // namespace perftest
