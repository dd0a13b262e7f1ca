// The steps of one dispatch and one combine, in the order a member runs them, as one program for
// CPU PEs and kernels alike. moe/all_to_all.cpp runs each step by one group or by a group per
// peer: on CPU PEs with the calling thread (or host thread groups, set_host_groups), on a GPU heap
// as one kernel per step on the caller's stream (moe/moe_kernel.cu), a block per group.
//
// Nothing here throws or waits on the host: what a call needs from one step to the next lives in
// Ctl, in memory the steps run on (device memory for kernels), so a GPU dispatch needs no host
// synchronisation and a CUDA graph of it replays as new calls: begin_dispatch reads the token
// count where the caller keeps it and advances the epoch itself. A step that finds the call bad
// (bad input here or on a peer, an overflow) records a Failure, and every later step of that call
// does nothing; the host reports the failure as an Error (at once on CPU PEs, at the next
// host-visible point on a GPU heap: see Impl::raise_failure).
//
// Steps and who runs them (`block` of `blocks` groups; per-peer steps take peer peers[block]):
//   Begin       1 group    epoch + 1, token count, input checks, route
//   Counts      per peer   count words (abort bit when this member failed); worst-case sizing:
//                          the network batch too (it cannot overflow)
//   Plan        1 group    wait for every member's counts; load, plan, place, or record why not
//                          (then quiet and a team sync: nothing of the call stays in flight)
//   Tokens      per peer   the batches not sent yet
//   Recv        1 group    wait for every member's tokens, unpacking network landing zones
//   Outputs     per group  a block per DP group sends the outputs to its members
//   WaitOutputs 1 group    wait for every member's outputs
//   Sum         any        the weighted sums, tokens block, block + blocks, ...
#pragma once

#include "gshmem/device/barrier.cuh"
#include "gshmem/device/order.cuh"
#include "moe/exchange.cuh"
#include "moe/routing.cuh"
#include "moe/weighted_sum.cuh"

namespace gshmem::moe::detail {

enum class Step : int32_t { Begin, Counts, Plan, Tokens, Recv, Outputs, WaitOutputs, Sum };

// Why a call failed. a and b carry the values the message names.
enum class Fail : int32_t {
  None = 0,
  HostCheck,  // the host found an input the GPU cannot reach (its message is kept there)
  NullNumTokens,
  NumTokens,      // a: *num_tokens
  NullX,          // a: tokens
  NullIndices,    // a: tokens
  NullScales,     // a: tokens
  BadIndex,       // a: slot (token * topk + k), b: the index
  RepeatedIndex,  // a: slot, b: the index
  PeerInput,      // a: the member whose abort signal arrived
  StaleCounts,    // a: the member whose count words were not this call's
  Overflow,       // overflow: where
};

struct Failure {
  Fail kind;
  int32_t a, b;
  uint64_t epoch;  // the call's
  gshmem_moe_overflow_t overflow;
};

// The state one call passes from step to step.
struct Ctl {
  uint64_t epoch;   // the current call's (0 before the first)
  int32_t tokens;   // the current call's token count (0 when it was bad)
  int32_t failed;   // the current call failed: its later steps do nothing
  Failure now;      // why
  Failure* report;  // the first failure the host has not reported yet (kind None: none);
                    // memory the host reads (pinned host memory for kernels)
};

// Everything a step reads. The host builds one per call; kernels get it by value.
struct StepArgs {
  DeviceContext c;             // kernels: the kernel-usable context
  Plan p;                      //
  Ctl* ctl;                    //
  const int32_t* peers;        // [n] the order members send in: network peers first, then mapped
                               // ones, each starting after this member
  const int32_t* group_order;  // [n/dp] DP groups by their first member in `peers`
  gshmem_team_t team;
  int32_t early;     // worst-case buffers: network batches go with the counts
  int32_t host_bad;  // the host found this member's input bad (Fail::HostCheck)
  // dispatch
  const char* x;
  const float* scales;
  const int32_t* indices;
  const int32_t* num_tokens;
  // combine
  const char* y;    // expert outputs (combine_send's expert_y)
  const void* own;  // y, when this member's own outputs are summed where they are; or null
  const float* weights;
  void* out;
  gshmem_moe_dtype_t combine_type;
  float* acc;  // hidden floats of zeros per Sum group, left zeroed
};

template <class G>
GSHMEM_HD GSHMEM_INLINE void fail(const StepArgs& a, Fail kind, int32_t x = 0, int32_t y = 0) {
  Ctl& ctl = *a.ctl;
  if (G::rank() != 0 || ctl.failed) return;
  ctl.failed = 1;
  ctl.now = Failure{kind, x, y, ctl.epoch, {}};
  if (kind == Fail::Overflow) ctl.now.overflow = find_overflow(a.p);
}

// Called by every thread of the group after a step that may have failed.
template <class G>
GSHMEM_HD GSHMEM_INLINE bool failed(const StepArgs& a) {
  G::sync();
  return a.ctl->failed != 0;
}

template <class G>
GSHMEM_HD void begin_dispatch(const StepArgs& a) {
  const Plan& p = a.p;
  Ctl& ctl = *a.ctl;
  if (G::rank() == 0) {
    ctl.epoch += 1;
    ctl.failed = 0;
    ctl.tokens = 0;
    ctl.now = Failure{};
    const int32_t tokens = a.num_tokens && !a.host_bad ? *a.num_tokens : 0;
    if (a.host_bad) {
      fail<G>(a, Fail::HostCheck);
    } else if (!a.num_tokens) {
      fail<G>(a, Fail::NullNumTokens);
    } else if (tokens < 0 || tokens > p.max_tokens) {
      fail<G>(a, Fail::NumTokens, tokens);
    } else if (tokens > 0 && !a.x) {
      fail<G>(a, Fail::NullX, tokens);
    } else if (tokens > 0 && !a.indices) {
      fail<G>(a, Fail::NullIndices, tokens);
    } else if (tokens > 0 && p.n_scales && !a.scales) {
      fail<G>(a, Fail::NullScales, tokens);
    } else {
      ctl.tokens = tokens;
    }
  }
  if (failed<G>(a)) return;
  route<G>(p, a.indices, ctl.tokens, ctl.epoch);
  if (G::rank() == 0 && *p.result >= 0) {
    const int32_t slot = *p.result, x = a.indices[slot];
    fail<G>(a, x < -1 || x >= p.experts ? Fail::BadIndex : Fail::RepeatedIndex, slot, x);
  }
  G::sync();
}

template <class G>
GSHMEM_HD void send_counts_step(const StepArgs& a, int32_t r) {
  const Ctl& ctl = *a.ctl;
  const Site site{"gshmem_moe_dispatch_send"};
  send_counts<G>(a.c, a.p, ctl.failed ? ctl.epoch | kAbortBit : ctl.epoch, r, site);
  if (a.early && !ctl.failed && !mapped(a.c, a.p.pe(r))) {
    send_tokens<G>(a.c, a.p, ctl.epoch, r, a.x, a.scales, site);
  }
}

template <class G>
GSHMEM_HD void plan_dispatch(const StepArgs& a) {
  const Plan& p = a.p;
  Ctl& ctl = *a.ctl;
  const char* call = "gshmem_moe_dispatch_send";
  const int32_t aborted = for_each_arrival<G>(a.c, p, kCounts, ctl.epoch, call, [](int32_t) {});
  if (aborted >= 0) fail<G>(a, Fail::PeerInput, aborted);
  if (!failed<G>(a)) {
    load_counts<G>(p, ctl.epoch);
    if (*p.result >= 0) fail<G>(a, Fail::StaleCounts, *p.result);
  }
  if (!failed<G>(a)) {
    plan_call<G>(p);
    if (*p.result) fail<G>(a, Fail::Overflow);
  }
  if (!failed<G>(a)) {
    place_pairs<G>(p, a.indices, ctl.tokens);
    return;
  }
  // The batch of a failed call is empty: on a GPU heap the expert kernels enqueued after
  // dispatch_recv run anyway, and plan_call may have left counts past expert_capacity (an
  // overflow) or from the call before.
  for (int32_t e = G::rank(); e < p.local_experts; e += G::size()) p.expert_counts[e] = 0;
  // Nothing of this call may still be in flight or unread when any member starts the next one.
  if (G::rank() == 0 && a.ctl->report->kind == Fail::None) *a.ctl->report = ctl.now;
  quiet<G>(a.c);
  team_sync<G>(a.c, a.team, {call});
}

template <class G>
GSHMEM_HD void send_tokens_step(const StepArgs& a, int32_t r) {
  if (a.ctl->failed || (a.early && !mapped(a.c, a.p.pe(r)))) return;
  send_tokens<G>(a.c, a.p, a.ctl->epoch, r, a.x, a.scales, {"gshmem_moe_dispatch_send"});
}

template <class G>
GSHMEM_HD void recv_tokens(const StepArgs& a) {
  if (a.ctl->failed) return;
  const Plan& p = a.p;
  for_each_arrival<G>(a.c, p, kTokens, a.ctl->epoch, "gshmem_moe_dispatch_recv", [&](int32_t s) {
    if (!mapped(a.c, p.pe(s))) unpack_landing<G>(p, s);
  });
}

// Group `g` of the DP groups in group_order: its members get their outputs, in peers order. The
// members of a group share one gathered range of y_stage (send_outputs gathers it for the group's
// first network member and marks it staged), so one block serves the whole group.
template <class G>
GSHMEM_HD void send_outputs_step(const StepArgs& a, int32_t block) {
  if (a.ctl->failed) return;
  const Plan& p = a.p;
  const int32_t g = a.group_order[block];
  for (int32_t i = 0; i < p.n; ++i) {
    const int32_t m = a.peers[i];
    if (m / p.dp != g) continue;
    const char* y = a.own && m == p.me ? nullptr : a.y;
    send_outputs<G>(a.c, p, a.ctl->epoch, m, y, {"gshmem_moe_combine_send"});
  }
}

template <class G>
GSHMEM_HD void wait_outputs(const StepArgs& a) {
  if (a.ctl->failed) return;
  for_each_arrival<G>(a.c, a.p, kOutputs, a.ctl->epoch, "gshmem_moe_combine_recv", [](int32_t) {});
}

template <class G>
GSHMEM_HD void sum_step(const StepArgs& a, int32_t block, int32_t blocks) {
  if (a.ctl->failed) return;
  float* acc = a.acc + int64_t(block) * a.p.hidden;
  const int32_t tokens = a.ctl->tokens;
  switch (a.combine_type) {
    case GSHMEM_MOE_FLOAT32:
      return weighted_sum<G>(a.p, a.weights, static_cast<float*>(a.out), tokens, acc,
                             static_cast<const float*>(a.own), block, blocks);
    case GSHMEM_MOE_BFLOAT16:
      return weighted_sum<G>(a.p, a.weights, static_cast<coll::bfloat16_t*>(a.out), tokens, acc,
                             static_cast<const coll::bfloat16_t*>(a.own), block, blocks);
    default:
      return weighted_sum<G>(a.p, a.weights, static_cast<coll::half_t*>(a.out), tokens, acc,
                             static_cast<const coll::half_t*>(a.own), block, blocks);
  }
}

// Step S by the group G as group `block` of `blocks`.
template <Step S, class G>
GSHMEM_HD void run_step(const StepArgs& a, int32_t block, int32_t blocks) {
  if constexpr (S == Step::Begin) begin_dispatch<G>(a);
  if constexpr (S == Step::Counts) send_counts_step<G>(a, a.peers[block]);
  if constexpr (S == Step::Plan) plan_dispatch<G>(a);
  if constexpr (S == Step::Tokens) send_tokens_step<G>(a, a.peers[block]);
  if constexpr (S == Step::Recv) recv_tokens<G>(a);
  if constexpr (S == Step::Outputs) send_outputs_step<G>(a, block);
  if constexpr (S == Step::WaitOutputs) wait_outputs<G>(a);
  if constexpr (S == Step::Sum) sum_step<G>(a, block, blocks);
}

}  // namespace gshmem::moe::detail
