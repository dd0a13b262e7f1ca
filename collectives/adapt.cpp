#include "collectives/adapt.hpp"

#include <algorithm>
#include <atomic>
#include <cinttypes>
#include <cmath>
#include <cstdio>
#include <limits>
#include <memory>

#include "collectives/calibrate.hpp"
#include "gshmem/gshmem.h"
#include "host/base/env.hpp"

namespace gshmem::coll {

void Chooser::reset(const double* expected_us, int n, bool probe) {
  *this = Chooser{};
  probing_ = probe;
  n_ = std::min(n, kLiveMaxCands);
  for (int i = 0; i < n_; ++i) {
    expected_[i] = expected_us[i];
    ttl_[i] = kBaseTtl;
  }
}

double Chooser::score(int i, bool degraded) const {
  const bool fresh = seen_at_[i] > 0 && epoch_ - seen_at_[i] < ttl_[i];
  if (i == cur_ || degraded) return fresh ? seen_[i] : expected_[i];
  // The current one runs as expected. On a loaded host a call's time swings several-fold within
  // seconds, and its epoch in a slow spell against another's in a calm one is no reason to move.
  // What counts: the candidate just left while its time is recent (the switch is checked
  // against it, so a return to the plan that lost comes back), and the plan once its time is
  // stale (its scheduled retry).
  if (i == prev_ && fresh) return seen_[i];
  if (i == 0 && !fresh) return expected_[i];
  return std::numeric_limits<double>::infinity();
}

int Chooser::epoch_end(double us) {
  ++epoch_;
  seen_[cur_] = us;
  seen_at_[cur_] = epoch_;
  if (probing_) {
    for (int i = 0; i < n_; ++i) {
      if (seen_at_[i] == 0) return cur_ = i;
    }
    // Every candidate ran an epoch: the planner's choice stays unless another beat it by more
    // than the hysteresis.
    probing_ = false;
    int best = 0;
    for (int i = 1; i < n_; ++i) {
      if (seen_[i] < seen_[best]) best = i;
    }
    cur_ = best != 0 && seen_[best] * kHysteresis < seen_[0] ? best : 0;
    for (int i = 0; i < n_; ++i) {  // the slower ones are left as if they had run
      if (seen_[i] > seen_[cur_]) ttl_[i] = std::min(ttl_[i] * 2, kMaxTtl);
    }
    return cur_;
  }
  const bool degraded = us > kDegraded * expected_[cur_];
  int best = cur_;
  for (int i = 0; i < n_; ++i) {
    if (score(i, degraded) < score(best, degraded)) best = i;
  }
  if (best == cur_ || score(best, degraded) * kHysteresis >= us) {
    ttl_[cur_] = kBaseTtl;  // it holds: when left some day, it is tried again soon
    return cur_;
  }
  ttl_[cur_] = std::min(ttl_[cur_] * 2, kMaxTtl);
  prev_ = cur_;
  cur_ = best;
  return cur_;
}

namespace {

// Whether `a` gives the same result as the planner's `planned` for coll, bit for bit. Calls whose
// result does not depend on the order (data movement, integer reductions) get the same bits from
// any algorithm; floating-point reductions do within the direct family (each direct variant,
// either protocol, reduces in member order), not across it (ring and tree start the sum at
// different members).
bool same_result(Coll coll, bool order_free, Algo planned, Algo a) {
  const bool reduces =
      coll == Coll::AllReduce || coll == Coll::Reduce || coll == Coll::ReduceScatter;
  if (!reduces || order_free) return true;
  auto direct = [](Algo x) { return x == Algo::Direct || x == Algo::Direct2; };
  return direct(planned) && direct(a);
}

// Call shapes a team keeps choices for: a program's long calls come in a few sizes (a training
// step's buckets, each layer's parameters), and a sweep of every size from 8 B to 64 MiB is 24
// (the calls under 256 KiB are live only where they take kLiveMinUs). A shape evicted and seen
// again is set up and probed afresh.
constexpr int kSlotsPerTeam = 32;
static_assert(8 * (kLiveInstanceWord + 1) <= kAreaHeaderBytes);

std::atomic<uint64_t> switches{0};
std::atomic<uint64_t> calls_by_algo[kNumAlgos];

struct TeamChoices {
  uint64_t instance = 0;              // what this PE wrote into the team's instance word
  uint64_t clock = 0;                 // the team's live calls so far
  uint64_t used[kSlotsPerTeam] = {};  // the clock at each slot's last call (0: never used)
  LiveChoice slot[kSlotsPerTeam];
};

}  // namespace

bool LiveChoice::made_from(Coll coll, uint64_t bytes, bool order_free, const Plan& planned,
                           const Overrides& o, const Calibration* cal) const {
  const Plan& p = planned_;
  return coll_ == int(coll) && bytes_ == bytes && order_free_ == order_free && cal_ == cal &&
         p.algo == planned.algo && p.sub == planned.sub && p.proto == planned.proto &&
         p.nch == planned.nch && p.chunk == planned.chunk &&
         o_.algo[int(coll)] == o.algo[int(coll)] && o_.proto == o.proto && o_.nch == o.nch &&
         o_.chunk == o.chunk && o_.use_calibration == o.use_calibration && o_.adapt == o.adapt &&
         o_.probe == o.probe;
}

void LiveChoice::set_up(Coll coll, uint64_t bytes, bool order_free, const TeamShape& shape,
                        const Plan& planned, const Overrides& o, const Calibration* cal) {
  coll_ = int(coll);
  bytes_ = bytes;
  order_free_ = order_free;
  cal_ = cal;
  planned_ = planned;
  o_ = o;
  live_ = false;
  // The other candidates allowed (algorithm and protocol, as calibration measures them), the most
  // promising first.
  Plan others[2 * kNumAlgos];
  int k = 0;
  for (const auto& [a, pr] : candidates(coll, shape)) {
    if ((a == planned.algo && pr == planned.proto) ||
        (o.adapt == Adapt::SameBits && !same_result(coll, order_free, planned.algo, a)) ||
        (planned.proto_forced && pr != planned.proto)) {  // GSHMEM_PROTO holds
      continue;
    }
    Overrides forced = o;
    forced.algo[int(coll)] = a;
    forced.proto = pr;
    const Plan p = make_plan(coll, shape, bytes, forced);
    if (p.algo == a && p.proto == pr && p.predicted_us > 0 &&
        p.predicted_us <= kLiveSpread * planned.predicted_us) {
      int j = k++;  // kept in order of expected time
      for (; j > 0 && others[j - 1].predicted_us > p.predicted_us; --j) others[j] = others[j - 1];
      others[j] = p;
    }
  }
  int n = 0;
  plans_[n++] = planned;
  for (int i = 0; i < k && n < kLiveMaxCands; ++i) plans_[n++] = others[i];
  if (n < 2 || !(planned.predicted_us > 0)) return;
  double expected[kLiveMaxCands];
  for (int i = 0; i < n; ++i) expected[i] = plans_[i].predicted_us;
  chooser_.reset(expected, n, o.probe);
  epoch_calls_ = live_epoch_calls(shape, planned.predicted_us);
  calls_ = 0;
  live_ = true;
}

bool LiveChoice::add(double us) {
  times_[calls_++] = us;
  return calls_ == epoch_calls_;
}

double LiveChoice::epoch_us() {
  const int n = calls_;
  calls_ = 0;
  std::nth_element(times_, times_ + n / 2, times_ + n);
  return times_[n / 2];
}

bool LiveChoice::decide(double agreed_us, std::string* what) {
  const int was = chooser_.current();
  const bool probe = chooser_.probing();
  const int next = chooser_.epoch_end(agreed_us);
  if (next == was) return false;
  switches.fetch_add(1, std::memory_order_relaxed);
  char line[256];
  std::snprintf(line, sizeof line,
                "%s%s/%s took %.3g us per call over the last %d calls (expected %.3g us); now "
                "%s/%s (expected %.3g us)",
                probe ? "probing the candidates once: " : "", algo_name(plans_[was].algo),
                proto_name(plans_[was].proto), agreed_us, epoch_calls_, chooser_.expected_us(was),
                algo_name(plans_[next].algo), proto_name(plans_[next].proto),
                chooser_.expected_us(next));
  *what = line;
  return true;
}

uint64_t live_switches() {
  return switches.load(std::memory_order_relaxed);
}

uint64_t live_calls(Algo a) {
  return int(a) < kNumAlgos ? calls_by_algo[int(a)].load(std::memory_order_relaxed) : 0;
}

void count_live_call(Algo a) {
  if (int(a) < kNumAlgos) calls_by_algo[int(a)].fetch_add(1, std::memory_order_relaxed);
}

bool may_go_live(uint64_t bytes, const Plan& planned, const Overrides& o) {
  const bool long_call = bytes >= kLiveMinBytes || planned.predicted_us >= kLiveMinUs;
  return long_call && !planned.forced && o.adapt != Adapt::Off;
}

int live_epoch_calls(const TeamShape& shape, double predicted_us) {
  // Long enough that its exchange (an 8-byte allreduce) costs about 1% of it, by the model's
  // constants (a calibration need not have measured 8 bytes).
  Overrides model;
  model.use_calibration = false;
  const double exchange_us = make_plan(Coll::AllReduce, shape, 8, model).predicted_us;
  return int(std::clamp(std::ceil(100 * exchange_us / predicted_us), double(kLiveMinEpochCalls),
                        double(kLiveMaxEpochCalls)));
}

Adapt adapt_setting(std::string_view value) {
  if (value == "bits") return Adapt::SameBits;
  bool on = true;
  Env::parse_bool(value, &on);
  return on ? Adapt::Any : Adapt::Off;
}

LiveChoice* live_choice(int team, uint64_t* instance_word, Coll coll, uint64_t bytes,
                        bool order_free, const TeamShape& shape, const Plan& planned,
                        const Overrides& o, const Calibration* cal) {
  if (!may_go_live(bytes, planned, o) || shape.gpu || shape.n < 2 || team < 0 ||
      team >= GSHMEM_MAX_TEAMS) {
    return nullptr;
  }
  // Made on a team's first live call and never freed (a call from an atexit handler may come
  // after static destructors).
  static TeamChoices* teams[GSHMEM_MAX_TEAMS] = {};
  static uint64_t instances = 0;  // only ever grows, so a new team never matches an old slot
  if (!teams[team]) teams[team] = new TeamChoices;
  TeamChoices& tc = *teams[team];
  if (*instance_word == 0 || *instance_word != tc.instance) {
    // A team this PE has not run live choices on (the word was zeroed when it was created).
    tc = TeamChoices{};
    tc.instance = *instance_word = __atomic_add_fetch(&instances, 1, __ATOMIC_RELAXED);
  }
  // The call shape's slot, else the least recently used one: the same on every member, whose
  // calls on the team are the same.
  int k = 0;
  for (int i = 0; i < kSlotsPerTeam; ++i) {
    const LiveChoice& x = tc.slot[i];
    if (tc.used[i] && x.coll_ == int(coll) && x.bytes_ == bytes && x.order_free_ == order_free) {
      k = i;
      break;
    }
    if (tc.used[i] < tc.used[k]) k = i;
  }
  tc.used[k] = ++tc.clock;
  LiveChoice& c = tc.slot[k];
  if (!c.made_from(coll, bytes, order_free, planned, o, cal)) {
    c.set_up(coll, bytes, order_free, shape, planned, o, cal);
  }
  return c.live_ ? &c : nullptr;
}

}  // namespace gshmem::coll
