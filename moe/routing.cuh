// Where every row goes: the routing tables of one call, built from this member's top-k indices
// and the count matrix every member receives.
//
// Every member sends its per-expert counts to every member, so each one holds the whole matrix
// cnt[s][x] (rows member s sends to expert x) and derives the same layout from it:
//   - local expert e of member r receives its rows ordered by source member, so member s's rows
//     start at row sum_{s' < s} cnt[s'][x]: a sender writes straight into place, and the order is
//     deterministic (source member, token, top-k slot);
//   - the outputs coming back to a DP group are ordered by (owner r, sending member g, local
//     expert e, token, slot), so what owner r returns to a group is one contiguous range;
//   - every member decides overflow from the same matrix, so all report the same one and none is
//     left waiting for tokens that were never sent.
//
// The steps are written for any thread group G; the table building here is done by the group's
// first thread (a GPU version would use a block-wide scan) and published with G::sync().
#pragma once

#include "gshmem/device/group.cuh"
#include "gshmem/device/wait_until.cuh"
#include "moe/plan.cuh"

namespace gshmem::moe::detail {

// The first slot (token * topk + slot) of `tokens` tokens whose index is neither an expert nor
// -1, or repeats an expert of an earlier slot of its token; -1 when all are good. Distinct
// experts per token are what bounds the worst case, so worst-case buffers cannot overflow.
GSHMEM_HD inline int32_t first_bad_slot(const int32_t* indices, int32_t tokens, int32_t topk,
                                        int32_t experts) {
  for (int32_t i = 0; i < tokens * topk; ++i) {
    const int32_t x = indices[i];
    if (x < -1 || x >= experts) return i;
    for (int32_t j = i - i % topk; j < i && x >= 0; ++j) {
      if (indices[j] == x) return i;
    }
  }
  return -1;
}

// Checks every index of the group (each member checks them all, so members of a DP group agree),
// then buckets this member's share of the tokens by expert (stable: by token, then slot), writes
// its count words and where its batch for each member starts in send_stage. *p.result: -1, or
// the first bad slot (first_bad_slot).
template <class G>
GSHMEM_HD void route(const Plan& p, const int32_t* indices, int32_t tokens, uint64_t epoch) {
  if (G::rank() == 0) {
    const int32_t bad = first_bad_slot(indices, tokens, p.topk, p.experts);
    if (bad < 0) {
      for (int32_t x = 0; x <= p.experts; ++x) p.bucket[x] = 0;
      for (int32_t i = 0; i < tokens * p.topk; ++i) {
        const int32_t x = indices[i];
        if (x >= 0 && p.sends(i / p.topk)) ++p.bucket[x + 1];
      }
      for (int32_t x = 0; x < p.experts; ++x) {
        p.counts_out[x] = count_word(epoch, p.bucket[x + 1]);
        p.bucket[x + 1] += p.bucket[x];
        p.scratch[x] = p.bucket[x];
      }
      for (int32_t i = 0; i < tokens * p.topk; ++i) {
        int32_t x = indices[i];
        if (x >= 0 && p.sends(i / p.topk)) p.order[p.scratch[x]++] = i / p.topk;
      }
      p.stage_off[0] = 0;
      for (int32_t r = 0; r < p.n; ++r) {
        const int32_t* b = p.bucket + r * p.local_experts;
        p.stage_off[r + 1] = p.stage_off[r] + b[p.local_experts] - b[0];
      }
    }
    *p.result = bad;
  }
  G::sync();
}

// Decodes the count words of every member (whose counts signal carried `epoch`) into cnt.
// *p.result: -1, or a member whose words are not this call's (a protocol error).
template <class G>
GSHMEM_HD void load_counts(const Plan& p, uint64_t epoch) {
  if (G::rank() == 0) {
    int32_t stale = -1;
    for (int32_t s = 0; s < p.n; ++s) {
      const uint64_t* in = p.counts_in + int64_t(s) * p.experts;
      for (int32_t x = 0; x < p.experts; ++x) {
        uint64_t w = in[x];
        if ((w >> 32) != (epoch & 0xffffffffu) || uint32_t(w) == 0) {
          stale = s;
          break;
        }
        p.cnt[s * p.experts + x] = int32_t(uint32_t(w) - 1u);
      }
      if (stale >= 0) break;
    }
    *p.result = stale;
  }
  G::sync();
}

// Rows for `factor` times an average load, at least 1 and at most `worst`. The product is rounded
// up after a relative 1e-9 is taken off, so the factor an overflow reports (rows needed / average)
// gives exactly the rows needed, not one more through rounding noise.
GSHMEM_HD GSHMEM_INLINE int64_t capacity_rows(double factor, double average, int64_t worst) {
  double rows = factor * average * (1 - 1e-9);
  int64_t r = int64_t(rows);
  if (double(r) < rows) ++r;
  return r < 1 ? 1 : r > worst ? worst : r;
}

// Average loads: what capacity_factor multiplies.
GSHMEM_HD GSHMEM_INLINE double average_expert_rows(const Plan& p) {
  return double(p.groups()) * p.max_tokens * p.topk / p.experts;
}
GSHMEM_HD GSHMEM_INLINE double average_pair_rows(const Plan& p) {
  return double(p.send_tokens) * p.topk / p.n;
}

// Checks every expert of every member, and every pair of members on different nodes, against the
// capacities. Returns the first overflow (kind NONE when the call fits); the same on every member.
GSHMEM_HD inline gshmem_moe_overflow_t find_overflow(const Plan& p) {
  gshmem_moe_overflow_t o{};
  o.kind = GSHMEM_MOE_OVERFLOW_NONE;
  int32_t worst_expert = 0, worst_pair = 0;
  for (int32_t x = 0; x < p.experts; ++x) {
    int32_t total = 0, crossing = -1;
    for (int32_t s = 0; s < p.n; ++s) {
      total += p.cnt[s * p.experts + x];
      if (crossing < 0 && total > p.capacity) crossing = s;
    }
    if (total > worst_expert) worst_expert = total;
    if (crossing >= 0 && o.kind == GSHMEM_MOE_OVERFLOW_NONE) {
      o = {GSHMEM_MOE_OVERFLOW_EXPERT, x, p.owner(x), crossing, total, p.capacity, 0};
    }
  }
  if (p.landing_rows > 0) {
    for (int32_t s = 0; s < p.n; ++s) {
      for (int32_t r = 0; r < p.n; ++r) {
        if (p.node[s] == p.node[r]) continue;
        int32_t rows = p.pair_rows[s * p.n + r];
        if (rows > worst_pair) worst_pair = rows;
        if (rows > p.landing_rows && o.kind == GSHMEM_MOE_OVERFLOW_NONE) {
          o = {GSHMEM_MOE_OVERFLOW_LANDING, -1, r, s, rows, p.landing_rows, 0};
        }
      }
    }
  }
  if (o.kind != GSHMEM_MOE_OVERFLOW_NONE) {
    // The factor that sizes both kinds of buffer for this call (see capacity_rows).
    double f = worst_expert / average_expert_rows(p);
    if (worst_pair > 0) {
      double fp = worst_pair / average_pair_rows(p);
      if (fp > f) f = fp;
    }
    o.min_capacity_factor = f;
  }
  return o;
}

// Builds the call's tables from the count matrix and checks capacities. *p.result: 1 when the
// call overflows (find_overflow says where), else 0.
template <class G>
GSHMEM_HD void plan_call(const Plan& p) {
  if (G::rank() == 0) {
    const int32_t n = p.n, E = p.experts, L = p.local_experts;
    for (int32_t s = 0; s < n; ++s) {
      for (int32_t r = 0; r < n; ++r) {
        int32_t rows = 0;
        for (int32_t e = 0; e < L; ++e) rows += p.cnt[s * E + r * L + e];
        p.pair_rows[s * n + r] = rows;
      }
    }
    // Receiving: each local expert's rows, by source member.
    for (int32_t e = 0; e < L; ++e) {
      int32_t row = 0;
      for (int32_t s = 0; s < n; ++s) {
        p.recv_off[e * n + s] = row;
        row += p.cnt[s * E + p.me * L + e];
      }
      p.expert_counts[e] = row;
    }
    // Sending: this member's place in every expert.
    for (int32_t x = 0; x < E; ++x) {
      int32_t row = 0;
      for (int32_t s = 0; s < p.me; ++s) row += p.cnt[s * E + x];
      p.send_off[x] = row;
    }
    // Returning outputs: to each group, after what owners before this member return to it.
    p.y_stage_off[0] = 0;
    for (int32_t g = 0; g < p.groups(); ++g) {
      int32_t row = 0;
      for (int32_t r = 0; r < p.me; ++r) {
        for (int32_t q = 0; q < p.dp; ++q) row += p.pair_rows[(g * p.dp + q) * n + r];
      }
      int32_t back = 0;
      for (int32_t q = 0; q < p.dp; ++q) {
        int32_t s = g * p.dp + q;
        for (int32_t e = 0; e < L; ++e) {
          p.ret_off[e * n + s] = row;
          row += p.cnt[s * E + p.me * L + e];
        }
        back += p.pair_rows[s * n + p.me];
      }
      p.y_stage_off[g + 1] = p.y_stage_off[g] + back;
    }
    *p.result = find_overflow(p).kind != GSHMEM_MOE_OVERFLOW_NONE;
  }
  G::sync();
}

// The row of y_in where each (token, slot) of this member's group gets its expert's output: the
// same ordering owners use in ret_off (owner, sending member, local expert, then the sender's own
// order: token, slot). For the pairs whose expert this member owns, also the row of its own
// expert outputs that send_outputs copies there (own_row), so combine can read them in place.
template <class G>
GSHMEM_HD void place_pairs(const Plan& p, const int32_t* indices, int32_t tokens) {
  if (G::rank() == 0) {
    const int32_t n = p.n, E = p.experts, L = p.local_experts, g0 = p.me - p.me % p.dp;
    int32_t* next = p.scratch;  // [dp][E]: the next row for sender g0+q's pairs of expert x
    int32_t row = 0;
    for (int32_t r = 0; r < p.n; ++r) {
      for (int32_t q = 0; q < p.dp; ++q) {
        for (int32_t e = 0; e < L; ++e) {
          next[q * E + r * L + e] = row;
          row += p.cnt[(g0 + q) * E + r * L + e];
        }
      }
    }
    for (int32_t i = 0; i < tokens * p.topk; ++i) {
      const int32_t x = indices[i], q = (i / p.topk) % p.dp;
      p.pos[i] = x < 0 ? -1 : next[q * E + x]++;
      p.own_row[i] = -1;
      if (x >= 0 && p.owner(x) == p.me) {
        // send_outputs copies (sender g0+q, local expert e) from recv_off to ret_off.
        const int32_t e = x - p.me * L, at = e * n + g0 + q;
        p.own_row[i] = e * p.capacity + p.recv_off[at] + (p.pos[i] - p.ret_off[at]);
      }
    }
  }
  G::sync();
}

}  // namespace gshmem::moe::detail
