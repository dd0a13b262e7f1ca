// One iteration of the soak's verified mix: RMA (blocking and non-blocking, up to 200 KB), p/g,
// atomics on several types with exact totals, put-with-signal and signal waits, every collective
// of gshmem/collectives.h on the world and on split teams made and destroyed in the iteration,
// MoE dispatch/combine on a handle that lives the whole run and on one made and destroyed in the
// iteration, and symmetric heap blocks of varying sizes (up to 24 MiB) allocated and freed.
//
// Everything an iteration sends is a function of (job seed, iteration, sender), so every receiver
// regenerates what it must have got; every result is compared exactly. Collective over the world:
// every PE runs the same iterations in the same order.
#pragma once

#include <cstdarg>
#include <cstdint>
#include <memory>
#include <string>

#include "gshmem/moe.hpp"

namespace soak {

// Counts and prints failed checks (the first few in full, with what reproduces them).
class Checker {
 public:
  explicit Checker(uint64_t seed) : seed_(seed) {}
  void set_iteration(long it) { iteration_ = it; }
  // Records a failure when !ok; `what` is printf-style.
  bool check(bool ok, const char* what, ...) __attribute__((format(printf, 3, 4)));
  long failures() const { return failures_; }

 private:
  uint64_t seed_;
  long iteration_ = 0;
  long failures_ = 0;
};

class Mix {
 public:
  static constexpr unsigned kAll = 0x7f;
  // Collective over the world: the buffers and the MoE handle that live the whole run. `parts`:
  // the parts an iteration runs (bits in the order of parse_parts' names; narrowing a growth
  // down to one part).
  explicit Mix(unsigned parts = kAll);
  ~Mix();
  Mix(const Mix&) = delete;
  Mix& operator=(const Mix&) = delete;

  // Collective. `largest`: take the largest size of every choice (the warm-up does, so that
  // every high-water mark is reached before the resources are first measured).
  void iteration(long it, uint64_t seed, bool largest, Checker& c);
  // "heap,rma,atomics,signals,collectives,teams,moe" or a subset: the mask; 0 for a bad list.
  static unsigned parse_parts(const std::string& list);
  // Seconds spent in each part so far, as "heap 1.2s, rma 3.4s, ...".
  std::string times() const;

 private:
  void rma(uint64_t seed, bool largest, Checker& c);
  void atomics(long it, uint64_t seed, Checker& c);
  void signals(long it, uint64_t seed, bool largest, Checker& c);
  void collectives(uint64_t seed, bool largest, Checker& c);
  void teams(uint64_t seed, Checker& c);
  void moe(long it, uint64_t seed, Checker& c);
  void heap(uint64_t seed, bool largest, Checker& c);

  static constexpr int kParts = 7;
  double seconds_[kParts] = {};
  unsigned parts_;
  int me_, n_;
  // Symmetric, for the whole run: RMA landing slots and sources, the signal words.
  unsigned char* slots_ = nullptr;
  unsigned char* source_ = nullptr;
  uint64_t* signals_ = nullptr;
  std::unique_ptr<gshmem::moe::AllToAll> a2a_;
};

}  // namespace soak
