// The state a collective runs on, and the two ways its algorithms move data, written over the
// device API (signal_op, putmem_signal, wait_for) for any thread group G.
//
// Memory. Every PE has
//   - per team slot, an *area* next to the team's sync words (zeroed when the team is created):
//     one flag word per (kind, channel, slot, source member), then the team's low-latency
//     buffers (ll.cuh);
//   - one *pool* of scratch (GSHMEM_COLL_SCRATCH), shared by all teams, at the same heap offset on
//     every PE, starting with a PoolHeader.
//
// Tags. A flag is only ever SET, to tag(seq, step) = seq << 32 | (step + 1) << 1, where seq counts
// this team's collective calls and step counts uses of the flag within the call. Tags only grow, so
// back-to-back calls need no reset and no barrier: a waiter for tag t cannot be fooled by an
// older value, and the protocols below make sure a flag is SET again only after its previous value
// has been seen, so on an unordered network a late SET can never overwrite a newer one.
//
// Push (any link; ring, tree, recursive doubling, pairwise): a directed link from a sender to a
// receiver has kSlots receive slots in the receiver's pool. The sender waits for the slot's
// credit, writes it with putmem_signal (SET kData), the receiver waits for kData, consumes, and
// SETs the next credit. The receiver grants the first credits when it reaches the link in this
// call, and never more than the call uses, so a peer never writes into a PE's pool before that PE
// is in the same call (which is what lets all teams share one pool).
//
// Pull (mapped peers only; the direct algorithms): a PE *publishes* data (a copy at a fixed place
// in its pool, or a symmetric user buffer whose offset it writes into its PoolHeader) by SETting
// kPub at each reader; readers load or reduce straight from the publisher's memory, then *ack*
// (ADD) to the publisher's PoolHeader. The pool is used in two halves, alternating by
// (seq + round), each split among the call's channels. Acks are counted per (channel, half):
// channels of a kernel run at once, and one channel must never wait for the readers of another
// channel's publication of the same call (those readers may be waiting for it: a cycle). Before
// channel ch writes its part of a half again, it waits until every reader of its own last
// publication there acked, and for every other channel c until c's publications there are acked
// or c has itself drained the half in this call (which covers c's earlier calls, whose regions may
// overlap this one when the channel count changed). Calls that publish user buffers wait for all
// acks before returning.
//
// One collective at a time per PE (the pool is shared): CPU PEs call them in order; a GPU layer
// that runs collectives of several streams at once needs a pool per stream.
#pragma once

#include "gshmem/coll/numeric.cuh"
#include "gshmem/device/context.cuh"
#include "gshmem/device/group.cuh"
#include "gshmem/device/signal.cuh"
#include "gshmem/device/wait.cuh"

namespace gshmem::coll {

inline constexpr int kMaxChannels = 16;  // a kernel block (256 threads) each on a GPU
inline constexpr int kSlots = 2;
inline constexpr int kFlagKinds = 4;
inline constexpr uint64_t kAreaHeaderBytes = 64;
inline constexpr uint64_t kPoolHeaderBytes = 4096;
inline constexpr uint64_t kAlign = 64;

// The low-latency protocol's buffers (ll.cuh): per team, a 192-byte head and a ring per source
// member, for teams of up to kLLMaxMembers.
inline constexpr int kLLMaxMembers = 8;
inline constexpr uint64_t kLLHeadBytes = 192;

GSHMEM_HD constexpr int ll_members(int n_pes) {
  return n_pes < kLLMaxMembers ? n_pes : kLLMaxMembers;
}

// A ring's bytes in a job of n_pes PEs: the rings of a team slot take at most 128 KiB (8 MiB for
// the 64 slots), a ring at most 32 KiB. The depth is how many messages a writer may run ahead of
// its slowest reader. With more PEs than cores that is how many calls a PE makes between two
// context switches: a 3-PE 8-byte broadcast on 2 cores took 0.12 us per call with 8 KiB rings
// and 0.10 us with 32 KiB (a switch costs 1.5 us there). A power of two, at least
// kLLMinRingBytes.
inline constexpr uint64_t kLLMinRingBytes = 16u << 10;
GSHMEM_HD constexpr uint64_t ll_ring_bytes(int n_pes) {
  return ll_members(n_pes) <= 4 ? (32u << 10) : kLLMinRingBytes;
}

// Bytes of one team's flag words in a job of n_pes PEs.
GSHMEM_HD constexpr uint64_t team_flag_bytes(int n_pes) {
  return 8ull * kFlagKinds * kMaxChannels * kSlots * uint64_t(n_pes);
}

// Bytes of one team's collective area in a job of n_pes PEs: header, flags, LL buffers.
GSHMEM_HD constexpr uint64_t team_area_bytes(int n_pes) {
  return kAreaHeaderBytes + team_flag_bytes(n_pes) + kLLHeadBytes +
         uint64_t(ll_members(n_pes)) * ll_ring_bytes(n_pes);
}

// The pool GSHMEM_COLL_SCRATCH asks for: at least 256 KiB, whole pages.
GSHMEM_HD constexpr uint64_t scratch_bytes(uint64_t requested) {
  uint64_t b = requested < (256u << 10) ? (256u << 10) : requested;
  return (b + 4095) / 4096 * 4096;
}

enum class Coll : uint8_t { AllReduce, Reduce, AllGather, ReduceScatter, Broadcast, AllToAll };
inline constexpr int kNumColls = 6;

// Direct: mapped peers, one stage (each PE reads what it needs from every peer).
// Direct2: mapped peers, reduce-scatter then all-gather stages (AllReduce, Reduce).
// Ring, Tree (binary; odd channels use the mirrored tree, so two channels make a double binary
// tree), RecDbl (recursive doubling for AllReduce; the dissemination schedule for AllGather and,
// reversed, ReduceScatter: log2 rounds for any n), Pairwise (AlltoAll): pushes over any link.
// Hier: inside each node (direct), across nodes (ring or recursive doubling), inside again.
enum class Algo : uint8_t { Auto, Direct, Direct2, Ring, Tree, RecDbl, Hier, Pairwise };
inline constexpr int kNumAlgos = 8;

// How a call's data travels. Simple: the push and pull protocols below (data, then a flag; the
// pull side acks). LL: the low-latency protocol of ll.cuh (data and its arrival tag written
// together into the reader's buffer, several calls in flight; the direct algorithms, small
// messages). Auto is the planner's to resolve: a Workspace holds Simple or LL.
enum class Proto : uint8_t { Auto, Simple, LL };
inline constexpr int kNumProtos = 3;

enum Flag : uint32_t { kData = 0, kCredit = 1, kPub0 = 2, kPub1 = 3 };

// At the start of every PE's pool.
struct PoolHeader {
  // Channel ch's publications in one half, a line of its own: the acks its readers ADDed, and,
  // written only here by channel ch, the acks they are owed and the call (drain_mark) that last
  // drained the half for it.
  struct Use {
    uint64_t acks;
    uint64_t expected;
    uint64_t drained;
    uint64_t unused[5];
  } use[kMaxChannels][2];
  uint64_t channels[8];  // [0]: bit ch is set once channel ch has published (written only here)
  uint64_t pub[kMaxChannels][2][2][2];  // [ch][half][stage]: {heap offset, block stride in bytes}
};
static_assert(sizeof(PoolHeader) <= kPoolHeaderBytes);

// One call as every member sees it. Trivially copyable: a kernel gets it by value.
struct Workspace {
  DeviceContext c;
  TeamInfo team;
  const char* call;     // API name for wait diagnostics
  uint64_t area_off;    // heap offset of this team's collective area
  uint64_t pool_off;    // heap offset of the pool (the same on every PE)
  uint64_t pool_bytes;  // including the header
  uint64_t seq;         // this call's number on the team, from 1; 0: see call_seq
  int32_t flag_stride;  // members per flag array (the job's PE count)
  // The plan (identical on every member).
  int32_t nch;     // channels
  uint64_t chunk;  // pipelining unit in bytes
  Algo algo;
  Algo sub;           // Hier: the cross-node algorithm (Ring or RecDbl)
  Proto proto;        // Simple (also for Auto) or LL (Direct only, one channel)
  int32_t node_size;  // Hier: team members per node
};
static_assert(std::is_trivially_copyable_v<Workspace>);

// The buffers and shape of a call. `root` is a team index. src_pub / dst_pub: the buffer is in the
// symmetric heap and this PE does not write it during the call, so mapped peers may read it in
// place (the call then waits for them before it returns).
struct CallArgs {
  const void* src;
  void* dst;
  uint64_t count;
  int32_t root;
  bool src_pub;
  bool dst_pub;
};

// A set of team members an algorithm runs over: member i is team index first + i * stride.
struct Peers {
  int32_t n;
  int32_t me;
  int32_t first;
  int32_t stride;
  GSHMEM_HD GSHMEM_INLINE int32_t member(int32_t i) const { return first + i * stride; }
};

GSHMEM_HD GSHMEM_INLINE Peers whole_team(const Workspace& ws) {
  return {ws.team.size, ws.team.my_index, 0, 1};
}

// Elements [lo, hi) of `count` that part `i` of `parts` handles (contiguous, sizes differ by <= 1).
struct Range {
  uint64_t lo, hi;
  GSHMEM_HD GSHMEM_INLINE uint64_t size() const { return hi - lo; }
};
GSHMEM_HD GSHMEM_INLINE Range split(uint64_t count, int parts, int i) {
  uint64_t q = count / uint64_t(parts), r = count % uint64_t(parts);
  uint64_t lo = uint64_t(i) * q + (uint64_t(i) < r ? uint64_t(i) : r);
  return {lo, lo + q + (uint64_t(i) < r ? 1 : 0)};
}

GSHMEM_HD GSHMEM_INLINE uint64_t ceil_div(uint64_t a, uint64_t b) {
  return (a + b - 1) / b;
}

// ---- Push: links with receive slots in the receiver's pool -----------------------------------

// Receive regions: for each (channel, inbound link index, slot) `slot_bytes` at the same offset
// on every PE.
struct PushLayout {
  uint64_t base_off;
  uint64_t slot_bytes;
  int32_t nin;
};

GSHMEM_HD GSHMEM_INLINE PushLayout push_layout(const Workspace& ws, int nin) {
  uint64_t usable = ws.pool_bytes - kPoolHeaderBytes;
  uint64_t slot = usable / (uint64_t(ws.nch) * uint64_t(nin) * kSlots) / kAlign * kAlign;
  return {ws.pool_off + kPoolHeaderBytes, slot, nin};
}

GSHMEM_HD GSHMEM_INLINE uint64_t slot_off(const PushLayout& L, int ch, int in, int slot) {
  return L.base_off +
         ((uint64_t(ch) * uint64_t(L.nin) + uint64_t(in)) * kSlots + uint64_t(slot)) * L.slot_bytes;
}

// Elements per pipelining step: the planner's chunk, bounded by a slot.
GSHMEM_HD GSHMEM_INLINE uint64_t chunk_elems(const Workspace& ws, const PushLayout& L,
                                             size_t esize) {
  uint64_t bytes = ws.chunk && ws.chunk < L.slot_bytes ? ws.chunk : L.slot_bytes;
  uint64_t e = bytes / esize;
  return e ? e : 1;
}

// One direction of a link. `in` is the receive region index at the receiving end; `total` the
// steps this call makes on it (both ends compute the same number).
struct Link {
  int32_t member;
  int32_t in;
  uint32_t step;
  uint32_t total;
};

GSHMEM_HD GSHMEM_INLINE Link make_link(int member, int in, uint64_t total) {
  return {member, in, 0, uint32_t(total)};
}

namespace detail {

using gshmem::detail::load_acquire;
using gshmem::detail::wait_for;

#if defined(__CUDACC__)
// The collective kernel's call number (collectives/coll_kernel.cu claims it when the kernel
// starts: a CUDA graph's replays make new calls), one word of the block's shared memory. The
// kernel runs on its Workspace parameter as it came, seq 0: a modified copy would put every
// field of it in registers for the whole kernel, which then spills.
__device__ GSHMEM_INLINE uint64_t& kernel_call_seq() {
  __shared__ uint64_t seq;
  return seq;
}
#endif

// This call's number: ws.seq, or in the collective kernel (seq 0) the one it claimed.
GSHMEM_HD GSHMEM_INLINE uint64_t call_seq(const Workspace& ws) {
#if GSHMEM_ON_DEVICE
  if (ws.seq == 0) return kernel_call_seq();
#endif
  return ws.seq;
}

// Bit 0 is left free for kElsewhere; tags of later steps compare greater with or without it.
GSHMEM_HD GSHMEM_INLINE uint64_t tag(const Workspace& ws, uint64_t step) {
  return (call_seq(ws) << 32) | ((step + 1) << 1);
}

GSHMEM_HD GSHMEM_INLINE int world(const Workspace& ws, int member) {
  return ws.team.world_pe(member);
}

// This PE's copy of flag (k, ch, slot, src); the same address names it on every member.
GSHMEM_HD GSHMEM_INLINE uint64_t* flag(const Workspace& ws, Flag k, int ch, int slot, int src) {
  uint64_t idx = ((uint64_t(k) * kMaxChannels + uint64_t(ch)) * kSlots + uint64_t(slot)) *
                     uint64_t(ws.flag_stride) +
                 uint64_t(src);
  return reinterpret_cast<uint64_t*>(ws.c.heap.base + ws.area_off + kAreaHeaderBytes) + idx;
}

GSHMEM_HD GSHMEM_INLINE PoolHeader* pool_header(const Workspace& ws) {
  return reinterpret_cast<PoolHeader*>(ws.c.heap.base + ws.pool_off);
}

// A mapped peer's copy of a symmetric heap offset.
GSHMEM_HD GSHMEM_INLINE char* peer_ptr(const Workspace& ws, int member, uint64_t off) {
  return ws.c.heap.peer_base[world(ws, member)] + off;
}

GSHMEM_HD GSHMEM_INLINE bool mapped(const Workspace& ws, int member) {
  return ws.c.heap.peer_base[world(ws, member)] != nullptr;
}

GSHMEM_HD GSHMEM_INLINE uint64_t heap_off(const Workspace& ws, const void* p) {
  return uint64_t(static_cast<const char*>(p) - ws.c.heap.base);
}

// SETs flag (k, ch, slot, <me>) at member `to`, after everything the group wrote before.
template <class G>
GSHMEM_HD void notify(const Workspace& ws, Flag k, int ch, int slot, int to, uint64_t value) {
  G::sync();
  if (G::rank() == 0) {
    gshmem::detail::thread_fence_system();
    signal_op(ws.c, flag(ws, k, ch, slot, ws.team.my_index), value, GSHMEM_SIGNAL_SET,
              world(ws, to), {ws.call});
  }
  G::sync();
}

// Waits until this PE's flag (k, ch, slot, from) reaches `value`.
template <class G>
GSHMEM_HD void await(const Workspace& ws, Flag k, int ch, int slot, int from, uint64_t value) {
  if (G::rank() == 0) {
    const uint64_t* f = flag(ws, k, ch, slot, from);
    wait_for(ws.c, Site{ws.call, world(ws, from)}, [&] { return load_acquire(f) >= value; });
  }
  G::sync();
}

// ---- Pull: publications in the two halves of the pool ----------------------------------------

GSHMEM_HD GSHMEM_INLINE int half_of(const Workspace& ws, uint32_t round) {
  return int((call_seq(ws) + round) & 1);
}

// A half of the pool. It starts at the same place whatever a call's channel count, so a half's
// guard covers everything that half ever held.
GSHMEM_HD GSHMEM_INLINE uint64_t half_span(const Workspace& ws) {
  return (ws.pool_bytes - kPoolHeaderBytes) / 2 / kAlign * kAlign;
}

// One channel's part of a half.
GSHMEM_HD GSHMEM_INLINE uint64_t half_bytes(const Workspace& ws) {
  return half_span(ws) / uint64_t(ws.nch) / kAlign * kAlign;
}

// Heap offset of this PE's region for (channel, half).
GSHMEM_HD GSHMEM_INLINE uint64_t half_off(const Workspace& ws, int ch, int h) {
  return ws.pool_off + kPoolHeaderBytes + uint64_t(h) * half_span(ws) +
         uint64_t(ch) * half_bytes(ws);
}

// This call as the pool's drain marks name it: its number on the team, and the team (the pool is
// shared by all teams, whose call numbers overlap and restart when a slot gets a new team).
GSHMEM_HD GSHMEM_INLINE uint64_t drain_mark(const Workspace& ws) {
  return ws.team.generation << 32 | (call_seq(ws) & 0xffffffffu);
}

// Channel c's publications in half h: all acked, or (when `other`) c has drained the half in this
// call, so those left are of this call, in c's own part of the half.
GSHMEM_HD GSHMEM_INLINE bool settled(const Workspace& ws, int c, int h, bool other) {
  PoolHeader* ph = pool_header(ws);
  if (other && load_acquire(&ph->use[c][h].drained) == drain_mark(ws)) return true;
  return load_acquire(&ph->use[c][h].acks) >= load_acquire(&ph->use[c][h].expected);
}

// Waits, the group's threads sharing the work, until every channel that ever published has its
// publications in halves [h0, h0 + nh) settled. `self` is the calling channel, whose own
// publications must all be acked; any other channel may instead have drained the half in this
// call. self < 0: every channel's must be acked.
template <class G>
GSHMEM_HD void await_settled(const Workspace& ws, int h0, int nh, int self) {
  const uint64_t used = load_acquire(&pool_header(ws)->channels[0]);
  for (int i = int(G::rank()); i < nh * kMaxChannels; i += int(G::size())) {
    const int c = i / nh, h = h0 + i % nh;
    if (!(used >> c & 1)) continue;
    wait_for(ws.c, Site{ws.call}, [&] { return settled(ws, c, h, self >= 0 && c != self); });
  }
  G::sync();
}

// Waits until channel ch may write its part of half h (see "Pull" above), then marks the half
// drained for ch in this call.
template <class G>
GSHMEM_HD void guard(const Workspace& ws, int ch, int h) {
  await_settled<G>(ws, h, 1, ch);
  if (G::rank() == 0) {
    gshmem::detail::atomic_ref<uint64_t>(pool_header(ws)->use[ch][h].drained)
        .store(drain_mark(ws), gshmem::detail::release);
  }
}

// Starts loading the ack counters the next call's guard reads (readers wrote them since): off
// the critical path here, a cache miss at the start of the next call otherwise. Host only.
GSHMEM_HD GSHMEM_INLINE void prefetch_guards(const Workspace& ws) {
#if !GSHMEM_ON_DEVICE
  __builtin_prefetch(&pool_header(ws)->use[0][0]);
  __builtin_prefetch(&pool_header(ws)->use[0][1]);
  __builtin_prefetch(&pool_header(ws)->channels[0]);
#else
  (void)ws;
#endif
}

// Waits until every publication of this PE, by any channel of any call, has been acked: before a
// call pushes into the pool (its receive slots span the channels' parts), and before a call that
// published user buffers returns.
template <class G>
GSHMEM_HD void guard_all(const Workspace& ws) {
  await_settled<G>(ws, 0, 2, -1);
}

// Tag bit of a publication whose data is not at its default place in the publisher's half (a
// user buffer read in place): the reader then takes the place from the PoolHeader. Copies sit at
// offsets both sides compute, which saves the reader a cache line from the publisher.
inline constexpr uint64_t kElsewhere = 1;

// Publishes `stage` of `round` on channel ch to every member of P but me, or only to P index
// `only`. `elsewhere`: the data is at heap offset `off` with blocks `stride` bytes apart, not at
// the default place the readers expect. Stage 0 counts the readers' acks; a reader acks once per
// round, after its last read.
template <class G>
GSHMEM_HD void publish(const Workspace& ws, const Peers& P, int ch, uint32_t round, int stage,
                       bool elsewhere, uint64_t off, uint64_t stride, int only = -1) {
  int h = half_of(ws, round);
  if (G::rank() == 0) {
    PoolHeader* ph = pool_header(ws);
    if (elsewhere) {
      ph->pub[ch][h][stage][0] = off;
      ph->pub[ch][h][stage][1] = stride;
    }
    if (stage == 0) {  // counted before any reader can see it; other channels read it
      gshmem::detail::atomic_ref<uint64_t> owed(ph->use[ch][h].expected);
      owed.store(owed.load(gshmem::detail::relaxed) + (only >= 0 ? 1 : uint64_t(P.n - 1)),
                 gshmem::detail::relaxed);
      gshmem::detail::atomic_ref<uint64_t> used(ph->channels[0]);
      if (!(used.load(gshmem::detail::relaxed) >> ch & 1)) {
        used.fetch_or(uint64_t(1) << ch, gshmem::detail::relaxed);
      }
    }
  }
  const Flag k = stage == 0 ? kPub0 : kPub1;
  const uint64_t t = tag(ws, round) | (elsewhere ? kElsewhere : 0);
  for (int i = 1; i < P.n; ++i) {
    int j = (P.me + i) % P.n;
    if (only < 0 || j == only) notify<G>(ws, k, ch, h, P.member(j), t);
  }
}

// A publication as its reader sees it: block b is at base + b * stride.
struct Published {
  const char* base;
  uint64_t stride;
};

// Waits for P index j's publication of (round, stage) on channel ch and returns where it is:
// `copy_off` bytes into j's half region with blocks `copy_stride` apart, unless j published
// elsewhere.
template <class G>
GSHMEM_HD Published wait_published(const Workspace& ws, const Peers& P, int ch, uint32_t round,
                                   int stage, int j, uint64_t copy_off, uint64_t copy_stride) {
  const int h = half_of(ws, round);
  const int m = P.member(j);
  const Flag k = stage == 0 ? kPub0 : kPub1;
  await<G>(ws, k, ch, h, m, tag(ws, round));
  if (!(load_acquire(flag(ws, k, ch, h, m)) & kElsewhere)) {
    return {peer_ptr(ws, m, half_off(ws, ch, h) + copy_off), copy_stride};
  }
  const PoolHeader* ph = reinterpret_cast<const PoolHeader*>(peer_ptr(ws, m, ws.pool_off));
  const volatile uint64_t* e = ph->pub[ch][h][stage];
  return {peer_ptr(ws, m, e[0]), e[1]};
}

// Tells P index j that this PE is done reading its publication of `round` on channel ch.
template <class G>
GSHMEM_HD void ack(const Workspace& ws, const Peers& P, int ch, uint32_t round, int j) {
  G::sync();
  if (G::rank() == 0) {
    int h = half_of(ws, round);
    signal_op(ws.c, &pool_header(ws)->use[ch][h].acks, 1, GSHMEM_SIGNAL_ADD, world(ws, P.member(j)),
              {ws.call});
  }
  G::sync();
}

// Receiver: grants the link's first credits. Call once the pool may be written (guard_all).
template <class G>
GSHMEM_HD void recv_begin(const Workspace& ws, int ch, const Link& l) {
  for (uint32_t s = 0; s < l.total && s < uint32_t(kSlots); ++s) {
    notify<G>(ws, kCredit, ch, int(s), l.member, tag(ws, s));
  }
}

// Receiver: waits for the next step's data; returns this PE's slot holding it.
template <class G>
GSHMEM_HD char* recv_wait(const Workspace& ws, const PushLayout& L, int ch, const Link& l) {
  int slot = int(l.step % kSlots);
  await<G>(ws, kData, ch, slot, l.member, tag(ws, l.step));
  return ws.c.heap.base + slot_off(L, ch, l.in, slot);
}

// Receiver: done with the step's slot (including any send from it); returns its credit.
template <class G>
GSHMEM_HD void recv_release(const Workspace& ws, int ch, Link& l) {
  uint32_t s = l.step++;
  if (s + kSlots < l.total)
    notify<G>(ws, kCredit, ch, int(s % kSlots), l.member, tag(ws, s + kSlots));
}

// Sender: waits for the credit of the next step. Returns the peer's slot when it is mapped here
// (produce the data straight into it, then send_end(nullptr)), else nullptr.
template <class G>
GSHMEM_HD char* send_begin(const Workspace& ws, const PushLayout& L, int ch, const Link& l) {
  int slot = int(l.step % kSlots);
  await<G>(ws, kCredit, ch, slot, l.member, tag(ws, l.step));
  return mapped(ws, l.member) ? peer_ptr(ws, l.member, slot_off(L, ch, l.in, slot)) : nullptr;
}

// Sender: delivers `bytes` at `local` (or, with local == nullptr, what was written into the peer's
// slot) and SETs the step's kData. Returns once `local` may be reused.
template <class G>
GSHMEM_HD void send_end(const Workspace& ws, const PushLayout& L, int ch, Link& l,
                        const void* local, uint64_t bytes) {
  uint32_t s = l.step++;
  int slot = int(s % kSlots);
  uint64_t* f = flag(ws, kData, ch, slot, ws.team.my_index);
  if (local) {
    char* dst = ws.c.heap.base + slot_off(L, ch, l.in, slot);
    putmem_signal<G>(ws.c, dst, local, bytes, f, tag(ws, s), GSHMEM_SIGNAL_SET, world(ws, l.member),
                     {ws.call});
  } else {
    notify<G>(ws, kData, ch, slot, l.member, tag(ws, s));
  }
}

template <class G>
GSHMEM_HD void send(const Workspace& ws, const PushLayout& L, int ch, Link& l, const void* local,
                    uint64_t bytes) {
  send_begin<G>(ws, L, ch, l);
  send_end<G>(ws, L, ch, l, local, bytes);
}

// Copies by the whole group, complete group-wide on return.
template <class G>
GSHMEM_HD GSHMEM_INLINE void copy(void* dst, const void* src, uint64_t bytes) {
  if (bytes && dst != src) gshmem::detail::group_copy<G>(dst, src, bytes);
  G::sync();
}

template <class G, class R>
GSHMEM_HD GSHMEM_INLINE void reduce(const R& r, void* out, const void* const* srcs, int nsrc,
                                    uint64_t count) {
  if (count) r.template reduce<G>(out, srcs, nsrc, count);
  G::sync();
}

template <class G, class R>
GSHMEM_HD GSHMEM_INLINE void reduce2(const R& r, void* out, const void* a, const void* b,
                                     uint64_t count) {
  const void* srcs[2] = {a, b};
  reduce<G>(r, out, srcs, 2, count);
}

// copy and reduce2 for an output that another PE reads next (a peer's receive slot, this PE's
// pool): a push (gshmem/device/group.cuh) on a CPU PE's own thread. A reduction streams when the
// thread's copy pushes do (it is not timed itself: its time is its arithmetic's too).
template <class G>
GSHMEM_HD GSHMEM_INLINE void push(void* dst, const void* src, uint64_t bytes) {
  if (bytes && dst != src) gshmem::detail::group_push<G>(dst, src, bytes);
  G::sync();
}

#if !GSHMEM_ON_DEVICE
inline constexpr uint64_t kPushPieceBytes = 4096;

// A streamed reduce2 by one host thread: kPushPieceBytes at a time into a buffer that stays in
// this core's cache, each piece streamed out. Out of line: the buffer is 64-byte aligned.
template <class R>
GSHMEM_HOST_NOINLINE void reduce2_streamed(const R& r, void* out, const void* a, const void* b,
                                           uint64_t count) {
  const uint64_t es = r.esize();
  alignas(64) char piece[kPushPieceBytes];
  const uint64_t per = kPushPieceBytes / es;
  for (uint64_t i = 0; i < count; i += per) {
    const uint64_t m = count - i < per ? count - i : per;
    const void* srcs[2] = {static_cast<const char*>(a) + i * es,
                           static_cast<const char*>(b) + i * es};
    r.template reduce<Thread>(piece, srcs, 2, m);
    gshmem::detail::stream_store(static_cast<char*>(out) + i * es, piece, m * es);
  }
  gshmem::detail::stream_fence();
}
#endif

template <class G, class R>
GSHMEM_HD GSHMEM_INLINE void reduce2_push(const R& r, void* out, const void* a, const void* b,
                                          uint64_t count) {
#if !GSHMEM_ON_DEVICE
  if constexpr (std::is_same_v<G, Thread>) {
    if (count * r.esize() >= gshmem::detail::kStreamMinBytes && out != a && out != b &&
        gshmem::detail::push_begin().stream) {
      return reduce2_streamed(r, out, a, b, count);
    }
  }
#endif
  reduce2<G>(r, out, a, b, count);
}

}  // namespace detail
}  // namespace gshmem::coll
