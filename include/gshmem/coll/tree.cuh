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
  // child[c] for a c known only at run time, without indexing (an indexed array of a kernel's
  // thread lives in local memory).
  GSHMEM_HD GSHMEM_INLINE int kid(int c) const { return c == 0 ? child[0] : child[1]; }
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
  // Receive regions, only those the call uses (a region's share of the pool bounds the chunk):
  // 0 and 1 from the children (up; one child at most in a tree of two), then one from the parent
  // (down). A broadcast alone has the whole pool for its one region, as the ring's broadcast does.
  const int up_regions = up ? (P.n > 2 ? 2 : 1) : 0;
  const int down_in = up_regions;
  const PushLayout L = push_layout(ws, up_regions + (down ? 1 : 0));
  const uint64_t E = chunk_elems(ws, L, es);
  const uint64_t steps = ceil_div(cr.size(), E);
  // Every link makes one step per chunk, so they share the chunk count `step` and each is made
  // when used: from child c into region c, to a child into its region down_in, to the parent
  // into region `side` there, from the parent into region down_in.
  uint32_t step = 0;
  auto from_child = [&](int c) { return Link{P.member(t.kid(c)), c, step, uint32_t(steps)}; };
  auto to_child = [&](int c) { return Link{P.member(t.kid(c)), down_in, step, uint32_t(steps)}; };
  auto parent = [&](int in) { return Link{P.member(t.parent), in, step, uint32_t(steps)}; };
  const int nkids = (t.child[0] >= 0) + (t.child[1] >= 0);  // child 1 only with child 0
  guard_all<G>(ws);
  for (int c = 0; c < nkids && up; ++c) {
    Link l = from_child(c);
    recv_grant<G>(ws, ch, l, steps);
  }
  if (t.parent >= 0 && down) {
    Link l = parent(down_in);
    recv_grant<G>(ws, ch, l, steps);
  }
  for (uint64_t base = cr.lo; base < cr.hi; base += E, ++step) {
    const uint64_t m = cr.hi - base < E ? cr.hi - base : E;
    const char* mine = src + base * es;
    if (up) {
      Link to_parent = parent(t.side);
      if (nkids == 0) {
        send<G>(ws, L, ch, to_parent, mine, m * es);
      } else {
        const void* srcs[3] = {mine, nullptr, nullptr};
        Link kid0 = from_child(0), kid1 = from_child(1);
        char* in0 = recv_wait<G>(ws, L, ch, kid0);
        srcs[1] = in0;
        if (nkids == 2) srcs[2] = recv_wait<G>(ws, L, ch, kid1);
        if (t.parent < 0) {
          reduce<G>(r, dst + base * es, srcs, 1 + nkids, m);
        } else {
          char* out = send_begin<G>(ws, L, ch, to_parent);
          reduce<G>(r, out ? out : in0, srcs, 1 + nkids, m);
          send_end<G>(ws, L, ch, to_parent, out ? nullptr : in0, m * es);
        }
        recv_release<G>(ws, ch, kid0);
        if (nkids == 2) recv_release<G>(ws, ch, kid1);
      }
    }
    if (down) {
      const char* data = up ? dst + base * es : mine;  // at the root
      Link from_parent = parent(down_in);
      if (t.parent >= 0) data = recv_wait<G>(ws, L, ch, from_parent);
      for (int c = 0; c < nkids; ++c) {
        Link l = to_child(c);
        send<G>(ws, L, ch, l, data, m * es);
      }
      copy<G>(dst + base * es, data, m * es);
      if (t.parent >= 0) recv_release<G>(ws, ch, from_parent);
    }
  }
}

}  // namespace gshmem::coll
