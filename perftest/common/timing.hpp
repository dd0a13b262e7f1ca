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
