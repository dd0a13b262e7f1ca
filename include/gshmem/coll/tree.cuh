// Binary-tree algorithms over push links: reduce up the tree, broadcast down it, chunk by chunk,
// so a message crosses log2(n) hops instead of the ring's n-1 (lower latency for medium sizes
// and many PEs). Odd channels use the mirrored tree, whose interior nodes are the even
// channels' leaves: with two or more channels this is NCCL's double binary tree.
//
// A node reduces its own data first, then its children's: out = mine op child0 op child1. Only
// the root's result is used (and broadcast), so every PE gets the same bits.
// Called by the whole group G of every member of P, with the same arguments.
#pragma once

#include "gshmem/coll/ring.cuh"

namespace gshmem::coll {

// The tree as this PE sees it: virtual index v (the root is 0), parent (v - 1) / 2, children
// 2v + 1 and 2v + 2; all as P indices (-1 when absent).
struct TreeNode {
  int parent;
  int child[2];
  int side;  // which child of its parent this PE is (its receive region there)
};

GSHMEM_HD GSHMEM_INLINE TreeNode tree_node(const Peers& P, int root, bool mirror) {
  const int n = P.n;
  int v = detail::wrap(P.me - root, n);
  if (mirror) v = n - 1 - v;
  auto index = [&](int w) { return detail::wrap((mirror ? n - 1 - w : w) + root, n); };
  TreeNode t{};
  t.parent = v ? index((v - 1) / 2) : -1;
  t.side = v ? (v - 1) % 2 : 0;
  for (int c = 0; c < 2; ++c) t.child[c] = 2 * v + 1 + c < n ? index(2 * v + 1 + c) : -1;
  return t;
}

// Reduce (up) and/or broadcast (down) phases. Up: the root's dst gets the reduction; a Reduce
// leaves other dsts untouched. Down: the root sends `down_src`, everyone's dst gets it.
template <class G, class R>
GSHMEM_HD void tree_run(const Workspace& ws, const Peers& P, const R& r, size_t es, int ch,
                        const CallArgs& a, int root, bool mirror, bool up, bool down) {
  using namespace detail;
  const Range cr = split(a.count, ws.nch, ch);
  const char* src = static_cast<const char*>(a.src);
  char* dst = static_cast<char*>(a.dst);
  if (P.n == 1) return copy<G>(dst + cr.lo * es, src + cr.lo * es, cr.size() * es);
  const TreeNode t = tree_node(P, root, mirror);
  // Receive regions: 0 and 1 from the children (up), 2 from the parent (down).
  const PushLayout L = push_layout(ws, 3);
  const uint64_t E = chunk_elems(ws, L, es);
  const uint64_t steps = ceil_div(cr.size(), E);
  Link from_child[2], to_child[2], to_parent{}, from_parent{};
  guard_all<G>(ws);
  for (int c = 0; c < 2; ++c) {
    if (t.child[c] < 0) continue;
    from_child[c] = make_link(P.member(t.child[c]), c, 0);
    to_child[c] = make_link(P.member(t.child[c]), 2, steps);
    if (up) recv_grant<G>(ws, ch, from_child[c], steps);
  }
  if (t.parent >= 0) {
    to_parent = make_link(P.member(t.parent), t.side, steps);
    from_parent = make_link(P.member(t.parent), 2, 0);
    if (down) recv_grant<G>(ws, ch, from_parent, steps);
  }
  const int nkids = (t.child[0] >= 0) + (t.child[1] >= 0);
  for (uint64_t base = cr.lo; base < cr.hi; base += E) {
    const uint64_t m = cr.hi - base < E ? cr.hi - base : E;
    const char* mine = src + base * es;
    if (up) {
      if (nkids == 0) {
        send<G>(ws, L, ch, to_parent, mine, m * es);
      } else {
        const void* srcs[3] = {mine, nullptr, nullptr};
        char* in0 = recv_wait<G>(ws, L, ch, from_child[0]);
        srcs[1] = in0;
        if (nkids == 2) srcs[2] = recv_wait<G>(ws, L, ch, from_child[1]);
        if (t.parent < 0) {
          reduce<G>(r, dst + base * es, srcs, 1 + nkids, m);
        } else {
          char* out = send_begin<G>(ws, L, ch, to_parent);
          reduce<G>(r, out ? out : in0, srcs, 1 + nkids, m);
          send_end<G>(ws, L, ch, to_parent, out ? nullptr : in0, m * es);
        }
        for (int c = 0; c < nkids; ++c) recv_release<G>(ws, ch, from_child[c]);
      }
    }
    if (down) {
      const char* data = up ? dst + base * es : mine;  // at the root
      if (t.parent >= 0) data = recv_wait<G>(ws, L, ch, from_parent);
      for (int c = 0; c < nkids; ++c) send<G>(ws, L, ch, to_child[c], data, m * es);
      copy<G>(dst + base * es, data, m * es);
      if (t.parent >= 0) recv_release<G>(ws, ch, from_parent);
    }
  }
}

}  // namespace gshmem::coll
