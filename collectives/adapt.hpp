// Following the machine while a job runs. The planner's plan is fixed when the call shape is
// first seen, from what the machine measured at calibration (calibration.hpp) or the model. But a
// shared host changes speed under a job: measured here, 2 PEs on 2 cores, AllReduce 512 KiB,
// direct2 took 13-19 us per call while the two vCPUs passed a cache line in 40-55 ns, and 48-52 us
// in spells of seconds to minutes when the host had moved them apart (200 ns), while direct
// stayed at 14 us. A plan fixed at init is then 3x off for as long as the spell lasts.
//
// So on CPU PEs, for calls of at least kLiveMinBytes, or that the plan expects to take at least
// kLiveMinUs (many PEs, slower links), whose algorithm and protocol the planner chose (not
// GSHMEM_ALGO), the members time their calls in epochs of a few calls. At the end of an epoch
// they agree on its time (the least over the members of each one's median call, by an 8-byte
// allreduce on the team: the last member to arrive waits least, so its time is the algorithm's,
// not the skew between the members') and on what to run next (Chooser: the same numbers in, the
// same answer out on every member). The candidates are the planner's choice and the other
// algorithms and protocols whose expected time is at most kLiveSpread times the choice's, the
// kLiveMaxCands - 1 most promising.
//
// GSHMEM_ADAPT says which algorithms (it must be the same on every PE, as GSHMEM_ALGO):
// - 1 (the default): any. A floating-point reduction then gives every member the same bits in a
//   call, but a call may differ in its last bits from the call before it of the same shape when
//   the team switched between algorithm families (ring and tree start the sum at different
//   members), as it may between two jobs whose calibrations differ. Measured at 4 PEs on 2 cores:
//   ring, chosen by a calibration that saw it fast, ran AllReduce 8-32 MiB at 2.6-2.9x direct2
//   for whole jobs.
// - bits: only algorithms that give the same result bit for bit: for the reductions of floating
//   types, the direct family (every direct variant combines the members' data in member order);
//   for integer types any order gives the same bits. For jobs that must repeat their floats
//   exactly (as NCCL_ALGO fixed, or Intel MPI's I_MPI_CBWR).
// - 0: every call runs the plan made when its shape was first seen.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "collectives/planner.hpp"

namespace gshmem::coll {

struct Calibration;

// A live call takes microseconds: its two clock reads and its share of the epoch's exchange are
// about 1% of it.
inline constexpr uint64_t kLiveMinBytes = 256u << 10;
inline constexpr double kLiveMinUs = 10;
inline constexpr double kLiveSpread = 2.0;
inline constexpr int kLiveMaxCands = 4;
inline constexpr int kLiveMinEpochCalls = 8;
inline constexpr int kLiveMaxEpochCalls = 64;
// The word of a team's collective-area header that live_choice() uses (words 0-2: the call
// counters of coll_api.cpp, coll_kernel.cu and call_check.cpp).
inline constexpr int kLiveInstanceWord = 3;

// The choice among a call's candidates from the agreed time of each epoch. Candidate 0 is the
// planner's.
// - The probe (GSHMEM_ADAPT_PROBE=1; off by default, since its epochs fall inside a short
//   benchmark's calls: measured, Broadcast 64 KiB at 3 PEs, 18.6-20.1 us per call in a
//   perftest's 20 timed calls against 10.7-11.2 us after them): the first epochs run every
//   candidate once, and the planner's choice stays unless
//   another beat it by more than kHysteresis. A calibration made in another state of the machine
//   is then found out even where the plan runs as fast as it expected (measured at 4 PEs on 2
//   cores: in check jobs after a calibration that chose direct for AllReduce 256 KiB-2 MiB,
//   direct2 took 0.74-0.88 of direct's time, and direct was not slow enough to explore). It costs
//   at most kLiveMaxCands - 1 epochs of candidates expected within kLiveSpread, once per call
//   shape and team while the shape keeps its slot (live_choice).
// - Then a candidate's score is its time seen in a recent epoch, else its expected time; the next
//   epoch runs the best score when it beats the current one's by more than kHysteresis. While the
//   current one is degraded (slower than kDegraded times its expected time) every candidate
//   counts: a load that hits the current algorithm hard (the far state above, 3x) sends the team
//   exploring. Otherwise only two others count: a load that slows every candidate alike
//   (neighbours on a shared host, whose spells swing a call's time several-fold within seconds)
//   sends no one exploring.
//   - The candidate left at the last switch, while its time is recent: every switch is checked
//     against what it left.
//   - The planner's choice, once its time is stale: its scheduled retry.
// - A candidate left because it was slow keeps its seen time for twice as many epochs as the last
//   time it was left (from kBaseTtl up to kMaxTtl): the planner's choice is then retried if its
//   expected time promises a gain, the others when the current one is degraded. The machine may
//   have come back, and a candidate that stays slow costs ever fewer epochs.
// Pure: every member feeds it the same numbers and gets the same answers.
class Chooser {
 public:
  static constexpr double kHysteresis = 1.10;
  static constexpr double kDegraded = 1.5;
  static constexpr long kBaseTtl = 8;
  static constexpr long kMaxTtl = 512;

  // expected_us[0 .. n-1], n <= kLiveMaxCands.
  // probe: run every candidate once in the first epochs (GSHMEM_ADAPT_PROBE).
  void reset(const double* expected_us, int n, bool probe);
  int current() const { return cur_; }
  bool probing() const { return probing_; }
  int size() const { return n_; }
  double expected_us(int i) const { return expected_[i]; }
  // Ends an epoch in which the current candidate took `us` per call (the agreed time). Returns
  // the candidate of the next epoch.
  int epoch_end(double us);

 private:
  double score(int i, bool degraded) const;
  int n_ = 0, cur_ = 0;
  bool probing_ = false;
  int prev_ = -1;  // the candidate left at the last switch (none after the probe)
  long epoch_ = 0;
  double expected_[kLiveMaxCands] = {}, seen_[kLiveMaxCands] = {};
  long seen_at_[kLiveMaxCands] = {}, ttl_[kLiveMaxCands] = {};
};

// One call shape's live choice on one team: its candidates' plans, the chooser, this epoch's
// times.
class LiveChoice {
 public:
  const Plan& plan() const { return plans_[chooser_.current()]; }
  // This call's time on this PE; true when the epoch ended: agree on epoch_us() over the team,
  // then call decide().
  bool add(double us);
  // The median call of the epoch that ended, on this PE.
  double epoch_us();
  // The agreed epoch time. Returns true when the next calls run another candidate, with
  // *what saying which and why (for the INFO log).
  bool decide(double agreed_us, std::string* what);

 private:
  friend LiveChoice* live_choice(int team, uint64_t* instance_word, Coll coll, uint64_t bytes,
                                 bool order_free, const TeamShape& shape, const Plan& planned,
                                 const Overrides& o, const Calibration* cal);
  bool made_from(Coll coll, uint64_t bytes, bool order_free, const Plan& planned,
                 const Overrides& o, const Calibration* cal) const;
  // Makes the candidates for the key; live_ says whether there are two or more.
  void set_up(Coll coll, uint64_t bytes, bool order_free, const TeamShape& shape,
              const Plan& planned, const Overrides& o, const Calibration* cal);

  // The key: what the candidates were made from. (Not the overrides' generation: a program that
  // forces an algorithm for some calls and then returns to the planner finds its choices as it
  // left them.)
  int coll_ = -1;
  uint64_t bytes_ = 0;
  bool order_free_ = false;
  const Calibration* cal_ = nullptr;
  Plan planned_;
  Overrides o_;
  bool live_ = false;  // false: fewer than two candidates, the call runs the plan

  Plan plans_[kLiveMaxCands];
  Chooser chooser_;
  int epoch_calls_ = kLiveMinEpochCalls, calls_ = 0;
  double times_[kLiveMaxEpochCalls] = {};
};

// Whether a call of `bytes` planned as `planned` may be live: long enough, its algorithm not
// forced, GSHMEM_ADAPT not 0 (live_choice also needs two candidates).
bool may_go_live(uint64_t bytes, const Plan& planned, const Overrides& o);

// The calls of one epoch of a live choice whose plan is expected to take `predicted_us`. A call
// shape's probe is over after kLiveMaxCands epochs.
int live_epoch_calls(const TeamShape& shape, double predicted_us);

// GSHMEM_ADAPT's value ("1", "bits" or "0"; on/off, yes/no, true/false as 1/0) as
// Overrides::adapt.
Adapt adapt_setting(std::string_view value);
// How many times this process's live choices have switched candidates, and how many calls they
// ran with each algorithm (for tests and diagnostics).
uint64_t live_switches();
uint64_t live_calls(Algo a);
void count_live_call(Algo a);

// The live choice of a call of `bytes` on the team in slot `team`, or nullptr when the call runs
// `planned` as it is (too small, an algorithm forced, no other candidate). `order_free`: the
// call's result does not depend on the order its data is combined in (it moves data only, or
// reduces an integer type), so every algorithm gives the same bits. `instance_word`: a word
// of the team's collective area, zeroed when the team is created, so a new team in the slot starts
// afresh on every member alike. Called by every member at the same call (the state is the
// members' common history of the team's calls). One thread at a time per team.
LiveChoice* live_choice(int team, uint64_t* instance_word, Coll coll, uint64_t bytes,
                        bool order_free, const TeamShape& shape, const Plan& planned,
                        const Overrides& o, const Calibration* cal);

}  // namespace gshmem::coll
