// Hierarchical AllReduce for a team that spans nodes: inside each node, a direct reduce-scatter
// (local member l gets slice l of the node's sum); across nodes, an AllReduce of that slice among
// the members with the same local index (ring, or recursive doubling for small slices), so every
// local member uses its own network path at once; inside again, a direct all-gather of the slices.
//
// Needs a regular team: node g holds team indices g*L .. g*L + L-1 (the host checks). Each round
// uses one pool half for all three phases: the node publications, and the receive slots of the
// cross-node links in the half's last quarter, so the pool guard covers both.
// Called by the whole group G of every member of the team, with the same arguments.
#pragma once

#include "gshmem/coll/direct.cuh"
#include "gshmem/coll/rd.cuh"
#include "gshmem/coll/ring.cuh"

namespace gshmem::coll {

template <class G, class R>
GSHMEM_HD void hier_allreduce(const Workspace& ws, int node_size, bool rail_rd, const R& r, int ch,
                              const CallArgs& a) {
  using namespace detail;
  const size_t es = r.esize();
  const int L = node_size, Gn = ws.team.size / node_size;
  const int l = ws.team.my_index % L, g = ws.team.my_index / L;
  const Peers node{L, l, g * L, 1};
  const Peers rail{Gn, g, l, L};
  const Range cr = split(a.count, ws.nch, ch);
  const char* src = static_cast<const char*>(a.src);
  char* dst = static_cast<char*>(a.dst);

  const uint64_t hb = half_bytes(ws);
  const uint64_t push_bytes = hb / 4 / kAlign * kAlign;
  const RdShape shape = rd_shape(Gn);
  const int nin = rail_rd ? shape.nin : 1;
  const uint64_t slot = push_bytes / uint64_t(nin * kSlots) / kAlign * kAlign;
  uint64_t piece = (hb - push_bytes) / es / uint64_t(L + 1) * uint64_t(L);
  if (piece == 0) piece = uint64_t(L);
  uint64_t E = (ws.chunk && ws.chunk < slot ? ws.chunk : slot) / es;
  if (E == 0) E = 1;

  // Only the cross-node algorithm's links (a kernel compiled for one keeps no room for the other).
  RingLinks ring = rail_rd ? RingLinks{} : ring_links(rail);
  RdLinks rdl = rail_rd ? rd_links(rail, shape) : RdLinks{};
  // Piece `at` of this channel's range: its length m, this member's slice of it (reduced inside
  // the node, then across nodes), and where the slice's sum goes. Each phase computes it again
  // (recompute_from): kept from the first phase, these values would hold registers across every
  // reduction call of the cross-node phase, and the kernel would spill.
  struct Piece {
    uint64_t m;
    Range mine;
    char* out;
  };
  auto piece_at = [&](uint64_t at) {
    at = gshmem::detail::recompute_from(at);
    const uint64_t m = cr.hi - at < piece ? cr.hi - at : piece;
    const Range mine = split(m, L, l);
    return Piece{m, mine, dst + (at + mine.lo) * es};
  };
  uint32_t round = 0;
  for (uint64_t base = cr.lo; base < cr.hi; base += piece) {
    const uint32_t rd = round++;
    const uint64_t region = half_off(ws, ch, half_of(ws, rd));
    // The receive slots of this channel, in the last quarter of its own half region: slot_off
    // adds ch * nin * kSlots slots, which this base takes back (else channel ch's slots would
    // land in channel 2ch's region, or past the pool, when channels run at once as in a kernel).
    const PushLayout pl{region + hb - push_bytes - uint64_t(ch) * uint64_t(nin * kSlots) * slot,
                        slot, nin};
    {  // inside the node: the sum of slice l
      const Piece p = piece_at(base);
      const char* in = src + base * es;
      publish_input<G>(ws, node, ch, rd, in, a.src_pub, 1, 0, p.m, es);
      const char* own = own_input(ws, node, ch, rd, in + p.mine.lo * es, p.out, p.mine.lo * es);
      reduce_all<G>(r, p.out, L, p.mine.size(), [&](int j) -> const void* {
        return j == l ? own : wait_published<G>(ws, node, ch, rd, 0, j, 0, 0).base + p.mine.lo * es;
      });
    }
    {  // across nodes: the AllReduce of slice l
      const Piece p = piece_at(base);
      if (rail_rd) {
        rd_grant<G>(ws, rail, shape, ch, rdl, ceil_div(p.mine.size(), E));
        rd_allreduce_range<G>(ws, rail, pl, ch, shape, rdl, r, p.out, p.out, 0, p.mine.size(), E);
      } else {
        recv_grant<G>(ws, ch, ring.prev,
                      ring.prev.step + ring_allreduce_steps(Gn, p.mine.size(), E));
        ring_allreduce_range<G>(ws, rail, pl, ch, ring, r, p.out, p.out, 0, p.mine.size(), E);
      }
    }
    {  // inside the node again: every member's slice
      const Piece p = piece_at(base);
      const uint32_t rd3 = uint32_t(gshmem::detail::recompute_from(rd));
      if (a.dst_pub) {
        publish<G>(ws, node, ch, rd3, 1, true, heap_off(ws, p.out), 0);
      } else {
        char* slice = ws.c.heap.base + half_off(ws, ch, half_of(ws, rd3)) + piece * es;
        copy<G>(slice, p.out, p.mine.size() * es);
        publish<G>(ws, node, ch, rd3, 1, false, heap_off(ws, slice), 0);
      }
      for (int i = 1; i < L; ++i) {
        const int j = (l + i) % L;
        const Range s = split(p.m, L, j);
        copy<G>(dst + (base + s.lo) * es,
                wait_published<G>(ws, node, ch, rd3, 1, j, piece * es, 0).base, s.size() * es);
      }
      ack_all<G>(ws, node, ch, rd3);
    }
  }
}

}  // namespace gshmem::coll
