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

// The links of one PE, continued across calls of rd_allreduce_range within a collective.
struct RdLinks {
  Link fold_send, fold_recv;  // helper <-> main
  Link send[16], recv[16];    // round k partner
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
  for (int r = 0; r < s.log2; ++r) {
    k.send[r] = make_link(P.member(me ^ (1 << r)), 1 + r, 0);
    k.recv[r] = make_link(P.member(me ^ (1 << r)), 1 + r, 0);
  }
  return k;
}

// Grants the inbound links `steps` more steps (one per chunk).
template <class G>
GSHMEM_HD void rd_grant(const Workspace& ws, const Peers& P, const RdShape& s, int ch, RdLinks& k,
                        uint64_t steps) {
  const bool has_fold = P.me >= s.pow2 || P.me + s.pow2 < P.n;
  if (has_fold) detail::recv_grant<G>(ws, ch, k.fold_recv, k.fold_recv.step + steps);
  if (P.me >= s.pow2) return;
  for (int r = 0; r < s.log2; ++r) detail::recv_grant<G>(ws, ch, k.recv[r], k.recv[r].step + steps);
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
      send<G>(ws, L, ch, k.send[rd], acc, m * es);
      const char* theirs = recv_wait<G>(ws, L, ch, k.recv[rd]);
      if (me < (me ^ (1 << rd))) {
        reduce2<G>(r, acc, acc, theirs, m);
      } else {
        reduce2<G>(r, acc, theirs, acc, m);
      }
      recv_release<G>(ws, ch, k.recv[rd]);
    }
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

}  // namespace gshmem::coll
