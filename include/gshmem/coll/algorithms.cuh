// Every collective algorithm, and the one switch that runs a channel of a planned call. The host
// runs it on CPU PEs (G = Thread, one channel after another); a kernel runs it with one block per
// channel (G = Block, channel = blockIdx.x). See device.cuh for the kernel-side entry points.
#pragma once

#include "gshmem/coll/direct.cuh"
#include "gshmem/coll/hier.cuh"
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

// Runs channel ch of a call on this PE. `a.root` is a team index. Reductions end with R::finish
// (AVG's division) on the part of dst this channel wrote. kAlgo, when not Auto, is the plan's
// algorithm (ws.algo) fixed at compile time, and kSub likewise Hier's cross-node one (ws.sub): the
// collective kernel is compiled once per algorithm, so that each kernel holds only its own
// algorithm's code and gets the registers for it.
template <class G, class R, Algo kAlgo = Algo::Auto, Algo kSub = Algo::Auto>
GSHMEM_HD void run_channel(const Workspace& ws, Coll coll, const R& r, const CallArgs& a, int ch) {
  const Algo algo = kAlgo == Algo::Auto ? ws.algo : kAlgo;
  const Algo sub = kSub == Algo::Auto ? ws.sub : kSub;
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

// After every channel of a call that published user buffers (CallArgs::src_pub / dst_pub):
// returns once no peer reads them any more.
template <class G>
GSHMEM_HD void release_user_buffers(const Workspace& ws) {
  detail::guard_all<G>(ws);
}

}  // namespace gshmem::coll
