// Direct algorithms: every member of P is mapped here, so a PE reads (and reduces) straight from
// its peers' memory instead of forwarding data hop by hop. Each round, every PE publishes its
// piece of the input (a copy in its pool, or the symmetric user buffer itself) and each reader
// takes what it needs from every publication; Direct2 adds a second stage (reduce-scatter, then
// all-gather of the reduced slices). Memory traffic per PE for an AllReduce of S bytes over n PEs:
// one-shot reads n*S; two-shot reads about 2S, which is why it wins for large messages.
//
// Reductions always combine the members' data in member order 0..n-1, so every PE (and every
// direct variant) gets the same bits.
//
// Called by the whole group G of every member of P, with the same arguments. `round` counts this
// channel's publications in the call (phases of one call continue it).
#pragma once

#include "gshmem/coll/workspace.cuh"

namespace gshmem::coll {

namespace detail {

inline constexpr int kMaxSrcs = 16;  // sources reduced in one pass

// out = src(0) op src(1) op ... op src(n-1) over `count` elements, where src(j) is a callable
// returning member j's pointer (waiting for it as needed); left to right in passes of kMaxSrcs.
template <class G, class R, class Src>
GSHMEM_HD void reduce_all(const R& r, void* out, int n, uint64_t count, Src&& src) {
  const void* srcs[kMaxSrcs];
  int have = 0;
  for (int j = 0; j < n; ++j) {
    srcs[have++] = src(j);
    if (have == kMaxSrcs || j == n - 1) {
      reduce<G>(r, out, srcs, have, count);
      srcs[0] = out;
      have = 1;
    }
  }
}

// Elements one round may move when each PE publishes `blocks` blocks of a piece (plus, for
// two-shot, one output slice) in a pool half.
GSHMEM_HD GSHMEM_INLINE uint64_t direct_piece(const Workspace& ws, size_t esize, int blocks,
                                              int n_for_slice) {
  uint64_t cap = half_bytes(ws) / esize;
  uint64_t piece = n_for_slice ? cap / uint64_t(n_for_slice + 1) * uint64_t(n_for_slice)
                               : cap / uint64_t(blocks);
  return piece ? piece : 1;
}

// Publishes stage 0 of `rd`: m elements of each of `blocks` blocks starting at src (blocks
// `stride` elements apart), in place when allowed, else copied into this PE's half.
template <class G>
GSHMEM_HD void publish_input(const Workspace& ws, const Peers& P, int ch, uint32_t rd,
                             const char* src, bool in_place, int blocks, uint64_t stride,
                             uint64_t m, size_t es, int only = -1) {
  int h = half_of(ws, rd);
  guard<G>(ws, ch, h);
  if (in_place) {
    publish<G>(ws, P, ch, rd, 0, true, heap_off(ws, src), stride * es, only);
    return;
  }
  uint64_t region = half_off(ws, ch, h);
  for (int b = 0; b < blocks; ++b) {
    push<G>(ws.c.heap.base + region + uint64_t(b) * m * es, src + uint64_t(b) * stride * es,
            m * es);
  }
  publish<G>(ws, P, ch, rd, 0, false, region, m * es, only);
}

// This PE's input as a reduction must read it. In place (`out` is `in`) with more members than one
// pass of reduce_all takes, the first pass overwrites `out` before a later one reads member P.me
// (16 and up): then the copy of `in` that publish_input made in this PE's pool half, `copy_off`
// bytes into it. So with that many members an input in place is never published in place (run()
// asks in_place_publishes_src in collectives/coll_host.hpp, which says no above kMaxSrcs).
GSHMEM_HD GSHMEM_INLINE const char* own_input(const Workspace& ws, const Peers& P, int ch,
                                              uint32_t rd, const char* in, const void* out,
                                              uint64_t copy_off) {
  if (P.n <= kMaxSrcs || in != out) return in;
  return ws.c.heap.base + half_off(ws, ch, half_of(ws, rd)) + copy_off;
}

template <class G>
GSHMEM_HD void ack_all(const Workspace& ws, const Peers& P, int ch, uint32_t rd) {
  for (int i = 1; i < P.n; ++i) ack<G>(ws, P, ch, rd, (P.me + i) % P.n);
}

}  // namespace detail

// AllReduce (and Reduce to P index `root` when root >= 0: dst is written only there).
template <class G, class R>
GSHMEM_HD void direct_allreduce(const Workspace& ws, const Peers& P, const R& r, int ch,
                                const CallArgs& a, bool two_shot, int root, uint32_t& round) {
  using namespace detail;
  const size_t es = r.esize();
  const Range cr = split(a.count, ws.nch, ch);
  const uint64_t piece = direct_piece(ws, es, 1, two_shot ? P.n : 0);
  const char* src = static_cast<const char*>(a.src);
  char* dst = static_cast<char*>(a.dst);
  const bool all = root < 0;
  for (uint64_t base = cr.lo; base < cr.hi; base += piece) {
    const uint64_t m = cr.hi - base < piece ? cr.hi - base : piece;
    const uint32_t rd = round++;
    const char* in = src + base * es;
    if (!two_shot) {
      // Everyone reduces everything (AllReduce), or only the root does (Reduce).
      if (all || P.me != root) {
        publish_input<G>(ws, P, ch, rd, in, a.src_pub, 1, 0, m, es, all ? -1 : root);
      }
      if (all || P.me == root) {
        if (!all && P.n > kMaxSrcs && in == dst + base * es) {
          // A Reduce's root publishes nothing: the copy own_input reads is made here.
          guard<G>(ws, ch, half_of(ws, rd));
          copy<G>(ws.c.heap.base + half_off(ws, ch, half_of(ws, rd)), in, m * es);
          G::sync();
        }
        const char* own = own_input(ws, P, ch, rd, in, dst + base * es, 0);
        reduce_all<G>(r, dst + base * es, P.n, m, [&](int j) -> const void* {
          return j == P.me ? own : wait_published<G>(ws, P, ch, rd, 0, j, 0, 0).base;
        });
        ack_all<G>(ws, P, ch, rd);
      }
      continue;
    }
    // Two-shot: reduce my slice from everyone, publish it, collect the other slices.
    publish_input<G>(ws, P, ch, rd, in, a.src_pub, 1, 0, m, es);
    const Range mine = split(m, P.n, P.me);
    const bool out_in_dst = (all && a.dst_pub) || (!all && P.me == root);
    char* out = out_in_dst ? dst + (base + mine.lo) * es
                           : ws.c.heap.base + half_off(ws, ch, half_of(ws, rd)) + piece * es;
    const char* own = own_input(ws, P, ch, rd, in + mine.lo * es, out, mine.lo * es);
    reduce_all<G>(r, out, P.n, mine.size(), [&](int j) -> const void* {
      return j == P.me ? own : wait_published<G>(ws, P, ch, rd, 0, j, 0, 0).base + mine.lo * es;
    });
    if (all || P.me != root) {
      publish<G>(ws, P, ch, rd, 1, out_in_dst, heap_off(ws, out), 0, all ? -1 : root);
    }
    if (all && !out_in_dst) copy<G>(dst + (base + mine.lo) * es, out, mine.size() * es);
    if (!all && P.me != root) {
      ack_all<G>(ws, P, ch, rd);
      continue;
    }
    for (int i = 1; i < P.n; ++i) {
      int j = (P.me + i) % P.n;
      const Range s = split(m, P.n, j);
      copy<G>(dst + (base + s.lo) * es, wait_published<G>(ws, P, ch, rd, 1, j, piece * es, 0).base,
              s.size() * es);
    }
    ack_all<G>(ws, P, ch, rd);
  }
}

// ReduceScatter: src holds P.n blocks of a.count; this PE gets block P.me reduced.
template <class G, class R>
GSHMEM_HD void direct_reducescatter(const Workspace& ws, const Peers& P, const R& r, int ch,
                                    const CallArgs& a, uint32_t& round) {
  using namespace detail;
  const size_t es = r.esize();
  const Range cr = split(a.count, ws.nch, ch);
  const uint64_t piece = direct_piece(ws, es, P.n, 0);
  const char* src = static_cast<const char*>(a.src);
  char* dst = static_cast<char*>(a.dst);
  for (uint64_t base = cr.lo; base < cr.hi; base += piece) {
    const uint64_t m = cr.hi - base < piece ? cr.hi - base : piece;
    const uint32_t rd = round++;
    publish_input<G>(ws, P, ch, rd, src + base * es, a.src_pub, P.n, a.count, m, es);
    const char* own = own_input(ws, P, ch, rd, src + (uint64_t(P.me) * a.count + base) * es,
                                dst + base * es, uint64_t(P.me) * m * es);
    reduce_all<G>(r, dst + base * es, P.n, m, [&](int j) -> const void* {
      if (j == P.me) return own;
      Published p = wait_published<G>(ws, P, ch, rd, 0, j, 0, m * es);
      return p.base + uint64_t(P.me) * p.stride;
    });
    ack_all<G>(ws, P, ch, rd);
  }
}

// AllGather (blocks = 1: dst gets every member's src as block j) and AlltoAll (blocks = P.n:
// block P.me of member j's src lands as block j of dst). Block j of dst starts at
// dst + j * dst_stride elements (a.count for the plain collectives).
template <class G>
GSHMEM_HD void direct_gather(const Workspace& ws, const Peers& P, size_t es, int ch,
                             const CallArgs& a, int blocks, uint64_t dst_stride, uint32_t& round) {
  using namespace detail;
  const Range cr = split(a.count, ws.nch, ch);
  const uint64_t piece = direct_piece(ws, es, blocks, 0);
  const char* src = static_cast<const char*>(a.src);
  char* dst = static_cast<char*>(a.dst);
  const uint64_t mine_off = blocks > 1 ? uint64_t(P.me) * a.count : 0;
  for (uint64_t base = cr.lo; base < cr.hi; base += piece) {
    const uint64_t m = cr.hi - base < piece ? cr.hi - base : piece;
    const uint32_t rd = round++;
    publish_input<G>(ws, P, ch, rd, src + base * es, a.src_pub, blocks, a.count, m, es);
    copy<G>(dst + (uint64_t(P.me) * dst_stride + base) * es, src + (mine_off + base) * es, m * es);
    for (int i = 1; i < P.n; ++i) {
      int j = (P.me + i) % P.n;
      Published p = wait_published<G>(ws, P, ch, rd, 0, j, 0, m * es);
      copy<G>(dst + (uint64_t(j) * dst_stride + base) * es,
              p.base + (blocks > 1 ? uint64_t(P.me) * p.stride : 0), m * es);
    }
    ack_all<G>(ws, P, ch, rd);
  }
}

// Broadcast from P index root.
template <class G>
GSHMEM_HD void direct_broadcast(const Workspace& ws, const Peers& P, size_t es, int ch,
                                const CallArgs& a, int root, uint32_t& round) {
  using namespace detail;
  const Range cr = split(a.count, ws.nch, ch);
  const uint64_t piece = direct_piece(ws, es, 1, 0);
  const char* src = static_cast<const char*>(a.src);
  char* dst = static_cast<char*>(a.dst);
  for (uint64_t base = cr.lo; base < cr.hi; base += piece) {
    const uint64_t m = cr.hi - base < piece ? cr.hi - base : piece;
    const uint32_t rd = round++;
    if (P.me == root) {
      publish_input<G>(ws, P, ch, rd, src + base * es, a.src_pub, 1, 0, m, es);
      copy<G>(dst + base * es, src + base * es, m * es);
    } else {
      copy<G>(dst + base * es, wait_published<G>(ws, P, ch, rd, 0, root, 0, 0).base, m * es);
      ack<G>(ws, P, ch, rd, root);
    }
  }
}

}  // namespace gshmem::coll
