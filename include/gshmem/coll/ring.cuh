// Ring algorithms (and the pairwise AlltoAll) over push links: they work on any link, mapped or
// network. Data is cut into chunks; every step moves one chunk one hop, with kSlots chunks in
// flight per link. When the next PE is mapped, reductions write straight into its receive slot;
// otherwise they reduce in place in this PE's own slot and put from there.
//
// AllReduce is reduce-scatter then all-gather (2(n-1) steps per chunk round, as NCCL's ring);
// Broadcast and Reduce are chains from / towards the root.
//
// The *_range engines run a schedule on links that the caller set up and granted (so phases of a
// larger algorithm continue the same links); the plain functions do both for one channel.
// Called by the whole group G of every member of P, with the same arguments.
#pragma once

#include "gshmem/coll/workspace.cuh"

namespace gshmem::coll {

namespace detail {

GSHMEM_HD GSHMEM_INLINE int wrap(int i, int n) {
  return ((i % n) + n) % n;
}

// Receiver: allows the link's steps up to `upto` (exclusive), granting the first kSlots now.
template <class G>
GSHMEM_HD void recv_grant(const Workspace& ws, int ch, Link& l, uint64_t upto) {
  l.total = uint32_t(upto);
  for (uint32_t s = l.step; s < l.total && s < l.step + uint32_t(kSlots); ++s) {
    notify<G>(ws, kCredit, ch, int(s % kSlots), l.member, tag(ws, s));
  }
}

// Sends the reduction of the received slot `in` with `mine` to `next`: straight into its slot
// when it is mapped, else in place in `in` and put from there.
template <class G, class R>
GSHMEM_HD void reduce_send(const Workspace& ws, const PushLayout& L, int ch, Link& next, const R& r,
                           char* in, const void* mine, uint64_t count) {
  char* out = send_begin<G>(ws, L, ch, next);
  if (out) {
    reduce2_push<G>(r, out, in, mine, count);
  } else {
    reduce2<G>(r, in, in, mine, count);
  }
  send_end<G>(ws, L, ch, next, out ? nullptr : in, count * r.esize());
}

}  // namespace detail

struct RingLinks {
  Link next;  // this PE -> P index me + 1
  Link prev;  // P index me - 1 -> this PE
};

GSHMEM_HD GSHMEM_INLINE RingLinks ring_links(const Peers& P, int in = 0) {
  return {make_link(P.member(detail::wrap(P.me + 1, P.n)), in, 0),
          make_link(P.member(detail::wrap(P.me - 1, P.n)), in, 0)};
}

// Steps one ring AllReduce of `count` elements makes on each link, with chunks of E.
GSHMEM_HD GSHMEM_INLINE uint64_t ring_allreduce_steps(int n, uint64_t count, uint64_t E) {
  return ceil_div(count, E * uint64_t(n)) * 2 * uint64_t(n - 1);
}

// AllReduce of elements [lo, hi) from src into dst (may be the same buffer).
template <class G, class R>
GSHMEM_HD void ring_allreduce_range(const Workspace& ws, const Peers& P, const PushLayout& L,
                                    int ch, RingLinks& k, const R& r, const char* src, char* dst,
                                    uint64_t lo, uint64_t hi, uint64_t E) {
  using namespace detail;
  const size_t es = r.esize();
  const int n = P.n, me = P.me;
  const uint64_t per_round = E * uint64_t(n);
  for (uint64_t base = lo; base < hi; base += per_round) {
    const uint64_t m = hi - base < per_round ? hi - base : per_round;
    auto blk = [&](int b) {
      Range x = split(m, n, wrap(b, n));
      return Range{base + x.lo, base + x.hi};
    };
    Range b = blk(me - 1);
    send<G>(ws, L, ch, k.next, src + b.lo * es, b.size() * es);
    for (int s = 1; s < n; ++s) {  // reduce-scatter: after n-1 steps block `me` is complete
      b = blk(me - 1 - s);
      char* in = recv_wait<G>(ws, L, ch, k.prev);
      if (s < n - 1) {
        reduce_send<G>(ws, L, ch, k.next, r, in, src + b.lo * es, b.size());
      } else {
        reduce2<G>(r, dst + b.lo * es, in, src + b.lo * es, b.size());
        send<G>(ws, L, ch, k.next, dst + b.lo * es, b.size() * es);
      }
      recv_release<G>(ws, ch, k.prev);
    }
    for (int s = 1; s < n; ++s) {  // all-gather of the completed blocks
      b = blk(me - s);
      char* in = recv_wait<G>(ws, L, ch, k.prev);
      if (s < n - 1) send<G>(ws, L, ch, k.next, in, b.size() * es);
      copy<G>(dst + b.lo * es, in, b.size() * es);
      recv_release<G>(ws, ch, k.prev);
    }
  }
}

template <class G, class R>
GSHMEM_HD void ring_allreduce(const Workspace& ws, const Peers& P, const R& r, int ch,
                              const CallArgs& a) {
  const size_t es = r.esize();
  const Range cr = split(a.count, ws.nch, ch);
  const char* src = static_cast<const char*>(a.src);
  char* dst = static_cast<char*>(a.dst);
  if (P.n == 1) return detail::copy<G>(dst + cr.lo * es, src + cr.lo * es, cr.size() * es);
  const PushLayout L = push_layout(ws, 1);
  const uint64_t E = chunk_elems(ws, L, es);
  RingLinks k = ring_links(P);
  detail::guard_all<G>(ws);
  detail::recv_grant<G>(ws, ch, k.prev, ring_allreduce_steps(P.n, cr.size(), E));
  k.next.total = k.prev.total;
  ring_allreduce_range<G>(ws, P, L, ch, k, r, src, dst, cr.lo, cr.hi, E);
}

// ReduceScatter: src holds P.n blocks of a.count; block P.me, reduced, lands in dst.
template <class G, class R>
GSHMEM_HD void ring_reducescatter(const Workspace& ws, const Peers& P, const R& r, int ch,
                                  const CallArgs& a) {
  using namespace detail;
  const size_t es = r.esize();
  const int n = P.n, me = P.me;
  const Range cr = split(a.count, ws.nch, ch);
  const char* src = static_cast<const char*>(a.src);
  char* dst = static_cast<char*>(a.dst);
  auto at = [&](int b, uint64_t i) { return src + (uint64_t(wrap(b, n)) * a.count + i) * es; };
  if (n == 1) return copy<G>(dst + cr.lo * es, at(0, cr.lo), cr.size() * es);
  const PushLayout L = push_layout(ws, 1);
  const uint64_t E = chunk_elems(ws, L, es);
  RingLinks k = ring_links(P);
  guard_all<G>(ws);
  recv_grant<G>(ws, ch, k.prev, ceil_div(cr.size(), E) * uint64_t(n - 1));
  k.next.total = k.prev.total;
  for (uint64_t base = cr.lo; base < cr.hi; base += E) {
    const uint64_t m = cr.hi - base < E ? cr.hi - base : E;
    send<G>(ws, L, ch, k.next, at(me - 1, base), m * es);
    for (int s = 1; s < n; ++s) {
      char* in = recv_wait<G>(ws, L, ch, k.prev);
      if (s < n - 1) {
        reduce_send<G>(ws, L, ch, k.next, r, in, at(me - 1 - s, base), m);
      } else {
        reduce2<G>(r, dst + base * es, in, at(me, base), m);
      }
      recv_release<G>(ws, ch, k.prev);
    }
  }
}

// AllGather: block j of dst (at j * a.count) gets member j's src.
template <class G>
GSHMEM_HD void ring_allgather(const Workspace& ws, const Peers& P, size_t es, int ch,
                              const CallArgs& a) {
  using namespace detail;
  const int n = P.n, me = P.me;
  const Range cr = split(a.count, ws.nch, ch);
  const char* src = static_cast<const char*>(a.src);
  char* dst = static_cast<char*>(a.dst);
  auto at = [&](int b, uint64_t i) { return dst + (uint64_t(wrap(b, n)) * a.count + i) * es; };
  if (n == 1) return copy<G>(at(0, cr.lo), src + cr.lo * es, cr.size() * es);
  const PushLayout L = push_layout(ws, 1);
  const uint64_t E = chunk_elems(ws, L, es);
  RingLinks k = ring_links(P);
  guard_all<G>(ws);
  recv_grant<G>(ws, ch, k.prev, ceil_div(cr.size(), E) * uint64_t(n - 1));
  k.next.total = k.prev.total;
  for (uint64_t base = cr.lo; base < cr.hi; base += E) {
    const uint64_t m = cr.hi - base < E ? cr.hi - base : E;
    send<G>(ws, L, ch, k.next, src + base * es, m * es);
    copy<G>(at(me, base), src + base * es, m * es);
    for (int s = 1; s < n; ++s) {
      char* in = recv_wait<G>(ws, L, ch, k.prev);
      if (s < n - 1) send<G>(ws, L, ch, k.next, in, m * es);
      copy<G>(at(me - s, base), in, m * es);
      recv_release<G>(ws, ch, k.prev);
    }
  }
}

// Broadcast from P index root along the chain root, root+1, ..., root-1.
template <class G>
GSHMEM_HD void ring_broadcast(const Workspace& ws, const Peers& P, size_t es, int ch,
                              const CallArgs& a, int root) {
  using namespace detail;
  const int n = P.n, pos = wrap(P.me - root, n);
  const Range cr = split(a.count, ws.nch, ch);
  const char* src = static_cast<const char*>(a.src);
  char* dst = static_cast<char*>(a.dst);
  const PushLayout L = push_layout(ws, 1);
  const uint64_t E = chunk_elems(ws, L, es);
  const uint64_t steps = ceil_div(cr.size(), E);
  RingLinks k = ring_links(P);
  k.next.total = uint32_t(steps);
  guard_all<G>(ws);
  if (pos > 0) recv_grant<G>(ws, ch, k.prev, steps);
  for (uint64_t base = cr.lo; base < cr.hi; base += E) {
    const uint64_t m = cr.hi - base < E ? cr.hi - base : E;
    if (pos == 0) {
      if (n > 1) send<G>(ws, L, ch, k.next, src + base * es, m * es);
      copy<G>(dst + base * es, src + base * es, m * es);
      continue;
    }
    char* in = recv_wait<G>(ws, L, ch, k.prev);
    if (pos < n - 1) send<G>(ws, L, ch, k.next, in, m * es);
    copy<G>(dst + base * es, in, m * es);
    recv_release<G>(ws, ch, k.prev);
  }
}

// Reduce to P index root along the chain root+1, ..., root-1, root; dst is written only on root.
template <class G, class R>
GSHMEM_HD void ring_reduce(const Workspace& ws, const Peers& P, const R& r, int ch,
                           const CallArgs& a, int root) {
  using namespace detail;
  const size_t es = r.esize();
  const int n = P.n, pos = wrap(P.me - root - 1, n);  // root is last
  const Range cr = split(a.count, ws.nch, ch);
  const char* src = static_cast<const char*>(a.src);
  char* dst = static_cast<char*>(a.dst);
  if (n == 1) return copy<G>(dst + cr.lo * es, src + cr.lo * es, cr.size() * es);
  const PushLayout L = push_layout(ws, 1);
  const uint64_t E = chunk_elems(ws, L, es);
  const uint64_t steps = ceil_div(cr.size(), E);
  RingLinks k = ring_links(P);
  k.next.total = uint32_t(steps);
  guard_all<G>(ws);
  if (pos > 0) recv_grant<G>(ws, ch, k.prev, steps);
  for (uint64_t base = cr.lo; base < cr.hi; base += E) {
    const uint64_t m = cr.hi - base < E ? cr.hi - base : E;
    if (pos == 0) {
      send<G>(ws, L, ch, k.next, src + base * es, m * es);
      continue;
    }
    char* in = recv_wait<G>(ws, L, ch, k.prev);
    if (pos < n - 1) {
      reduce_send<G>(ws, L, ch, k.next, r, in, src + base * es, m);
    } else {
      reduce2<G>(r, dst + base * es, in, src + base * es, m);
    }
    recv_release<G>(ws, ch, k.prev);
  }
}

// AlltoAll by pairwise exchange: in step s this PE sends to me + s and receives from me - s.
// One receive region serves every step: a sender writes only after the credit this PE grants on
// reaching that step, when the previous sender's data has been consumed.
template <class G>
GSHMEM_HD void pairwise_alltoall(const Workspace& ws, const Peers& P, size_t es, int ch,
                                 const CallArgs& a) {
  using namespace detail;
  const int n = P.n, me = P.me;
  const Range cr = split(a.count, ws.nch, ch);
  const char* src = static_cast<const char*>(a.src);
  char* dst = static_cast<char*>(a.dst);
  auto blk = [&](const char* p, int b, uint64_t i) { return p + (uint64_t(b) * a.count + i) * es; };
  copy<G>(const_cast<char*>(blk(dst, me, cr.lo)), blk(src, me, cr.lo), cr.size() * es);
  if (n == 1) return;
  const PushLayout L = push_layout(ws, 1);
  const uint64_t E = chunk_elems(ws, L, es);
  const uint64_t steps = ceil_div(cr.size(), E);
  guard_all<G>(ws);
  for (int s = 1; s < n; ++s) {
    const int to = wrap(me + s, n), from = wrap(me - s, n);
    Link out = make_link(P.member(to), 0, steps);
    Link in = make_link(P.member(from), 0, 0);
    recv_grant<G>(ws, ch, in, steps);
    for (uint64_t base = cr.lo; base < cr.hi; base += E) {
      const uint64_t m = cr.hi - base < E ? cr.hi - base : E;
      send<G>(ws, L, ch, out, blk(src, to, base), m * es);
      copy<G>(const_cast<char*>(blk(dst, from, base)), recv_wait<G>(ws, L, ch, in), m * es);
      recv_release<G>(ws, ch, in);
    }
  }
}

}  // namespace gshmem::coll
