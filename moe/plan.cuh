// The state the MoE exchange steps run on: one trivially copyable value holding the shape of the
// exchange, the symmetric buffers, and the private routing tables of the current call. The host
// object (moe/all_to_all.cpp) builds it once; a kernel would get it by value.
//
// Buffer layout (symmetric: the same offsets on every PE; n = team size, E = experts,
// L = E / n local experts, C = rows per local expert, T = max tokens, S = ceil(T / dp)):
//   sig        [3][n] u64       per member: counts, tokens and outputs signals (the epoch)
//   counts_in  [n][E] u64       member s's per-expert counts, (epoch << 32) | (count + 1)
//   counts_out [E] u64          this member's counts, the source of the puts above
//   x          [L][C][x_bytes]  dispatch's output: each local expert's tokens from row 0
//   scales     [L][C][n_scales]
//   y_in       [T*topk][y_bytes] combine: the expert outputs of this member's (group's) tokens
//   landing    [n][R][row_bytes]  network sources' tokens (token values then scales), R rows
//   send_stage [S*topk][row_bytes] this member's tokens for network peers, packed per peer
//   y_stage    [..][y_bytes]      outputs for network peers, packed per destination group
// (the last three exist only when the team spans more than one node).
#pragma once

#include <type_traits>

#include "gshmem/device/context.cuh"
#include "gshmem/moe.h"

namespace gshmem::moe::detail {

// Signals per member, one word each: SET to the call's epoch by the member named by the index.
enum Phase : int { kCounts = 0, kTokens = 1, kOutputs = 2, kPhases = 3 };

// A counts signal with this bit set comes from a member whose dispatch input was bad: it sends
// no counts, and every member reports the call as failed instead of waiting for its tokens.
constexpr uint64_t kAbortBit = uint64_t(1) << 63;

// A count word: the low 32 bits of the epoch above count + 1, so a slot never written (0) or
// left from an earlier call (another epoch) cannot be taken for this call's count.
GSHMEM_HD GSHMEM_INLINE uint64_t count_word(uint64_t epoch, int32_t count) {
  return (epoch << 32) | uint64_t(uint32_t(count) + 1u);
}

struct Plan {
  // The shape: the same on every member.
  int32_t n;   // team size
  int32_t me;  // this PE's index in the team
  int32_t dp;  // data-parallel group size: members g*dp .. g*dp+dp-1 hold the same tokens
  int32_t experts, local_experts, topk;
  int32_t max_tokens;   // tokens of a member (of a DP group), at most
  int32_t send_tokens;  // tokens one member sends, at most: ceil(max_tokens / dp)
  int32_t hidden;
  uint32_t x_bytes;      // one token's values as dispatched
  uint32_t n_scales;     // fp32 scales per token
  uint32_t row_bytes;    // a token as it crosses the network: values, then scales
  uint32_t y_bytes;      // one expert output (and one combined token)
  int32_t capacity;      // rows per local expert
  int32_t landing_rows;  // rows per network source in a landing zone; 0: no network peers
  TeamInfo team;

  // Symmetric buffers (see the top of the file).
  uint64_t* sig;
  uint64_t* counts_in;
  uint64_t* counts_out;
  char* x;
  float* scales;
  char* y_in;
  char* landing;
  char* send_stage;
  char* y_stage;

  // Private tables, rebuilt by every dispatch from the count matrix (moe/routing.cuh).
  int32_t* cnt;            // [n][E] rows member s sends to expert x
  int32_t* pair_rows;      // [n][n] rows member s sends to member r
  int32_t* expert_counts;  // [L] rows each local expert receives
  int32_t* recv_off;       // [L][n] row of local expert e where member s's tokens start
  int32_t* ret_off;        // [L][n] row of y_in at s's DP group where s's outputs of e go
  int32_t* send_off;       // [E] row at the owner of expert x where this member's tokens start
  int32_t* stage_off;      // [n+1] row of send_stage where the tokens for member r start
  int32_t* y_stage_off;    // [n/dp+1] row of y_stage where the outputs for group g start
  int32_t* bucket;         // [E+1] this member's pairs for expert x: order[bucket[x]..bucket[x+1])
  int32_t* order;          // [S*topk] the token of each pair, by (expert, token, slot)
  int32_t* pos;            // [T*topk] row of y_in holding each pair's output; -1: unused slot
  int32_t* own_row;        // [T*topk] row of this member's expert outputs holding each pair's
                           // output when this member owns the pair's expert; else -1
  int32_t* scratch;        // [max(E, dp*E)] cursors
  int32_t* arrived;        // [n] per-member progress of the wait in for_each_arrival
  int32_t* staged;         // [n/dp] the epoch whose outputs y_stage holds, per group
  int32_t* result;         // [1] a leader's result, for every thread of the group
  const int32_t* node;     // [n] the node of each member: mapped to each other iff equal

  GSHMEM_HD GSHMEM_INLINE int32_t groups() const { return n / dp; }
  GSHMEM_HD GSHMEM_INLINE int32_t owner(int32_t expert) const { return expert / local_experts; }
  GSHMEM_HD GSHMEM_INLINE int32_t pe(int32_t member) const { return team.world_pe(member); }
  GSHMEM_HD GSHMEM_INLINE uint64_t* signal(Phase ph, int32_t member) const {
    return sig + ph * n + member;
  }
  // This member sends token t of its group when t % dp is its rank in the group.
  GSHMEM_HD GSHMEM_INLINE bool sends(int32_t t) const { return t % dp == me % dp; }
};
static_assert(std::is_trivially_copyable_v<Plan>);
static_assert(std::is_standard_layout_v<Plan>);

// Where a symmetric object lives on a mapped PE (the caller checked that it is mapped).
template <class T>
GSHMEM_HD GSHMEM_INLINE T* on_peer(const DeviceContext& c, T* local, int pe) {
  char* p = c.heap.peer_base[pe] + (reinterpret_cast<char*>(local) - c.heap.base);
  return reinterpret_cast<T*>(p);
}

GSHMEM_HD GSHMEM_INLINE bool mapped(const DeviceContext& c, int pe) {
  return c.heap.peer_base[pe] != nullptr;
}

}  // namespace gshmem::moe::detail
