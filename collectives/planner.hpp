// The planner: picks algorithm, protocol, channel count and chunk size for a collective from its
// size, the team's shape and the classes of the links between its PEs, with an alpha-beta cost
// model whose constants are one table (kLinkCosts in planner.cpp), or with what this machine
// measured (collectives/calibration.hpp). GSHMEM_ALGO, GSHMEM_PROTO,
// GSHMEM_NCHANNELS and GSHMEM_CHUNK_SIZE override it. Pure functions of their arguments and of the
// calibration every PE received from PE 0 at init: every PE of a team makes the same plan, and
// gshmem-info --plan can show plans for shapes that do not exist here.
#pragma once

#include <cstdint>
#include <cstdio>
#include <string>
#include <string_view>

#include "gshmem/coll/workspace.cuh"

namespace gshmem::coll {

enum class LinkClass : uint8_t { HostMemory, NvLink, Pcie, Tcp, Efa };

struct LinkCost {
  const char* name;
  double alpha_us;    // one synchronised step between two PEs (signal seen, data usable)
  double gbps;        // bytes per PE per second, in GB/s (1e9)
  bool memory_bound;  // CPU PEs: copies and reductions cost as much as the transfers themselves
  const char* source;
};

// The costs the model uses for c: a ScopedLinkCost of this thread, else the installed calibration's
// fit (collectives/calibration.hpp), else the constants.
const LinkCost& link_cost(LinkClass c);
// The constants alone.
const LinkCost& default_link_cost(LinkClass c);
bool parse_link_class(std::string_view text, LinkClass* out);
inline constexpr int kNumLinkClasses = 5;

// Replaces one class's costs for this thread while it lives (the calibration's fit tries many).
class ScopedLinkCost {
 public:
  ScopedLinkCost(LinkClass c, const LinkCost& k);
  ~ScopedLinkCost();
  ScopedLinkCost(const ScopedLinkCost&) = delete;
  ScopedLinkCost& operator=(const ScopedLinkCost&) = delete;

 private:
  LinkClass cls_;
  LinkCost cost_;
  const LinkCost* saved_;
};

// A team as the planner sees it. Nodes are groups of PEs that map each other's memory.
struct TeamShape {
  int n = 1;
  int nodes = 1;
  int ppn = 0;  // members per node when every node holds the same number, contiguous in team
                // order (what Hier needs); 0 otherwise
  LinkClass intra = LinkClass::HostMemory;
  LinkClass inter = LinkClass::Tcp;
  bool gpu = false;             // a channel is a thread block; CPU PEs run one channel at a time
  bool oversubscribed = false;  // more CPU PEs than cores on a node: every wait is a context switch
};

struct Plan {
  Algo algo = Algo::Auto;
  Algo sub = Algo::Ring;  // Hier's cross-node algorithm
  Proto proto = Proto::Simple;
  int nch = 1;
  uint64_t chunk = 0;
  double predicted_us = 0;
  bool measured = false;      // chosen by this machine's measured times (a calibration table)
  bool forced = false;        // GSHMEM_ALGO (or a test override) chose the algorithm
  bool proto_forced = false;  // GSHMEM_PROTO (or a test override) chose the protocol
};

// What live choices (adapt.hpp, GSHMEM_ADAPT) may switch a call to: nothing; only algorithms that
// give the same result bit for bit; any algorithm the plan could have chosen.
enum class Adapt : uint8_t { Off, SameBits, Any };

// What the environment (or a test) imposes. Auto / 0: the planner decides.
struct Overrides {
  Algo algo[kNumColls] = {};
  Proto proto = Proto::Auto;
  int nch = 0;
  uint64_t chunk = 0;
  bool use_calibration = true;  // false: the model with the constants (what they would choose;
                                // a ScopedLinkCost of this thread still applies)
  Adapt adapt = Adapt::Any;
  bool probe = false;  // GSHMEM_ADAPT_PROBE: live choices run every candidate once first
};

const char* algo_name(Algo a);
const char* coll_name(Coll c);
const char* proto_name(Proto p);
bool parse_proto(std::string_view text, Proto* out);
bool parse_algo(std::string_view text, Algo* out);
bool parse_coll(std::string_view text, Coll* out);

// The next non-empty item of a comma-separated list (removed from *list); false at its end. The
// one splitter of GSHMEM_ALGO, --plan and --calibrate SPECs.
bool next_list_item(std::string_view* list, std::string_view* item);

// Parses GSHMEM_ALGO ("ring", or "allreduce:tree,broadcast:direct"); false (with *why set) when
// malformed.
bool parse_algo_setting(std::string_view text, Overrides* o, std::string* why);

// Whether algo can run coll on the shape.
bool applicable(Coll coll, Algo algo, const TeamShape& s);
// Whether algo runs coll on the shape with another candidate's schedule (a tree of two PEs is one
// edge: its broadcast and reduce are the ring's, the same chunks over the same link). The planner,
// the calibration and the live choices offer the other one alone; forcing algo still runs it.
bool duplicate_schedule(Coll coll, Algo algo, const TeamShape& s);
// Whether the LL protocol can carry coll with algo on the shape: the direct algorithm, one node,
// at most kLLMaxMembers PEs.
bool ll_applicable(Coll coll, Algo algo, const TeamShape& s);

// Predicted microseconds for `bytes` (the nccl-tests size: the larger of the send and receive
// buffers of one PE), with nch channels and chunks of `chunk` bytes, by the simple protocol or
// (proto LL, where ll_applicable) the low-latency one.
double predict(Coll coll, Algo algo, Algo sub, const TeamShape& s, uint64_t bytes, int nch,
               uint64_t chunk, Proto proto = Proto::Simple);

// The plan: the candidate with the least measured time where the installed calibration has a
// table for the shape and collective (Plan::measured), else the least predicted time. Overrides
// that do not apply (an algorithm this collective or shape lacks) are
// ignored; `note`, when given, says so.
Plan make_plan(Coll coll, const TeamShape& s, uint64_t bytes, const Overrides& o,
               std::string* note = nullptr);

// gshmem-info --plan SPEC: prints the plans for a described shape, e.g.
//   nodes=16,ppn=8,intra=nvlink,inter=efa,op=allreduce,sizes=8-1G
// Returns 0, or 2 (after printing why) on a bad SPEC.
int print_plan(std::string_view spec, FILE* out);

}  // namespace gshmem::coll
