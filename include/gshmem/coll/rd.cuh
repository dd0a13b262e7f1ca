// Recursive doubling AllReduce over push links: log2(n) exchange rounds, each with the partner
// whose index differs in one bit; the lowest latency for small messages on any link. When n is
// not a power of two, the n - n' members above the largest power of two n' first hand their data
// to member (i - n') and get the result back at the end.
//
// In every exchange both partners compute lower op upper, so all PEs end with the same bits.
// Called by the whole group G of every member of P, with the same arguments.
#pragma once

#include "gshmem/coll/ring.cuh"

namespace gshmem::coll {

struct RdShape {
  int pow2;  // n': the largest power of two <= n
  int log2;
  int nin;  // receive regions: 0 for the fold, 1 + k for round k
};

GSHMEM_HD GSHMEM_INLINE RdShape rd_shape(int n) {
  RdShape s{1, 0, 1};
  while (s.pow2 * 2 <= n) {
    s.pow2 *= 2;
    ++s.log2;
  }
  s.nin = 1 + s.log2;
  return s;
}

// The links of one PE, continued across calls of rd_allreduce_range within a collective. Round
// k's links go both ways to the partner me ^ 2^k (receive region 1 + k at either end), and every
// round makes one step per chunk on both, so all of them share one step count and one granted
// total, and each is made when used (rd_round): an array of links indexed by the round would live
// in a kernel's local memory.
struct RdLinks {
  Link fold_send, fold_recv;  // helper <-> main
  uint32_t step;              // steps made on every round link, each way
  uint32_t total;             // steps granted on the inbound round links
};

GSHMEM_HD inline RdLinks rd_links(const Peers& P, const RdShape& s) {
  RdLinks k{};
  const int me = P.me;
  if (me >= s.pow2) {
    k.fold_send = make_link(P.member(me - s.pow2), 0, 0);
    k.fold_recv = make_link(P.member(me - s.pow2), 0, 0);
    return k;
  }
  if (me + s.pow2 < P.n) {
    k.fold_send = make_link(P.member(me + s.pow2), 0, 0);
    k.fold_recv = make_link(P.member(me + s.pow2), 0, 0);
  }
  return k;
}

// Round r's link (either way: the same peer, region and count). A send or a release advances the
// copy only; the caller advances k.step once per chunk, after every round.
GSHMEM_HD GSHMEM_INLINE Link rd_round(const Peers& P, const RdLinks& k, int r) {
  return {P.member(P.me ^ (1 << r)), 1 + r, k.step, k.total};
}

// Grants the inbound links `steps` more steps (one per chunk).
template <class G>
GSHMEM_HD void rd_grant(const Workspace& ws, const Peers& P, const RdShape& s, int ch, RdLinks& k,
                        uint64_t steps) {
  const bool has_fold = P.me >= s.pow2 || P.me + s.pow2 < P.n;
  if (has_fold) detail::recv_grant<G>(ws, ch, k.fold_recv, k.fold_recv.step + steps);
  if (P.me >= s.pow2) return;
  k.total = uint32_t(k.step + steps);
  for (int r = 0; r < s.log2; ++r) {
    Link in = rd_round(P, k, r);
    detail::recv_grant<G>(ws, ch, in, k.total);
  }
}

// AllReduce of elements [lo, hi) of src into dst, chunks of E; one step per chunk on each link.
template <class G, class R>
GSHMEM_HD void rd_allreduce_range(const Workspace& ws, const Peers& P, const PushLayout& L, int ch,
                                  const RdShape& s, RdLinks& k, const R& r, const char* src,
                                  char* dst, uint64_t lo, uint64_t hi, uint64_t E) {
  using namespace detail;
  const size_t es = r.esize();
  const int me = P.me;
  for (uint64_t base = lo; base < hi; base += E) {
    const uint64_t m = hi - base < E ? hi - base : E;
    char* acc = dst + base * es;
    if (me >= s.pow2) {  // a helper: hand over, get the result back
      send<G>(ws, L, ch, k.fold_send, src + base * es, m * es);
      copy<G>(acc, recv_wait<G>(ws, L, ch, k.fold_recv), m * es);
      recv_release<G>(ws, ch, k.fold_recv);
      continue;
    }
    const bool helped = me + s.pow2 < P.n;
    if (helped) {
      reduce2<G>(r, acc, src + base * es, recv_wait<G>(ws, L, ch, k.fold_recv), m);
      recv_release<G>(ws, ch, k.fold_recv);
    } else {
      copy<G>(acc, src + base * es, m * es);
    }
    for (int rd = 0; rd < s.log2; ++rd) {
      Link out = rd_round(P, k, rd), in = out;
      send<G>(ws, L, ch, out, acc, m * es);
      const char* theirs = recv_wait<G>(ws, L, ch, in);
      if (me < (me ^ (1 << rd))) {
        reduce2<G>(r, acc, acc, theirs, m);
      } else {
        reduce2<G>(r, acc, theirs, acc, m);
      }
      recv_release<G>(ws, ch, in);
    }
    ++k.step;
    if (helped) send<G>(ws, L, ch, k.fold_send, acc, m * es);
  }
}

template <class G, class R>
GSHMEM_HD void rd_allreduce(const Workspace& ws, const Peers& P, const R& r, int ch,
                            const CallArgs& a) {
  const size_t es = r.esize();
  const Range cr = split(a.count, ws.nch, ch);
  const RdShape s = rd_shape(P.n);
  const PushLayout L = push_layout(ws, s.nin);
  const uint64_t E = chunk_elems(ws, L, es);
  RdLinks k = rd_links(P, s);
  detail::guard_all<G>(ws);
  rd_grant<G>(ws, P, s, ch, k, ceil_div(cr.size(), E));
  rd_allreduce_range<G>(ws, P, L, ch, s, k, r, static_cast<const char*>(a.src),
                        static_cast<char*>(a.dst), cr.lo, cr.hi, E);
}

// ---- AllGather and ReduceScatter: the dissemination (Bruck) schedule ---------------------------
//
// ceil(log2 n) rounds for any n, where a ring takes n - 1 steps; the same bytes on the wire. A
// PE's *window* position p names block (me + p) mod n.
//
// AllGather, round k = 0, 1, ... (d = 2^k, c = min(d, n - d)): a PE holds window positions
// [0, d); it sends positions [0, c) to member me - d and receives member me + d's positions
// [0, c), which are its own positions [d, d + c). Blocks land in dst at their final places.
//
// ReduceScatter is the same schedule reversed (k from the top down): a PE holds partial sums for
// positions [0, d + c); it sends positions [d, d + c) to member me + d and adds what member
// me - d sends into its positions [0, c). After the last round position 0, block `me`, holds
// every member's contribution. Partials of positions other than 0 live in this PE's own pool.
//
// Each channel takes a column range of every block; a step carries c pieces of m elements.
// Region `rounds` of the push layout is this PE's staging for packing a step it puts over the
// network; regions rounds + 1 and rounds + 2 hold ReduceScatter's partials.

struct BruckShape {
  int rounds;
  int widest;  // the most blocks a step carries
  PushLayout L;
  uint64_t m;  // elements of each block per step; 0: the pool is too small for n blocks a step
  // Whether the schedule runs: n > 1 and a step fits the pool. Otherwise the ring runs instead
  // (every member decides the same).
  GSHMEM_HD GSHMEM_INLINE bool runs(int n) const { return n > 1 && m > 0; }
};

GSHMEM_HD GSHMEM_INLINE int bruck_blocks(int n, int k) {
  const int d = 1 << k;
  return d < n - d ? d : n - d;
}

GSHMEM_HD inline BruckShape bruck_shape(const Workspace& ws, int n, size_t es) {
  BruckShape b{0, 0, {}, 0};
  while ((1 << b.rounds) < n) {
    const int c = bruck_blocks(n, b.rounds++);
    if (c > b.widest) b.widest = c;
  }
  b.L = push_layout(ws, b.rounds + 3);
  const uint64_t per_step = chunk_elems(ws, b.L, es) / uint64_t(b.widest ? b.widest : 1);
  const uint64_t partials = 4 * b.L.slot_bytes / es / uint64_t(n > 1 ? n - 1 : 1);
  b.m = per_step < partials ? per_step : partials;
  return b;
}

namespace detail {

// This PE's own region `in` of channel ch (never written by peers).
GSHMEM_HD GSHMEM_INLINE char* own_region(const Workspace& ws, const PushLayout& L, int ch, int in) {
  return ws.c.heap.base + slot_off(L, ch, in, 0);
}

// Sends c pieces of `bytes` each, piece(j) being where piece j is, as one step: packed straight
// into a mapped peer's slot, else sent from where they are when they lie back to back, else
// packed into `staging` first.
template <class G, class Piece>
GSHMEM_HD void send_pieces(const Workspace& ws, const PushLayout& L, int ch, Link& l, char* staging,
                           int c, uint64_t bytes, Piece&& piece) {
  char* out = send_begin<G>(ws, L, ch, l);
  if (!out) {
    bool adjacent = true;
    for (int j = 1; j < c && adjacent; ++j) adjacent = piece(j) == piece(0) + uint64_t(j) * bytes;
    if (adjacent) return send_end<G>(ws, L, ch, l, piece(0), uint64_t(c) * bytes);
  }
  for (int j = 0; j < c; ++j) {
    if (out) {
      push<G>(out + uint64_t(j) * bytes, piece(j), bytes);
    } else {
      copy<G>(staging + uint64_t(j) * bytes, piece(j), bytes);
    }
  }
  send_end<G>(ws, L, ch, l, out ? nullptr : staging, uint64_t(c) * bytes);
}

}  // namespace detail

// The links of one channel of a Bruck schedule: round k sends to member me + dir * 2^k and
// receives from me - dir * 2^k (region k at the receiving end), `total` steps each way, the
// inbound ones granted. Every round makes one step per chunk, so the links share one step count
// and each is made when used (send_link, recv_link), as RdLinks' are.
struct BruckLinks {
  int32_t dir;
  uint32_t step;  // advanced once per chunk, after every round
  uint32_t total;
  GSHMEM_HD GSHMEM_INLINE Link send_link(const Peers& P, int k) const {
    return {P.member(detail::wrap(P.me + dir * (1 << k), P.n)), k, step, total};
  }
  GSHMEM_HD GSHMEM_INLINE Link recv_link(const Peers& P, int k) const {
    return {P.member(detail::wrap(P.me - dir * (1 << k), P.n)), k, step, total};
  }
};

template <class G>
GSHMEM_HD BruckLinks bruck_links(const Workspace& ws, const Peers& P, const BruckShape& b, int ch,
                                 int dir, uint64_t steps) {
  BruckLinks l{dir, 0, 0};
  detail::guard_all<G>(ws);
  for (int k = 0; k < b.rounds; ++k) {
    Link in = l.recv_link(P, k);
    detail::recv_grant<G>(ws, ch, in, steps);
  }
  l.total = uint32_t(steps);
  return l;
}

// AllGather: block j of dst (at j * a.count) gets member j's src.
template <class G>
GSHMEM_HD void bruck_allgather(const Workspace& ws, const Peers& P, size_t es, int ch,
                               const CallArgs& a) {
  using namespace detail;
  const int n = P.n, me = P.me;
  const Range cr = split(a.count, ws.nch, ch);
  const char* src = static_cast<const char*>(a.src);
  char* dst = static_cast<char*>(a.dst);
  auto at = [&](int p, uint64_t i) { return dst + (uint64_t(wrap(me + p, n)) * a.count + i) * es; };
  const BruckShape b = bruck_shape(ws, n, es);
  if (!b.runs(n)) return ring_allgather<G>(ws, P, es, ch, a);
  BruckLinks l = bruck_links<G>(ws, P, b, ch, -1, ceil_div(cr.size(), b.m));
  char* staging = own_region(ws, b.L, ch, b.rounds);
  for (uint64_t base = cr.lo; base < cr.hi; base += b.m) {
    const uint64_t m = cr.hi - base < b.m ? cr.hi - base : b.m;
    const uint64_t bytes = m * es;
    copy<G>(at(0, base), src + base * es, bytes);
    for (int k = 0; k < b.rounds; ++k) {
      const int d = 1 << k, c = bruck_blocks(n, k);
      Link out = l.send_link(P, k), from = l.recv_link(P, k);
      send_pieces<G>(ws, b.L, ch, out, staging, c, bytes, [&](int j) { return at(j, base); });
      const char* in = recv_wait<G>(ws, b.L, ch, from);
      for (int j = 0; j < c; ++j) copy<G>(at(d + j, base), in + uint64_t(j) * bytes, bytes);
      recv_release<G>(ws, ch, from);
    }
    ++l.step;
  }
}

// ReduceScatter: src holds P.n blocks of a.count; block P.me, reduced, lands in dst.
template <class G, class R>
GSHMEM_HD void bruck_reducescatter(const Workspace& ws, const Peers& P, const R& r, int ch,
                                   const CallArgs& a) {
  using namespace detail;
  const size_t es = r.esize();
  const int n = P.n, me = P.me;
  const Range cr = split(a.count, ws.nch, ch);
  const char* src = static_cast<const char*>(a.src);
  char* dst = static_cast<char*>(a.dst);
  auto input = [&](int p, uint64_t i) {
    return src + (uint64_t(wrap(me + p, n)) * a.count + i) * es;
  };
  const BruckShape b = bruck_shape(ws, n, es);
  if (!b.runs(n)) return ring_reducescatter<G>(ws, P, r, ch, a);
  BruckLinks l = bruck_links<G>(ws, P, b, ch, 1, ceil_div(cr.size(), b.m));
  char* staging = own_region(ws, b.L, ch, b.rounds);
  char* partials = own_region(ws, b.L, ch, b.rounds + 1);
  for (uint64_t base = cr.lo; base < cr.hi; base += b.m) {
    const uint64_t m = cr.hi - base < b.m ? cr.hi - base : b.m;
    const uint64_t bytes = m * es;
    // Where position p's partial is written, and where its current value is before a round:
    // positions below `added` (the widest earlier round's blocks) hold a partial already.
    auto out = [&](int p) { return p == 0 ? dst + base * es : partials + uint64_t(p - 1) * bytes; };
    int added = 0;
    auto current = [&](int p) -> const char* { return p < added ? out(p) : input(p, base); };
    for (int k = b.rounds - 1; k >= 0; --k) {
      const int d = 1 << k, c = bruck_blocks(n, k);
      Link to = l.send_link(P, k), from = l.recv_link(P, k);
      send_pieces<G>(ws, b.L, ch, to, staging, c, bytes, [&](int j) { return current(d + j); });
      const char* in = recv_wait<G>(ws, b.L, ch, from);
      for (int j = 0; j < c; ++j) reduce2<G>(r, out(j), current(j), in + uint64_t(j) * bytes, m);
      recv_release<G>(ws, ch, from);
      if (c > added) added = c;
    }
    ++l.step;
  }
}

}  // namespace gshmem::coll
