// The low-latency protocol (Proto::LL) of the direct algorithms: for small messages between
// mapped peers, where a call's time is its synchronisation, not its bytes.
//
// A writer puts its data straight into the reader's memory and then, in the message's first
// word, the round's tag, stored with release (on a CPU a plain store: data and tag travel
// together, a message of up to 48 bytes in one cache line, with no separate signal and no
// fence). The reader polls the tag in its own memory, then uses the data where it lies. No acks:
// a reader that has used a round stores how far it has read in its own `done` word, and a writer
// loads that word only when the ring it writes is full. A PE runs ahead of its slowest reader by
// as many messages as the ring holds (256 or 512 small ones), where the simple protocol's two pool
// halves allow one call: a Broadcast root does not wait for its readers while they keep up.
//
// Buffers (the end of the team's collective area, workspace.cuh, zeroed when the team is made):
//   head: word 0 `round`, the team's last round number; word 1 `cell`, where the next message
//         goes (both this PE's own counts); at +64 `done`, the cell count this PE has read up to
//         (peers load it); at +128 seen[kLLMaxMembers], the last value of each member's `done`
//         this PE loaded;
//   rings: one per source member (index in the team), ll_ring_bytes(job's PEs) in 64-byte cells
//         (workspace.cuh: 256 or 512 cells, so a writer runs that many small messages ahead). Every
//         round takes the same cells in every ring (the cells its largest message needs; a
//         message does not wrap around the end), so one count places it for every pair.
// A message is the tag (the round number, from 1) in its first cell's first word, then its data
// from byte 16. Before it says done, its reader zeroes the first word of every cell the message
// used, so a cell's first word is zero or the tag of the message that starts there: no data
// left from an earlier message can pass for a tag. (Clearing only the cells after the first
// would do, since an older tag is smaller; it made ptxas spill in the ReduceScatter kernel and
// bought nothing measurable on CPU PEs.)
// Rounds and cells are counted per team, the same on every member (every member takes part in
// every round of a call, and the plan and count say how many there are and how big).
//
// One channel (the rounds of a call follow one another), teams of up to kLLMaxMembers, all
// mapped. In a kernel (G = Block) the block writes the data and one thread the tag, after a
// system fence, which a kernel needs to order the other threads' stores.
#pragma once

#include "gshmem/coll/direct.cuh"

namespace gshmem::coll {

inline constexpr uint64_t kLLCell = 64;
// Where a message's data starts (16-byte aligned, for the widest element); the most one round's
// message may carry (4 KiB with its tag, so that at least four rounds are in flight; larger rounds
// would only move the sizes where the planner leaves LL).
inline constexpr uint64_t kLLDataAt = 16;
inline constexpr uint64_t kLLPayloadBytes = 4096 - kLLDataAt;
static_assert(4 * (kLLDataAt + kLLPayloadBytes) <= kLLMinRingBytes);

namespace detail {

struct LLHead {
  uint64_t round;
  uint64_t cell;
  uint64_t pad0[6];
  uint64_t done;  // read by peers: on its own line
  uint64_t pad1[7];
  uint64_t seen[kLLMaxMembers];
};
static_assert(sizeof(LLHead) <= kLLHeadBytes);

GSHMEM_HD GSHMEM_INLINE uint64_t ll_off(const Workspace& ws) {
  return ws.area_off + kAreaHeaderBytes + team_flag_bytes(ws.flag_stride);
}

GSHMEM_HD GSHMEM_INLINE LLHead* ll_head(const Workspace& ws) {
  return reinterpret_cast<LLHead*>(ws.c.heap.base + ll_off(ws));
}

// Cells per ring in this job (a power of two).
GSHMEM_HD GSHMEM_INLINE uint64_t ll_cells(const Workspace& ws) {
  return ll_ring_bytes(ws.flag_stride) / kLLCell;
}

// Offset (from the LL buffers' start) of cell `cell` (a running count) of source src's ring.
GSHMEM_HD GSHMEM_INLINE uint64_t ll_cell_off(const Workspace& ws, int src, uint64_t cell) {
  const uint64_t cells = ll_cells(ws);
  return kLLHeadBytes + uint64_t(src) * cells * kLLCell + (cell & (cells - 1)) * kLLCell;
}

// One round: its tag and the cells [first, end) its messages take, in every ring.
struct LLRound {
  uint64_t tag;
  uint64_t first, end;
};

// The rounds of a call: up to `per` elements of `count` in each.
struct LLRounds {
  LLRound start;   // before the call's first round: the team's last tag and next cell
  uint64_t per;    // elements per round
  uint64_t n;      // rounds
  uint64_t cells;  // per ring (ll_cells)
};

// Round k's place, after the round before it (the first: after the call's counts) placed at
// `prev`, for messages of `bytes` in rings of `ring_cells`.
GSHMEM_HD GSHMEM_INLINE LLRound ll_next(const LLRound& prev, uint64_t bytes, uint64_t ring_cells) {
  const uint64_t cells = ceil_div(kLLDataAt + bytes, kLLCell);
  uint64_t cell = prev.end;
  const uint64_t at = cell & (ring_cells - 1);
  if (at + cells > ring_cells) cell += ring_cells - at;  // no wrapping
  return {prev.tag + 1, cell, cell + cells};
}

// The part of `count` elements round k of L covers.
GSHMEM_HD GSHMEM_INLINE Range ll_piece(const LLRounds& L, uint64_t count, uint64_t k) {
  const uint64_t lo = k * L.per;
  return {lo, lo + L.per < count ? lo + L.per : count};
}

// Claims the call's rounds and cells from the team's counts (every message of a round has the
// round's piece of `count`). Read by the whole group, advanced by its first thread after
// everyone has read them.
template <class G>
GSHMEM_HD LLRounds ll_rounds(const Workspace& ws, size_t es, uint64_t count) {
  volatile uint64_t* h = &ll_head(ws)->round;
  LLRounds L;
  L.start = {h[0], h[1], h[1]};
  L.per = kLLPayloadBytes / es;
  L.n = ceil_div(count, L.per);
  L.cells = ll_cells(ws);
  G::sync();
  if (G::rank() == 0) {
    LLRound x = L.start;
    for (uint64_t k = 0; k < L.n; ++k) x = ll_next(x, ll_piece(L, count, k).size() * es, L.cells);
    h[0] = x.tag;
    h[1] = x.end;
  }
  return L;
}

// Writer: waits until member m's ring has room for round x (m has read up to x.end minus the
// ring's cells), and returns the round's message in m's memory.
template <class G>
GSHMEM_HD char* ll_send_begin(const Workspace& ws, int m, const LLRound& x) {
  const uint64_t cells = ll_cells(ws);
  if (G::rank() == 0 && x.end > cells) {
    LLHead* h = ll_head(ws);
    const uint64_t want = x.end - cells;
    if (h->seen[m] < want) {
      const LLHead* peer = reinterpret_cast<const LLHead*>(peer_ptr(ws, m, ll_off(ws)));
      wait_for(ws.c, Site{ws.call, world(ws, m)},
               [&] { return load_acquire(&peer->done) >= want; });
      h->seen[m] = load_acquire(&peer->done);
    }
  }
  G::sync();
  return peer_ptr(ws, m, ll_off(ws) + ll_cell_off(ws, ws.team.my_index, x.first));
}

// Writer: sends `bytes` at `src` to member m as round x.
template <class G>
GSHMEM_HD void ll_send(const Workspace& ws, int m, const LLRound& x, const void* src,
                       uint64_t bytes) {
  char* msg = ll_send_begin<G>(ws, m, x);
  if (bytes) gshmem::detail::group_copy<G>(msg + kLLDataAt, src, bytes);
  G::sync();
  if (G::rank() == 0) {
#if GSHMEM_ON_DEVICE
    gshmem::detail::thread_fence_system();
#endif
    gshmem::detail::atomic_ref<uint64_t>(*reinterpret_cast<uint64_t*>(msg))
        .store(x.tag, gshmem::detail::release);
  }
}

// Reader: waits for member m's message of round x; returns its data (in this PE's memory).
template <class G>
GSHMEM_HD const char* ll_recv(const Workspace& ws, int m, const LLRound& x) {
  const char* msg = ws.c.heap.base + ll_off(ws) + ll_cell_off(ws, m, x.first);
  if (G::rank() == 0) {
    const uint64_t* t = reinterpret_cast<const uint64_t*>(msg);
    wait_for(ws.c, Site{ws.call, world(ws, m)}, [&] { return load_acquire(t) == x.tag; });
  }
  G::sync();
  return msg + kLLDataAt;
}

// Every member, at the end of each round (a member that read nothing too, or writers of later
// rounds would wait for it): clears the cells of the messages it read (from P index `from`, or
// every other member when from < 0; none when from == P.me) and says it is done with round x.
template <class G>
GSHMEM_HD void ll_done(const Workspace& ws, const Peers& P, const LLRound& x, int from) {
  G::sync();
  char* base = ws.c.heap.base + ll_off(ws);
  const uint64_t cells = x.end - x.first;
  for (int i = 1; i < P.n && from != P.me; ++i) {
    const int j = (P.me + i) % P.n;
    if (from >= 0 && j != from) continue;
    for (uint64_t c = G::rank(); c < cells; c += G::size()) {
      *reinterpret_cast<volatile uint64_t*>(base + ll_cell_off(ws, P.member(j), x.first + c)) = 0;
    }
  }
  G::sync();
  if (G::rank() == 0) {
    gshmem::detail::atomic_ref<uint64_t>(ll_head(ws)->done).store(x.end, gshmem::detail::release);
  }
}

}  // namespace detail

// The reductions. AllReduce (root < 0, stride 0): every writer sends its piece to every member,
// and each reduces the members' pieces; Reduce (root >= 0): to the root only; ReduceScatter
// (stride a.count): block j of every src goes to member j. Always in member order.
template <class G, class R>
GSHMEM_HD void ll_reduce(const Workspace& ws, const Peers& P, const R& r, const CallArgs& a,
                         int root, uint64_t stride) {
  using namespace detail;
  const size_t es = r.esize();
  const LLRounds L = ll_rounds<G>(ws, es, a.count);
  const char* src = static_cast<const char*>(a.src);
  char* dst = static_cast<char*>(a.dst);
  LLRound x = L.start;
  for (uint64_t k = 0; k < L.n; ++k) {
    const Range p = ll_piece(L, a.count, k);
    const uint64_t bytes = p.size() * es;
    x = ll_next(x, bytes, L.cells);
    for (int i = 1; i < P.n; ++i) {
      const int j = (P.me + i) % P.n;
      if (root < 0 || j == root) {
        ll_send<G>(ws, P.member(j), x, src + (uint64_t(j) * stride + p.lo) * es, bytes);
      }
    }
    const bool reads = root < 0 || P.me == root;
    if (reads) {
      reduce_all<G>(r, dst + p.lo * es, P.n, p.size(), [&](int j) -> const void* {
        return j == P.me ? src + (uint64_t(P.me) * stride + p.lo) * es
                         : ll_recv<G>(ws, P.member(j), x);
      });
    }
    ll_done<G>(ws, P, x, reads ? -1 : P.me);
  }
}

// AllGather (root < 0: every member's src lands as block j of every dst) and Broadcast (only the
// root's src, into every dst).
template <class G>
GSHMEM_HD void ll_gather(const Workspace& ws, const Peers& P, size_t es, const CallArgs& a,
                         int root) {
  using namespace detail;
  const LLRounds L = ll_rounds<G>(ws, es, a.count);
  const char* src = static_cast<const char*>(a.src);
  char* dst = static_cast<char*>(a.dst);
  const bool sends = root < 0 || P.me == root;
  const uint64_t my_block = root < 0 ? uint64_t(P.me) * a.count : 0;
  LLRound x = L.start;
  for (uint64_t k = 0; k < L.n; ++k) {
    const Range p = ll_piece(L, a.count, k);
    const uint64_t bytes = p.size() * es;
    x = ll_next(x, bytes, L.cells);
    if (sends) {
      for (int i = 1; i < P.n; ++i) {
        ll_send<G>(ws, P.member((P.me + i) % P.n), x, src + p.lo * es, bytes);
      }
      copy<G>(dst + (my_block + p.lo) * es, src + p.lo * es, bytes);
    }
    for (int i = 1; i < P.n && !(root >= 0 && P.me == root); ++i) {
      const int j = (P.me + i) % P.n;
      if (root >= 0 && j != root) continue;
      const uint64_t block = root < 0 ? uint64_t(j) * a.count : 0;
      copy<G>(dst + (block + p.lo) * es, ll_recv<G>(ws, P.member(j), x), bytes);
    }
    ll_done<G>(ws, P, x, root);  // AllGather: root < 0, every member
  }
}

// Whether the LL protocol carries `coll` (with the direct algorithm).
GSHMEM_HD constexpr bool ll_implements(Coll coll) {
  return coll != Coll::AllToAll;
}

// Runs a call with the LL protocol (one channel: the call's rounds follow one another).
template <class G, class R>
GSHMEM_HD void ll_run(const Workspace& ws, const Peers& P, const R& r, Coll coll,
                      const CallArgs& a) {
  switch (coll) {
    case Coll::AllReduce:
      return ll_reduce<G>(ws, P, r, a, -1, 0);
    case Coll::Reduce:
      return ll_reduce<G>(ws, P, r, a, a.root, 0);
    case Coll::ReduceScatter:
      return ll_reduce<G>(ws, P, r, a, -1, a.count);
    case Coll::AllGather:
      return ll_gather<G>(ws, P, r.esize(), a, -1);
    case Coll::Broadcast:
      return ll_gather<G>(ws, P, r.esize(), a, a.root);
    default:
      return;
  }
}

}  // namespace gshmem::coll
