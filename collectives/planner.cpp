#include "collectives/planner.hpp"

#include "collectives/calibration.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <optional>
#include <tuple>
#include <utility>
#include <vector>

#include "gshmem/coll/algorithms.cuh"
#include "gshmem/coll/ll.cuh"
#include "host/base/env.hpp"

namespace gshmem::coll {

namespace {

// The cost model's constants: one row per link class. alpha is the time of one synchronised step
// between two PEs over the link (the flag written, seen and the data usable); gbps what one PE
// moves through it per second. For host memory everything a CPU PE does is a memory copy, so the
// model counts all bytes copied, reduced or read from peers (memory_bound).
const LinkCost kLinkCosts[] = {
    // LinkClass::HostMemory
    {"host", 0.5, 12.0, true,
     "measured here (AMD EPYC VM, 2 cores): a one-step AllReduce of 8 B between 2 CPU PEs takes "
     "~0.2 us, a copy moves ~10 GB/s (64 MiB) to 40 GB/s (in cache); the model counts bytes "
     "read plus bytes written"},
    // LinkClass::NvLink
    {"nvlink", 1.5, 360.0, false,
     "H100 NVLink4: 450 GB/s per direction per GPU, ~360 GB/s reached by NCCL AllReduce busbw; "
     "~1-2 us per synchronised hop (NCCL LL/Simple protocol figures)"},
    // LinkClass::Pcie
    {"pcie", 3.0, 20.0, false, "PCIe Gen4/5 x16 peer-to-peer: 20-25 GB/s effective, ~3 us per hop"},
    // LinkClass::Tcp
    {"tcp", 25.0, 3.0, false,
     "measured here: libfabric tcp;ofi_rxm on loopback, 1 MiB writes ~5.6 GB/s (shared with "
     "the proxy thread's copies), ~20-40 us per put-with-signal round trip through the proxy"},
    // LinkClass::Efa
    {"efa", 15.0, 45.0, false,
     "AWS p5: 32 x 100 Gb/s EFA per 8 GPUs = 50 GB/s per GPU, ~45 GB/s reached; SRD + proxy "
     "~10-20 us per hop"},
};

const char* const kAlgoNames[kNumAlgos] = {"auto", "direct", "direct2", "ring",
                                           "tree", "rd",     "hier",    "pairwise"};
const char* const kCollNames[kNumColls] = {"allreduce",     "reduce",    "allgather",
                                           "reducescatter", "broadcast", "alltoall"};
const char* const kProtoNames[kNumProtos] = {"auto", "simple", "ll"};

// The LL protocol's step against the simple protocol's alpha: one store and one poll of the same
// lines, with no flag of its own, no ack and no guard (measured here: 2 CPU PEs, 8 B AllReduce
// ~0.1 us against ~0.25 us).
constexpr double kLLAlphaFactor = 0.4;

int log2_ceil(int n) {
  int l = 0;
  while ((1 << l) < n) ++l;
  return l;
}

// Time of `hops` synchronised steps plus `bytes` through a link of class c (microseconds).
// A synchronised step between CPU PEs that share cores costs a context switch, not a cache-line
// transfer (measured here: 4 PEs on 2 cores, ~5-10 us per step against ~0.2-1 us).
constexpr double kOversubscribedAlpha = 8;

double cost(const TeamShape& s, LinkClass c, double hops, double bytes) {
  const LinkCost& k = link_cost(c);
  const double alpha = k.alpha_us * (s.oversubscribed && k.memory_bound ? kOversubscribedAlpha : 1);
  return hops * alpha + bytes / (k.gbps * 1e3);
}

// The link class that bounds an algorithm whose steps cross every link of the team.
LinkClass slowest(const TeamShape& s) {
  return s.nodes > 1 ? s.inter : s.intra;
}

// Pipelining rounds of a push schedule: chunks of `chunk` bytes, `per_round` chunks a round.
double rounds(uint64_t bytes, int nch, uint64_t chunk, double per_round) {
  double r = std::ceil(double(bytes) / nch / (double(chunk) * per_round));
  return r < 1 ? 1 : r;
}

// Bytes a memory-bound (CPU) PE moves per byte of a push step: the chunk read and written into
// the peer's slot, then read and written (or reduced) again at the other end.
constexpr double kPushCopies = 4;
// A push algorithm's first step waits for the receiver's credit: one more hop than its schedule.
constexpr double kGrant = 1;

double predict_allreduce(Algo algo, Algo sub, const TeamShape& s, double S, int nch,
                         uint64_t chunk) {
  const int n = s.n;
  const LinkClass w = slowest(s);
  const bool mem = link_cost(s.intra).memory_bound;
  const double push = link_cost(w).memory_bound ? kPushCopies : 1;
  switch (algo) {
    case Algo::Direct:  // one synchronised step; every PE reads all n inputs
      return cost(s, s.intra, 1, mem ? (n + 2) * S : (n - 1) * S);
    case Algo::Direct2:  // reduce-scatter, then all-gather, straight from mapped memory
      return cost(s, s.intra, 2, mem ? 3 * S : 2.0 * (n - 1) / n * S);
    case Algo::Ring: {
      double R = rounds(uint64_t(S), nch, chunk, n);
      return cost(s, w, kGrant + 2.0 * (n - 1) * R, push * 2.0 * (n - 1) / n * S);
    }
    case Algo::Tree: {
      double R = rounds(uint64_t(S), nch, chunk, 1);
      double depth = std::max(1, log2_ceil(n + 1) - 1);
      double factor = nch >= 2 ? 2 : 3;  // the double binary tree balances the interior nodes
      return cost(s, w, kGrant + 2 * (depth + R - 1), push * factor * S);
    }
    case Algo::RecDbl: {
      int p2 = 1 << (log2_ceil(n + 1) - 1);
      double steps = log2_ceil(p2) + (p2 != n ? 2 : 0);
      double R = rounds(uint64_t(S), nch, chunk, 1);
      return cost(s, w, kGrant + steps * R, push * steps * S);
    }
    case Algo::Hier: {
      if (s.ppn <= 0 || s.nodes < 2) return -1;
      const int L = s.ppn, G = s.nodes;
      double intra = cost(s, s.intra, 2, mem ? 3 * S : 2.0 * (L - 1) / L * S);
      TeamShape rail = s;
      rail.n = G;
      rail.nodes = G;
      rail.ppn = 1;
      double across = predict_allreduce(sub, Algo::Ring, rail, S / L, nch, chunk);
      return intra + across;
    }
    default:
      return -1;
  }
}

// The LL protocol (ll.cuh) on one node: a round per kLLPayloadBytes a source sends, each one
// synchronised step; CPU PEs copy every byte into each reader's buffer (read and write), then
// read it there.
double predict_ll(Coll coll, const TeamShape& s, double S) {
  const int n = s.n;
  const LinkCost& k = link_cost(s.intra);
  const bool mem = k.memory_bound;
  double per_src = S, moved = 0;  // bytes one source sends each reader; bytes a PE moves
  switch (coll) {
    case Coll::AllReduce:
      moved = mem ? (3.0 * n - 1) * S : (n - 1.0) * S;
      break;
    case Coll::Reduce:
      moved = mem ? (n + 3.0) * S : (n - 1.0) * S;
      break;
    case Coll::AllGather:
    case Coll::ReduceScatter:
      per_src = S / n;
      moved = mem ? (4.0 - 2.0 / n) * S : (n - 1.0) / n * S;
      break;
    case Coll::Broadcast:
      moved = mem ? 2.0 * n * S : S;
      break;
    default:
      return -1;
  }
  const double rounds = std::max(1.0, std::ceil(per_src / double(kLLPayloadBytes)));
  const double alpha =
      k.alpha_us * kLLAlphaFactor * (s.oversubscribed && mem ? kOversubscribedAlpha : 1);
  return rounds * alpha + moved / (k.gbps * 1e3);
}

thread_local const LinkCost* t_scoped[kNumLinkClasses] = {};

// The model with the constants (Overrides::use_calibration false): the constants for every link
// class this thread has not scoped, while it lives.
class ConstantsOnly {
 public:
  ConstantsOnly() {
    if (!installed_calibration()) return;
    for (int c = 0; c < kNumLinkClasses; ++c) {
      if (!t_scoped[c]) scoped_[c].emplace(LinkClass(c), kLinkCosts[c]);
    }
  }

 private:
  std::optional<ScopedLinkCost> scoped_[kNumLinkClasses];
};

}  // namespace

const LinkCost& default_link_cost(LinkClass c) {
  return kLinkCosts[int(c)];
}

const LinkCost& link_cost(LinkClass c) {
  if (const LinkCost* k = t_scoped[int(c)]) return *k;
  if (const Calibration* cal = installed_calibration()) {
    if (const CalLink* l = cal->link(c)) return l->cost;
  }
  return kLinkCosts[int(c)];
}

ScopedLinkCost::ScopedLinkCost(LinkClass c, const LinkCost& k)
    : cls_(c), cost_(k), saved_(t_scoped[int(c)]) {
  t_scoped[int(c)] = &cost_;
}

ScopedLinkCost::~ScopedLinkCost() {
  t_scoped[int(cls_)] = saved_;
}

bool parse_link_class(std::string_view text, LinkClass* out) {
  for (int i = 0; i < int(sizeof kLinkCosts / sizeof kLinkCosts[0]); ++i) {
    if (text == kLinkCosts[i].name) {
      *out = LinkClass(i);
      return true;
    }
  }
  if (text == "shm" || text == "mapped") return *out = LinkClass::HostMemory, true;
  return false;
}

const char* algo_name(Algo a) {
  return int(a) < kNumAlgos ? kAlgoNames[int(a)] : "?";
}
const char* coll_name(Coll c) {
  return int(c) < kNumColls ? kCollNames[int(c)] : "?";
}

// The enumerator whose name (in `names`, by value) is `text`.
template <class E, size_t N>
bool parse_name(const char* const (&names)[N], std::string_view text, E* out) {
  for (size_t i = 0; i < N; ++i) {
    if (text == names[i]) return *out = E(i), true;
  }
  return false;
}

bool parse_algo(std::string_view text, Algo* out) {
  if (parse_name(kAlgoNames, text, out)) return true;
  if (text == "recursive_doubling" || text == "recdbl") return *out = Algo::RecDbl, true;
  if (text == "oneshot") return *out = Algo::Direct, true;
  if (text == "twoshot") return *out = Algo::Direct2, true;
  return false;
}

const char* proto_name(Proto p) {
  return int(p) < kNumProtos ? kProtoNames[int(p)] : "?";
}

bool parse_proto(std::string_view text, Proto* out) {
  if (parse_name(kProtoNames, text, out)) return true;
  if (text == "LL" || text == "low_latency") return *out = Proto::LL, true;
  return false;
}

bool parse_coll(std::string_view text, Coll* out) {
  return parse_name(kCollNames, text, out);
}

bool next_list_item(std::string_view* list, std::string_view* item) {
  while (!list->empty()) {
    const size_t comma = list->find(',');
    *item = list->substr(0, comma);
    *list = comma == std::string_view::npos ? std::string_view() : list->substr(comma + 1);
    if (!item->empty()) return true;
  }
  return false;
}

bool parse_algo_setting(std::string_view text, Overrides* o, std::string* why) {
  std::string_view item;
  while (next_list_item(&text, &item)) {
    size_t colon = item.find(':');
    Algo a;
    if (colon == std::string_view::npos) {
      if (!parse_algo(item, &a)) {
        *why = "unknown algorithm '" + std::string(item) + "'";
        return false;
      }
      for (Algo& slot : o->algo) slot = a;
      continue;
    }
    Coll c;
    if (!parse_coll(item.substr(0, colon), &c)) {
      *why = "unknown collective '" + std::string(item.substr(0, colon)) + "'";
      return false;
    }
    if (!parse_algo(item.substr(colon + 1), &a)) {
      *why = "unknown algorithm '" + std::string(item.substr(colon + 1)) + "'";
      return false;
    }
    o->algo[int(c)] = a;
  }
  return true;
}

bool applicable(Coll coll, Algo algo, const TeamShape& s) {
  if (!implements(algo, coll)) return false;
  switch (algo) {
    case Algo::Direct:
    case Algo::Direct2:
      return s.nodes == 1;
    case Algo::Hier:
      return s.nodes >= 2 && s.ppn >= 1 && s.ppn * s.nodes == s.n;
    default:
      return true;
  }
}

bool duplicate_schedule(Coll coll, Algo algo, const TeamShape& s) {
  return algo == Algo::Tree && s.n == 2 && (coll == Coll::Broadcast || coll == Coll::Reduce);
}

bool ll_applicable(Coll coll, Algo algo, const TeamShape& s) {
  return algo == Algo::Direct && ll_implements(coll) && applicable(coll, algo, s) && s.nodes == 1 &&
         s.n <= kLLMaxMembers;
}

double predict(Coll coll, Algo algo, Algo sub, const TeamShape& s, uint64_t bytes, int nch,
               uint64_t chunk, Proto proto) {
  if (!applicable(coll, algo, s)) return -1;
  const double S = double(bytes);
  const int n = s.n;
  if (n == 1) return 0;
  if (proto == Proto::LL) return ll_applicable(coll, algo, s) ? predict_ll(coll, s, S) : -1;
  const LinkClass w = slowest(s);
  const double mem = link_cost(w).memory_bound ? kPushCopies : 1;
  switch (coll) {
    case Coll::AllReduce:
      return predict_allreduce(algo, sub, s, S, nch, chunk);
    case Coll::Reduce:
      if (algo == Algo::Direct) return predict_allreduce(algo, sub, s, S, nch, chunk);
      if (algo == Algo::Direct2) {  // reduce-scatter, then the slices to the root only
        return cost(s, s.intra, 2, link_cost(s.intra).memory_bound ? 2 * S : (n - 1.0) / n * S);
      }
      if (algo == Algo::Tree) return 0.5 * predict_allreduce(algo, sub, s, S, nch, chunk);
      // Ring: a pipelined chain, n - 1 hops to fill, then one chunk per step.
      return cost(s, w, kGrant + n - 1 + rounds(bytes, nch, chunk, 1) - 1, mem * S);
    case Coll::Broadcast:
      if (algo == Algo::Direct)
        return cost(s, s.intra, 1, link_cost(s.intra).memory_bound ? 3 * S : S);
      if (algo == Algo::Tree) {
        double depth = std::max(1, log2_ceil(n + 1) - 1);
        return cost(s, w, kGrant + depth + rounds(bytes, nch, chunk, 1) - 1, mem * 2 * S);
      }
      return cost(s, w, kGrant + n - 1 + rounds(bytes, nch, chunk, 1) - 1, mem * S);
    case Coll::AllGather:
    case Coll::ReduceScatter:
      if (algo == Algo::RecDbl) {  // log2 rounds; a step carries up to n/2 blocks of a chunk
        const int R = log2_ceil(n);
        const double per_step = std::max(1.0, double(chunk) / std::max(1, n / 2));
        return cost(s, w, kGrant + R * rounds(bytes / n, nch, uint64_t(per_step), 1),
                    mem * (n - 1.0) / n * S + (link_cost(w).memory_bound ? 2.0 * S / n : 0));
      }
      [[fallthrough]];
    case Coll::AllToAll:
      if (algo == Algo::Direct) {
        bool m = link_cost(s.intra).memory_bound;
        return cost(s, s.intra, 1, m ? (2 + 2.0 / n) * S : (n - 1.0) / n * S);
      }
      // Plus this PE's own block, copied locally (2 bytes moved per byte on CPU PEs).
      return cost(s, w, kGrant + (n - 1) * rounds(bytes / n, nch, chunk, 1),
                  mem * (n - 1.0) / n * S + (link_cost(w).memory_bound ? 2.0 * S / n : 0));
  }
  return -1;
}

Plan make_plan(Coll coll, const TeamShape& s, uint64_t bytes, const Overrides& o,
               std::string* note) {
  std::optional<ConstantsOnly> constants;
  if (!o.use_calibration) constants.emplace();
  Plan p;
  // Channels: a GPU spreads a large message over thread blocks of 256 threads, one per 256 KiB;
  // a CPU PE is one thread.
  p.nch = 1;
  if (s.gpu) p.nch = int(std::clamp<uint64_t>(bytes / (256u << 10), 1, kMaxChannels));
  // Chunks: large enough that a step's alpha is small next to its transfer, small enough to
  // keep several steps of the pipeline busy.
  const bool net = s.nodes > 1;
  const uint64_t lo = net ? (128u << 10) : s.gpu ? (64u << 10) : (256u << 10);
  const uint64_t hi = net ? (4u << 20) : (1u << 20);
  p.chunk = std::clamp<uint64_t>(bytes / uint64_t(std::max(1, s.n)) / 4, lo, hi);
  if (o.nch > 0) p.nch = std::min(o.nch, kMaxChannels);
  if (o.chunk > 0) p.chunk = o.chunk;

  // Hier crosses nodes with recursive doubling for small slices, ring for large ones.
  auto sub_for = [&](uint64_t b) {
    TeamShape rail = s;
    rail.n = s.nodes;
    rail.ppn = 1;
    uint64_t slice = b / uint64_t(std::max(1, s.ppn));
    return predict(Coll::AllReduce, Algo::RecDbl, Algo::Ring, rail, slice, p.nch, p.chunk) <
                   predict(Coll::AllReduce, Algo::Ring, Algo::Ring, rail, slice, p.nch, p.chunk)
               ? Algo::RecDbl
               : Algo::Ring;
  };
  p.sub = sub_for(bytes);

  auto add_note = [&](const std::string& text) {
    if (note) *note += (note->empty() ? "" : "; ") + text;
  };
  Algo want = o.algo[int(coll)];
  if (want != Algo::Auto && !applicable(coll, want, s)) {
    add_note(std::string(algo_name(want)) + " does not apply to " + coll_name(coll) +
             (implements(want, coll) ? " on this team's shape" : "") +
             "; using the planner's choice");
    want = Algo::Auto;
  }
  // The protocols the plan may use: both, or the one GSHMEM_PROTO names.
  bool may_ll = o.proto != Proto::Simple, may_simple = o.proto != Proto::LL;
  if (o.proto == Proto::LL) {
    const Algo a = want != Algo::Auto ? want : Algo::Direct;
    if (!ll_applicable(coll, a, s)) {
      add_note(std::string("ll does not apply to ") + coll_name(coll) + " with " + algo_name(a) +
               (s.nodes > 1 || s.n > kLLMaxMembers ? " on this team's shape" : "") +
               "; using simple");
      may_simple = true;
      may_ll = false;
    }
  }
  // This machine's measured times, where it has them for the shape and collective.
  const Calibration* cal = o.use_calibration ? installed_calibration() : nullptr;
  const CalTable* table = cal ? cal->table(s) : nullptr;
  if (table && !table->covers(coll)) table = nullptr;
  // The candidates the plan may choose.
  std::vector<std::pair<Algo, Proto>> cands;
  for (int i = 1; i < kNumAlgos; ++i) {
    const Algo a = Algo(i);
    if (want != Algo::Auto ? a != want : duplicate_schedule(coll, a, s)) continue;
    for (Proto pr : {Proto::Simple, Proto::LL}) {
      if (pr == Proto::LL ? may_ll : may_simple) cands.emplace_back(a, pr);
    }
  }
  double best = -1;
  if (table) {
    // The measured ones that apply; the table's runs decide (CalTable::choose).
    std::vector<std::pair<Algo, Proto>> measured;
    for (const auto& [a, pr] : cands) {
      if (applicable(coll, a, s) && (pr == Proto::Simple || ll_applicable(coll, a, s))) {
        measured.emplace_back(a, pr);
      }
    }
    const int i = table->choose(coll, measured, bytes, &best);
    if (i >= 0) {
      std::tie(p.algo, p.proto) = measured[size_t(i)];
    } else {
      best = -1;
    }
  } else {
    for (const auto& [a, pr] : cands) {
      const double t = predict(coll, a, p.sub, s, bytes, p.nch, p.chunk, pr);
      if (t >= 0 && (best < 0 || t < best)) {
        best = t;
        p.algo = a;
        p.proto = pr;
      }
    }
  }
  if (table && best < 0) {  // the table lacks what the overrides force: the model decides
    Overrides model = o;
    model.use_calibration = false;
    return make_plan(coll, s, bytes, model, nullptr);
  }
  p.measured = table != nullptr;
  p.forced = want != Algo::Auto;
  p.proto_forced = o.proto != Proto::Auto && p.proto == o.proto;
  p.predicted_us = best;
  if (p.proto == Proto::LL) p.nch = 1;  // the rounds of a call follow one another
  return p;
}

// ---- gshmem-info --plan ------------------------------------------------------------------------

namespace {

std::string human(uint64_t b) {
  char buf[32];
  if (b >= (1ull << 30) && b % (1ull << 30) == 0) {
    std::snprintf(buf, sizeof buf, "%lluG", (unsigned long long)(b >> 30));
  } else if (b >= (1ull << 20) && b % (1ull << 20) == 0) {
    std::snprintf(buf, sizeof buf, "%lluM", (unsigned long long)(b >> 20));
  } else if (b >= 1024 && b % 1024 == 0) {
    std::snprintf(buf, sizeof buf, "%lluK", (unsigned long long)(b >> 10));
  } else {
    std::snprintf(buf, sizeof buf, "%llu", (unsigned long long)b);
  }
  return buf;
}

double bus_factor(Coll c, int n) {
  switch (c) {
    case Coll::AllReduce:
      return 2.0 * (n - 1) / n;
    case Coll::AllGather:
    case Coll::ReduceScatter:
    case Coll::AllToAll:
      return double(n - 1) / n;
    default:
      return 1;
  }
}

}  // namespace

int print_plan(std::string_view spec, FILE* out) {
  TeamShape s;
  int nodes = 1, ppn = 0, n = 0;
  bool gpu_set = false;
  std::vector<Coll> colls;
  uint64_t lo = 8, hi = 1ull << 30, factor = 2;
  Overrides o;
  bool have_inter = false;
  auto bad = [&](const std::string& why) {
    std::fprintf(stderr,
                 "gshmem-info --plan: %s\n"
                 "  SPEC is key=value,...: nodes=N ppn=K (or n=PES) intra=host|nvlink|pcie "
                 "inter=tcp|efa gpu=0|1 oversubscribed=0|1\n"
                 "  op=allreduce|reduce|allgather|reducescatter|broadcast|alltoall|all "
                 "sizes=MIN-MAX factor=F algo=NAME proto=auto|simple|ll nchannels=C "
                 "chunk=BYTES\n",
                 why.c_str());
    return 2;
  };
  std::string_view item;
  while (next_list_item(&spec, &item)) {
    size_t eq = item.find('=');
    if (eq == std::string_view::npos) return bad("'" + std::string(item) + "' is not key=value");
    std::string key(item.substr(0, eq)), val(item.substr(eq + 1));
    uint64_t num = 0;
    bool is_num = Env::parse_size(val, &num);
    if (key == "nodes" && is_num && num >= 1) {
      nodes = int(num);
    } else if (key == "ppn" && is_num && num >= 1) {
      ppn = int(num);
    } else if (key == "n" && is_num && num >= 1) {
      n = int(num);
    } else if (key == "intra") {
      if (!parse_link_class(val, &s.intra)) return bad("unknown link class '" + val + "'");
    } else if (key == "inter") {
      if (!parse_link_class(val, &s.inter)) return bad("unknown link class '" + val + "'");
      have_inter = true;
    } else if (key == "oversubscribed" && is_num) {
      s.oversubscribed = num != 0;
    } else if (key == "gpu" && is_num) {
      s.gpu = num != 0;
      gpu_set = true;
    } else if (key == "op") {
      Coll c;
      if (val == "all") {
        for (int i = 0; i < kNumColls; ++i) colls.push_back(Coll(i));
      } else if (parse_coll(val, &c)) {
        colls.push_back(c);
      } else {
        return bad("unknown collective '" + val + "'");
      }
    } else if (key == "sizes") {
      size_t dash = val.find('-');
      if (dash == std::string::npos || !Env::parse_size(val.substr(0, dash), &lo) ||
          !Env::parse_size(val.substr(dash + 1), &hi) || lo == 0 || lo > hi) {
        return bad("sizes must be MIN-MAX, e.g. 8-1G");
      }
    } else if (key == "factor" && is_num && num >= 2) {
      factor = num;
    } else if (key == "algo") {
      std::string why;
      if (!parse_algo_setting(val, &o, &why)) return bad(why);
    } else if (key == "proto") {
      if (!parse_proto(val, &o.proto)) return bad("unknown protocol '" + val + "'");
    } else if (key == "nchannels" && is_num) {
      o.nch = int(num);
    } else if (key == "chunk" && is_num) {
      o.chunk = num;
    } else {
      return bad("bad item '" + std::string(item) + "'");
    }
  }
  if (colls.empty()) colls.push_back(Coll::AllReduce);
  if (n == 0) n = nodes * (ppn ? ppn : 1);
  if (ppn == 0) ppn = n / nodes;
  if (ppn * nodes != n) return bad("n must be nodes x ppn");
  s.n = n;
  s.nodes = nodes;
  s.ppn = ppn;
  if (!gpu_set) s.gpu = s.intra == LinkClass::NvLink || s.intra == LinkClass::Pcie;
  if (!have_inter && s.gpu) s.inter = LinkClass::Efa;

  // Outside a job nothing installed a calibration: read this host's and build's file here.
  std::string cal_why;
  if (!installed_calibration() && Env::get().str("GSHMEM_CALIBRATION") != "off") {
    install_calibration(load_calibration(calibration_path(), &cal_why));
  }
  if (Env::get().str("GSHMEM_CALIBRATION") == "off") o.use_calibration = false;
  const Calibration* cal = o.use_calibration ? installed_calibration() : nullptr;
  const CalTable* table = cal ? cal->table(s) : nullptr;
  std::fprintf(out, "Planner: %d node(s) x %d PE(s) = %d PEs, %s PEs%s\n", nodes, ppn, n,
               s.gpu ? "GPU" : "CPU", s.oversubscribed ? ", more busy threads than cores" : "");
  if (cal) {
    std::fprintf(out, "  calibration: %s\n", cal->origin.c_str());
  } else {
    std::fprintf(out, "  calibration: none (%s); the model's constants\n",
                 !cal_why.empty()                                ? cal_why.c_str()
                 : Env::get().str("GSHMEM_CALIBRATION") == "off" ? "GSHMEM_CALIBRATION=off"
                 : calibration_path().empty()                    ? "no cache directory"
                                              : "gshmem-info --calibrate writes one");
  }
  auto print_link = [&](const char* where, LinkClass c) {
    const LinkCost& k = o.use_calibration ? link_cost(c) : default_link_cost(c);
    const CalLink* fitted = cal ? cal->link(c) : nullptr;
    std::fprintf(out, "  %s %-6s alpha %.3g us, %.3g GB/s per PE (%s)\n", where, k.name, k.alpha_us,
                 k.gbps, fitted ? "fitted to the measurements" : "the model's constant");
  };
  print_link("inside a node:", s.intra);
  if (nodes > 1) print_link("across nodes: ", s.inter);
  std::fprintf(out, "  choices: %s\n",
               table ? "measured on this shape (the table's times, interpolated)"
                     : "the model's predictions");
  if (table && table->runs > 1) {
    std::fprintf(out,
                 "  runs: %d calibration jobs; the choice loses least (the mean over them, "
                 "each counted at most %gx) against each job's fastest; times are their mean "
                 "(each job's at most %gx its fastest)\n",
                 table->runs, kLossCap, kLossCap);
  }
  for (Coll c : colls) {
    const bool measured = table && table->covers(c);
    const char* how = measured ? "measured" : "predicted";
    std::fprintf(out,
                 "\n# %s (size: bytes per PE as nccl-tests counts them; time and busbw as "
                 "%s; other columns: %s us of each algorithm, simple protocol, and of direct "
                 "with ll where it applies)\n",
                 coll_name(c), how, how);
    // A candidate's time as the plan saw it: the table's, or the model's.
    uint64_t b_now = 0;
    auto time_of = [&](Algo a, Proto pr, const Plan& p) {
      if (measured) return table->mean_us(c, a, pr, b_now);
      return predict(c, a, p.sub, s, b_now, pr == Proto::LL ? 1 : p.nch, p.chunk, pr);
    };
    std::fprintf(out, "%10s  %-9s %-6s %3s %7s %12s %10s |", "size", "algorithm", "proto", "ch",
                 "chunk", "time(us)", "busbw");
    std::vector<Algo> cands;
    for (int i = 1; i < kNumAlgos; ++i) {
      if (applicable(c, Algo(i), s) && !duplicate_schedule(c, Algo(i), s)) cands.push_back(Algo(i));
    }
    const bool ll = ll_applicable(c, Algo::Direct, s);
    for (Algo a : cands) std::fprintf(out, " %10s", algo_name(a));
    if (ll) std::fprintf(out, " %10s", "direct/ll");
    std::fprintf(out, "\n");
    for (uint64_t b = lo; b <= hi; b *= factor) {
      Plan p = make_plan(c, s, b, o);
      double bw = p.predicted_us > 0 ? double(b) / (p.predicted_us * 1e3) * bus_factor(c, n) : 0;
      std::string alg = algo_name(p.algo);
      if (p.algo == Algo::Hier) alg += std::string("+") + algo_name(p.sub);
      std::fprintf(out, "%10s  %-9s %-6s %3d %7s %12.2f %10.2f |", human(b).c_str(), alg.c_str(),
                   proto_name(p.proto), p.nch, human(p.chunk).c_str(), p.predicted_us, bw);
      b_now = b;
      for (Algo a : cands) std::fprintf(out, " %10.2f", time_of(a, Proto::Simple, p));
      if (ll) std::fprintf(out, " %10.2f", time_of(Algo::Direct, Proto::LL, p));
      std::fprintf(out, "\n");
      if (b > hi / factor) break;
    }
  }
  return 0;
}

}  // namespace gshmem::coll
