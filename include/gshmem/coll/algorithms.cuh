// Every collective algorithm, and the one switch that runs a channel of a planned call. The host
// runs it on CPU PEs (G = Thread, one channel after another); a kernel runs it with one block per
// channel (G = Block, channel = blockIdx.x). See device.cuh for the kernel-side entry points.
#pragma once

#include "gshmem/coll/direct.cuh"
#include "gshmem/coll/hier.cuh"
#include "gshmem/coll/ll.cuh"
#include "gshmem/coll/rd.cuh"
#include "gshmem/coll/ring.cuh"
#include "gshmem/coll/tree.cuh"
#include "gshmem/coll/workspace.cuh"

namespace gshmem::coll {

// Whether `algo` implements `coll` (Auto never does).
GSHMEM_HD constexpr bool implements(Algo algo, Coll coll) {
  switch (algo) {
    case Algo::Direct:
      return true;
    case Algo::Direct2:
      return coll == Coll::AllReduce || coll == Coll::Reduce;
    case Algo::Ring:
      return coll != Coll::AllToAll;
    case Algo::Tree:
      return coll == Coll::AllReduce || coll == Coll::Reduce || coll == Coll::Broadcast;
    case Algo::RecDbl:
      return coll == Coll::AllReduce || coll == Coll::AllGather || coll == Coll::ReduceScatter;
    case Algo::Hier:
      return coll == Coll::AllReduce;
    case Algo::Pairwise:
      return coll == Coll::AllToAll;
    default:
      return false;
  }
}

// The algorithm whose code runs `coll` when the plan names `algo`: algo itself where it
// implements the collective, else the ring (the pairwise exchange for AlltoAll). The collective
// kernel is compiled once per (collective, algorithm that runs), so this is its key too.
GSHMEM_HD constexpr Algo runs_as(Algo algo, Coll coll) {
  if (implements(algo, coll)) return algo;
  return coll == Coll::AllToAll ? Algo::Pairwise : Algo::Ring;
}

namespace detail {

// Whether the call goes by the LL protocol: the plan says so for a direct collective LL carries,
// and the team fits its rings.
GSHMEM_HD GSHMEM_INLINE bool by_ll(const Workspace& ws, Coll coll, Algo algo) {
  return algo == Algo::Direct && ws.proto == Proto::LL && ll_implements(coll) &&
         ws.team.size <= ll_members(ws.flag_stride);
}

// A call by the LL protocol. One channel carries all of it (the planner gives LL one; any other
// has nothing to do). Reductions end with R::finish, as run_plan's do.
template <class G, class R>
GSHMEM_HD void run_ll(const Workspace& ws, Coll coll, const R& r, const CallArgs& a, int ch) {
  const Peers P = whole_team(ws);
  if (ch != 0) return;
  ll_run<G>(ws, P, r, coll, a);
  if (coll == Coll::AllGather || coll == Coll::Broadcast) return;
  if (coll == Coll::Reduce && P.me != a.root) return;
  r.template finish<G>(a.dst, a.count, P.n);
  G::sync();
}

// run_channel's body, with the collective, the algorithm (runs_as) and Hier's cross-node
// algorithm as arguments. Inlined, so that where they are constants (the collective kernel) only
// the one algorithm's code is left: each kernel then gets the registers for it alone.
template <class G, class R>
GSHMEM_HD GSHMEM_INLINE void run_plan(const Workspace& ws, Coll coll, Algo algo, Algo sub,
                                      const R& r, const CallArgs& a, int ch) {
  const Peers P = whole_team(ws);
  const size_t es = r.esize();
  uint32_t round = 0;
  switch (coll) {
    case Coll::AllReduce:
      switch (algo) {
        case Algo::Direct:
          direct_allreduce<G>(ws, P, r, ch, a, false, -1, round);
          break;
        case Algo::Direct2:
          direct_allreduce<G>(ws, P, r, ch, a, true, -1, round);
          break;
        case Algo::Tree:
          tree_run<G>(ws, P, r, es, ch, a, 0, ch & 1, true, true);
          break;
        case Algo::RecDbl:
          rd_allreduce<G>(ws, P, r, ch, a);
          break;
        case Algo::Hier:
          hier_allreduce<G>(ws, ws.node_size, sub == Algo::RecDbl, r, ch, a);
          break;
        default:
          ring_allreduce<G>(ws, P, r, ch, a);
          break;
      }
      break;
    case Coll::Reduce:
      switch (algo) {
        case Algo::Direct:
          direct_allreduce<G>(ws, P, r, ch, a, false, a.root, round);
          break;
        case Algo::Direct2:
          direct_allreduce<G>(ws, P, r, ch, a, true, a.root, round);
          break;
        case Algo::Tree:
          tree_run<G>(ws, P, r, es, ch, a, a.root, false, true, false);
          break;
        default:
          ring_reduce<G>(ws, P, r, ch, a, a.root);
          break;
      }
      break;
    case Coll::ReduceScatter:
      if (algo == Algo::Direct) {
        direct_reducescatter<G>(ws, P, r, ch, a, round);
      } else if (algo == Algo::RecDbl) {
        bruck_reducescatter<G>(ws, P, r, ch, a);
      } else {
        ring_reducescatter<G>(ws, P, r, ch, a);
      }
      break;
    case Coll::AllGather:
      if (algo == Algo::Direct) {
        direct_gather<G>(ws, P, es, ch, a, 1, a.count, round);
      } else if (algo == Algo::RecDbl) {
        bruck_allgather<G>(ws, P, es, ch, a);
      } else {
        ring_allgather<G>(ws, P, es, ch, a);
      }
      return;
    case Coll::Broadcast:
      switch (algo) {
        case Algo::Direct:
          direct_broadcast<G>(ws, P, es, ch, a, a.root, round);
          break;
        case Algo::Tree:
          tree_run<G>(ws, P, r, es, ch, a, a.root, false, false, true);
          break;
        default:
          ring_broadcast<G>(ws, P, es, ch, a, a.root);
          break;
      }
      return;
    case Coll::AllToAll:
      if (algo == Algo::Direct) {
        direct_gather<G>(ws, P, es, ch, a, P.n, a.count, round);
      } else {
        pairwise_alltoall<G>(ws, P, es, ch, a);
      }
      return;
  }
  if (coll == Coll::Reduce && P.me != a.root) return;
  const Range cr = split(a.count, ws.nch, ch);
  r.template finish<G>(static_cast<char*>(a.dst) + cr.lo * es, cr.size(), P.n);
  G::sync();
}

}  // namespace detail

// Runs channel ch of a call on this PE with the plan's algorithm (ws.algo; ws.sub for Hier).
// `a.root` is a team index. Reductions end with R::finish (AVG's division) on the part of dst
// this channel wrote.
template <class G, class R>
GSHMEM_HD void run_channel(const Workspace& ws, Coll coll, const R& r, const CallArgs& a, int ch) {
  const Algo algo = runs_as(ws.algo, coll);
  if (detail::by_ll(ws, coll, algo)) return detail::run_ll<G>(ws, coll, r, a, ch);
  detail::run_plan<G>(ws, coll, algo, ws.sub, r, a, ch);
}

// The same with the collective and the algorithm fixed at compile time (kAlgo ==
// runs_as(ws.algo, kColl), kSub == ws.sub for Hier): what the collective kernel runs, one
// instantiation per (collective, algorithm).
template <class G, class R, Coll kColl, Algo kAlgo, Algo kSub = Algo::Ring>
GSHMEM_HD void run_channel_as(const Workspace& ws, const R& r, const CallArgs& a, int ch) {
  static_assert(runs_as(kAlgo, kColl) == kAlgo, "kAlgo must implement kColl");
  // The LL code only in the kernels of the direct algorithm (in the others it would cost
  // registers even where it can never run).
  if constexpr (kAlgo == Algo::Direct && ll_implements(kColl)) {
    if (detail::by_ll(ws, kColl, kAlgo)) return detail::run_ll<G>(ws, kColl, r, a, ch);
  }
  detail::run_plan<G>(ws, kColl, kAlgo, kSub, r, a, ch);
}

// After every channel of a call that published user buffers (CallArgs::src_pub / dst_pub):
// returns once no peer reads them any more.
template <class G>
GSHMEM_HD void release_user_buffers(const Workspace& ws) {
  detail::guard_all<G>(ws);
}

}  // namespace gshmem::coll
