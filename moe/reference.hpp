// The plain MoE reference: given every member's inputs (gathered, or regenerated from a shared
// seed), route on the host with nested loops and say what dispatch and combine must produce. It
// shares no code with the exchange (only the fp32 <-> bf16/fp16 conversions), and needs no gshmem
// runtime, so the MPI baseline checks its results with it too.
//
// Also here: synthetic workloads whose tokens carry their origin (so a wrong arrival can be
// named), and the stand-in "expert" the tests and benchmarks apply between dispatch and combine.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "gshmem/moe.hpp"

namespace gshmem::moe::reference {

// One member's inputs to dispatch and combine. Members of a DP group hold the same ones.
struct Inputs {
  int32_t tokens = 0;
  std::vector<uint8_t> x;        // [tokens][hidden] dispatch_type
  std::vector<float> scales;     // [tokens][scales_per_token]
  std::vector<int32_t> indices;  // [tokens][topk], -1: unused slot
  std::vector<float> weights;    // [tokens][topk]
};

// Where a row of an expert came from: the sending member (team index), its token, the slot.
struct Origin {
  int32_t member;
  int32_t token;
  int32_t slot;
};

// The rows each local expert of member `me` receives, in dispatch's documented order (sending
// member, token, slot). all[s] are member s's inputs.
std::vector<std::vector<Origin>> dispatch(const Config& cfg, int n, const std::vector<Inputs>& all,
                                          int me);

// An expert's output row (combine_type, hidden values) for the row that came from `origin`.
using ExpertOutput = std::function<const void*(int32_t expert, const Origin& origin)>;

// What combine must give member `me`: [tokens][hidden] combine_type, each token's weighted sum
// of its slots' outputs accumulated in fp32 in slot order.
std::vector<uint8_t> combine(const Config& cfg, int n, const std::vector<Inputs>& all, int me,
                             const ExpertOutput& y);

// ---- Checks (empty string: as expected; otherwise the first difference, named) -----------------

// Counts, then every row's values and scales, against dispatch().
std::string check_dispatch(const Config& cfg, int n, const std::vector<Inputs>& all, int me,
                           const ExpertBatch& got);
// Every value within a relative tolerance fitting combine_type's precision.
std::string check_combine(const Config& cfg, const void* got, const std::vector<uint8_t>& expected,
                          int32_t tokens);

// ---- Synthetic workloads ------------------------------------------------------------------------

enum class Routing {
  Uniform,  // top-k distinct experts drawn uniformly per token
  Skewed,   // every token to experts 0 .. k-1: all the load on the first experts
  Masked,   // uniform, with about a quarter of the slots -1
};

// Inputs of DP group `group` (the same for each of its members): `tokens` tokens (of max_tokens
// rows of storage) whose first values encode (group, token), random values, scales and weights,
// indices routed as `routing` says. A function of (cfg, seed, group, tokens, routing) only.
Inputs synthesize(const Config& cfg, int n, int group, int32_t tokens, Routing routing,
                  uint64_t seed);

// The inputs of every member of an n-member team, DP group g with tokens[g] tokens.
std::vector<Inputs> synthesize_all(const Config& cfg, int n, const std::vector<int32_t>& tokens,
                                   Routing routing, uint64_t seed);

// The (group, token) a row's first values encode; {-1, -1} when they do not decode.
std::pair<int32_t, int32_t> origin_of(const Config& cfg, const void* row);

// The stand-in expert: out = dequant(row) * (1 + (expert % 7) / 8) + (expert % 5) / 16, rounded to
// combine_type. `scales` may be null when the config has none.
void expert_output(const Config& cfg, int32_t expert, const void* row, const float* scales,
                   void* out);

// Applies expert_output to every row dispatch delivered: y shaped like batch.x in combine_type.
void run_experts(const Config& cfg, int me, const ExpertBatch& batch, void* y);

// combine() for the stand-in experts: what member `me` must get when every member applied
// run_experts between dispatch and combine.
std::vector<uint8_t> expected_combine(const Config& cfg, int n, const std::vector<Inputs>& all,
                                      int me);

}  // namespace gshmem::moe::reference
