// The collectives' algorithm code run the way the collective kernel runs it: one host block per
// channel, all channels of a call at once (run_channel<Block> with the compile-time reducer that
// kernels use), for every collective and every algorithm the team's shape allows, over 1 to 4
// channels and chunk sizes that pipeline; with user buffers published in place where peers are
// mapped; the low-latency protocol on blocks. Then the team collectives kernels call
// (gshmem/coll/team.cuh) by a Warp and by a Block, interleaved with the host API on the same team.
// Results are exact (small integers, also in floating types).
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <string>
#include <thread>
#include <vector>

#include "collectives/coll_host.hpp"
#include "gshmem/coll/device.cuh"
#include "gshmem/coll/team.cuh"
#include "gshmem/collectives.h"
#include "gshmem/simt.hpp"
#include "tests/common/mp_util.hpp"

using namespace gshmem_test;
namespace gc = gshmem::coll;
namespace simt = gshmem::simt;
using gshmem::Block;
using gshmem::Warp;

namespace {

const gshmem::DeviceContext& ctx() {
  return gshmem::default_context();
}

// Member p's element i: small, so every sum and product is exact.
template <class T>
T value(int p, size_t i, size_t shift = 0) {
  i += shift;
  return T((p * 3 + int(i % 7)) % 5 + 1);
}

// The Workspace of a call on the world team, as the host API builds it (coll_api.cpp), with the
// plan given; the call's number advances the team's counter as every collective call does.
gc::Workspace workspace(gc::Algo algo, int nch, uint64_t chunk, const char* call,
                        gc::Proto proto = gc::Proto::Simple) {
  const gshmem::DeviceContext& c = ctx();
  gc::Workspace ws{};
  ws.c = c;
  ws.team = c.teams[GSHMEM_TEAM_WORLD];
  ws.call = call;
  ws.area_off = c.coll_area_off + uint64_t(GSHMEM_TEAM_WORLD) * c.coll_area_stride;
  ws.pool_off = c.coll_pool_off;
  ws.pool_bytes = c.coll_pool_bytes;
  ws.flag_stride = c.n_pes;
  ws.nch = nch;
  ws.chunk = chunk;
  ws.algo = algo;
  ws.sub = gc::Algo::Ring;
  ws.proto = proto;
  ws.node_size = algo == gc::Algo::Hier ? gc::team_shape(GSHMEM_TEAM_WORLD).ppn : 0;
  ws.seq = ++*reinterpret_cast<uint64_t*>(c.heap.base + ws.area_off);
  return ws;
}

struct Shape {
  uint64_t src, dst;  // elements of src and dst on this member
};

Shape shape_of(gc::Coll coll, size_t count, int n) {
  switch (coll) {
    case gc::Coll::AllGather:
      return {count, count * n};
    case gc::Coll::ReduceScatter:
      return {count * n, count};
    case gc::Coll::AllToAll:
      return {count * n, count * n};
    default:
      return {count, count};
  }
}

// What member `me` must hold in dst, element i (inputs value(p, i, shift)).
template <class T, class Op>
T expected(gc::Coll coll, size_t count, int n, int me, int root, size_t i, size_t shift = 0) {
  auto in = [&](int p, size_t at) { return value<T>(p, at, shift); };
  auto fold = [&](size_t at) {
    T acc = in(0, at);
    for (int p = 1; p < n; ++p) acc = Op::apply(acc, in(p, at));
    return acc;
  };
  switch (coll) {
    case gc::Coll::AllReduce:
    case gc::Coll::Reduce:
      return fold(i);
    case gc::Coll::ReduceScatter:
      return fold(size_t(me) * count + i);
    case gc::Coll::AllGather:
      return in(int(i / count), i % count);
    case gc::Coll::Broadcast:
      return in(root, i);
    case gc::Coll::AllToAll:  // block p of dst is block me of p's src
      return in(int(i / count), size_t(me) * count + i % count);
  }
  return T();
}

// Block `late` (if any) of the grid starts its channel `delay_ms` after the others.
struct Skew {
  int late = -1;
  int delay_ms = 0;
};

template <class T, class Op>
void channels(gc::Coll coll, gc::Algo algo, int nch, uint64_t chunk, size_t count, bool publish,
              gc::Proto proto = gc::Proto::Simple, Skew skew = {}) {
  const int me = gshmem_my_pe(), n = gshmem_n_pes(), root = n - 1;
  const Shape sh = shape_of(coll, count, n);
  SCOPED_TRACE(std::string(gc::coll_name(coll)) + " " + gc::algo_name(algo) + ", " +
               std::to_string(nch) + " channels, chunk " + std::to_string(chunk) + ", count " +
               std::to_string(count) + (publish ? ", published" : "") + ", protocol " +
               gc::proto_name(proto) + "; " + seed_note());
  T* src = static_cast<T*>(gshmem_malloc(sh.src * sizeof(T)));
  T* dst = static_cast<T*>(gshmem_malloc(sh.dst * sizeof(T)));
  ASSERT_TRUE(src && dst);
  for (uint64_t i = 0; i < sh.src; ++i) src[i] = value<T>(me, i);
  for (uint64_t i = 0; i < sh.dst; ++i) dst[i] = T(0);
  gshmem_barrier_all();  // symmetric buffers may be read in place
  gc::Workspace ws = workspace(algo, nch, chunk, "simt_channels", proto);
  gc::CallArgs a{src, dst, count, root, false, false};
  a.src_pub = publish;
  a.dst_pub = publish && coll == gc::Coll::AllReduce;
  const simt::Grid g{unsigned(nch), 16, 8};
  // A kernel's blocks: run_block runs channel block_in_grid() of the call.
  simt::run(g, [&](unsigned b) {
    if (int(b) == skew.late) std::this_thread::sleep_for(std::chrono::milliseconds(skew.delay_ms));
    gc::run_block<T, Op>(ws, coll, a);
  });
  const bool has_dst = coll != gc::Coll::Reduce || me == root;
  for (uint64_t i = 0; has_dst && i < sh.dst; ++i) {
    ASSERT_EQ(dst[i], (expected<T, Op>(coll, count, n, me, root, i))) << "element " << i;
  }
  gshmem_barrier_all();
  gshmem_free(dst);
  gshmem_free(src);
}

constexpr gc::Coll kColls[] = {gc::Coll::AllReduce,     gc::Coll::Reduce,    gc::Coll::AllGather,
                               gc::Coll::ReduceScatter, gc::Coll::Broadcast, gc::Coll::AllToAll};
constexpr gc::Algo kAlgos[] = {gc::Algo::Direct,  gc::Algo::Direct2, gc::Algo::Ring,
                               gc::Algo::Tree,    gc::Algo::RecDbl,  gc::Algo::Hier,
                               gc::Algo::Pairwise};

bool all_mapped() {
  return !split_nodes();
}

}  // namespace

TEST(SimtColl, EveryAlgorithmOnBlocks) {
  const gc::TeamShape shape = gc::team_shape(GSHMEM_TEAM_WORLD);
  const bool net = std::getenv("MP_TEST_PPN") != nullptr;
  for (gc::Coll coll : kColls) {
    for (gc::Algo algo : kAlgos) {
      if (!gc::applicable(coll, algo, shape)) continue;
      for (int nch : {1, 3}) {
        const size_t count = net ? 3001 : 20011;
        channels<int32_t, gc::OpSum>(coll, algo, nch, 4096, count, false);
        if (all_mapped()) channels<int32_t, gc::OpSum>(coll, algo, nch, 0, count, true);
      }
    }
  }
}

// The channels of a kernel run at once and need not keep pace: here the last channel starts late
// on even PEs and the first on odd ones, so each PE's early channels publish and wait for readers
// whose own channels are still to start. A channel must never wait for the readers of another
// channel's publication (it once did: the pool's acks were counted per half, not per channel, and
// these calls hung). The channel count changes from call to call, which moves the channels' parts
// of the pool.
TEST(SimtColl, ChannelsOutOfStep) {
  const gc::TeamShape shape = gc::team_shape(GSHMEM_TEAM_WORLD);
  if (!all_mapped()) GTEST_SKIP() << "the pull algorithms need every member mapped";
  const int me = gshmem_my_pe();
  for (gc::Coll coll :
       {gc::Coll::AllReduce, gc::Coll::AllGather, gc::Coll::ReduceScatter, gc::Coll::AllToAll}) {
    for (gc::Algo algo : {gc::Algo::Direct, gc::Algo::Direct2}) {
      if (!gc::applicable(coll, algo, shape)) continue;
      for (int nch : {3, 1, 4, 2}) {
        const Skew skew{nch == 1 ? -1 : me % 2 == 0 ? nch - 1 : 0, 50};
        channels<int32_t, gc::OpSum>(coll, algo, nch, 0, 20011, false, gc::Proto::Simple, skew);
        channels<int32_t, gc::OpSum>(coll, algo, nch, 0, 20011, true, gc::Proto::Simple, skew);
      }
    }
  }
}

// Calls back to back with no barrier in between, as kernels on a stream run them: collective,
// algorithm, channel count (which moves the channels' parts of the pool), size, root and whether
// buffers are read in place all change from call to call (the same pseudo-random sequence on
// every PE), and blocks start up to 3 ms late, so readers of one call still read while their
// publisher starts the next.
TEST(SimtColl, CallsBackToBack) {
  const gc::TeamShape shape = gc::team_shape(GSHMEM_TEAM_WORLD);
  const int me = gshmem_my_pe(), n = gshmem_n_pes();
  constexpr size_t kMaxCount = 40000;
  constexpr int kBuffers = 3;  // a call's src is rewritten three calls later
  int32_t* srcs[kBuffers];
  int32_t* dsts[kBuffers];
  for (int b = 0; b < kBuffers; ++b) {
    srcs[b] = static_cast<int32_t*>(gshmem_malloc(kMaxCount * n * sizeof(int32_t)));
    dsts[b] = static_cast<int32_t*>(gshmem_malloc(kMaxCount * n * sizeof(int32_t)));
    ASSERT_TRUE(srcs[b] && dsts[b]);
  }
  const int nchs[] = {5, 1, 3, 16, 4, 2, 7};
  const size_t counts[] = {1, 777, 20011, kMaxCount, 8191};
  uint64_t state = 12345;
  auto next = [&] {
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    return state >> 33;
  };
  gshmem_barrier_all();
  for (int k = 0; k < 60; ++k) {
    const gc::Coll coll = kColls[next() % std::size(kColls)];
    const gc::Algo algo = kAlgos[next() % std::size(kAlgos)];
    const int nch = nchs[next() % std::size(nchs)];
    const size_t count = counts[next() % std::size(counts)];
    const bool publish = next() % 2 && all_mapped();
    const int root = int(next() % uint64_t(n));
    const uint64_t chunk = next() % 2 ? 0 : 4096;
    if (!gc::applicable(coll, algo, shape)) continue;
    SCOPED_TRACE("call " + std::to_string(k) + ": " + gc::coll_name(coll) + " " +
                 gc::algo_name(algo) + ", " + std::to_string(nch) + " channels, count " +
                 std::to_string(count) + (publish ? ", published" : "") + ", root " +
                 std::to_string(root) + "; " + seed_note());
    int32_t* src = srcs[k % kBuffers];
    int32_t* dst = dsts[k % kBuffers];
    const Shape sh = shape_of(coll, count, n);
    for (uint64_t i = 0; i < sh.src; ++i) src[i] = value<int32_t>(me, i, size_t(k));
    for (uint64_t i = 0; i < sh.dst; ++i) dst[i] = -7;
    gc::Workspace ws = workspace(algo, nch, chunk, "simt_back_to_back");
    gc::CallArgs a{src, dst, count, root, false, false};
    a.src_pub = publish;
    a.dst_pub = publish && coll == gc::Coll::AllReduce;
    simt::run({unsigned(nch), 16, 8}, [&](unsigned b) {
      const uint64_t h =
          (uint64_t(me) * 1000003u + uint64_t(k) * 7919u + b * 104729u) * 2654435761u;
      if ((h >> 20) % 3 == 0)
        std::this_thread::sleep_for(std::chrono::microseconds((h >> 7) % 3000));
      gc::run_block<int32_t, gc::OpSum>(ws, coll, a);
    });
    const bool has_dst = coll != gc::Coll::Reduce || me == root;
    for (uint64_t i = 0; has_dst && i < sh.dst; ++i) {
      ASSERT_EQ(dst[i], (expected<int32_t, gc::OpSum>(coll, count, n, me, root, i, size_t(k))))
          << "element " << i;
    }
  }
  gshmem_barrier_all();
  for (int b = 0; b < kBuffers; ++b) {
    gshmem_free(dsts[b]);
    gshmem_free(srcs[b]);
  }
}

// Other element types and operators, a tail shorter than a channel, four channels.
TEST(SimtColl, TypesAndOperators) {
  const gc::TeamShape shape = gc::team_shape(GSHMEM_TEAM_WORLD);
  for (gc::Algo algo : {gc::Algo::Ring, gc::Algo::Direct, gc::Algo::RecDbl}) {
    if (!gc::applicable(gc::Coll::AllReduce, algo, shape)) continue;
    channels<float, gc::OpSum>(gc::Coll::AllReduce, algo, 4, 1024, 5003, false);
    channels<double, gc::OpProd>(gc::Coll::AllReduce, algo, 2, 0, 3, false);
    channels<int64_t, gc::OpMax>(gc::Coll::AllReduce, algo, 4, 512, 777, false);
    channels<uint8_t, gc::OpBxor>(gc::Coll::ReduceScatter, gc::Algo::Ring, 3, 256, 1001, false);
  }
}

// The low-latency protocol on blocks (one channel): every collective it carries, from one
// element to several rounds (a round carries at most gc::kLLPayloadBytes), each size several
// times with no barrier in between (the ring wraps and writers run ahead of readers).
TEST(SimtColl, LowLatencyOnBlocks) {
  if (!all_mapped()) GTEST_SKIP() << "the LL protocol needs every member mapped";
  if (gshmem_n_pes() > gc::kLLMaxMembers) GTEST_SKIP() << "LL teams have at most 8 members";
  for (gc::Coll coll : kColls) {
    if (!gc::ll_implements(coll)) continue;
    for (size_t count : {size_t(1), size_t(13), size_t(1020), size_t(1021), size_t(5003)}) {
      for (int rep = 0; rep < 3; ++rep) {
        channels<int32_t, gc::OpSum>(coll, gc::Algo::Direct, 1, 0, count, false, gc::Proto::LL);
      }
    }
  }
  channels<double, gc::OpProd>(gc::Coll::AllReduce, gc::Algo::Direct, 1, 0, 777, false,
                               gc::Proto::LL);
  channels<uint8_t, gc::OpBxor>(gc::Coll::ReduceScatter, gc::Algo::Direct, 1, 0, 4097, false,
                                gc::Proto::LL);
}

namespace {

// Team collectives by one group of each member: reductions, fcollect, alltoall, broadcast from
// every root, in place and not, then the host API on the same team (one call counter).
template <class G>
void team_calls(const simt::Grid& g, size_t count) {
  const int me = gshmem_my_pe(), n = gshmem_n_pes();
  SCOPED_TRACE(std::string(G::name) + ", count " + std::to_string(count) + "; " + seed_note());
  std::vector<int32_t> src(count * n), dst(count * n, -1), bsrc(count);
  for (size_t i = 0; i < src.size(); ++i) src[i] = value<int32_t>(me, i);
  std::vector<int32_t> inplace(count);
  std::vector<std::vector<int32_t>> bcast(size_t(n), std::vector<int32_t>(count, -1));
  std::atomic<int> failed{0};
  simt::run(g, [&](unsigned) {
    if (Block::rank() >= G::size()) return;  // one group: the first warp or the block
    const gshmem_team_t w = GSHMEM_TEAM_WORLD;
    failed += gc::team_reduce<G, int32_t, gc::OpSum>(ctx(), w, dst.data(), src.data(), count,
                                                     "simt_reduce") != 0;
    G::sync();  // every member of the group read its result before the next call writes dst
    if (G::rank() == 0) {
      for (size_t i = 0; i < count; ++i) {
        int32_t want = 0;
        for (int p = 0; p < n; ++p) want += value<int32_t>(p, i);
        failed += dst[i] != want;
      }
      for (size_t i = 0; i < count; ++i) inplace[i] = value<int32_t>(me, i);
    }
    G::sync();
    failed += gc::team_reduce<G, int32_t, gc::OpMin>(ctx(), w, inplace.data(), inplace.data(),
                                                     count, "simt_reduce") != 0;
    failed += gc::team_fcollect<G>(ctx(), w, dst.data(), src.data(), count, "simt_fcollect") != 0;
    if (G::rank() == 0) {
      for (size_t i = 0; i < count * n; ++i)
        failed += dst[i] != value<int32_t>(int(i / count), i % count);
      for (size_t i = 0; i < count; ++i) {
        int32_t want = value<int32_t>(0, i);
        for (int p = 1; p < n; ++p) want = std::min(want, value<int32_t>(p, i));
        failed += inplace[i] != want;
      }
    }
    G::sync();
    failed += gc::team_alltoall<G>(ctx(), w, dst.data(), src.data(), count, "simt_alltoall") != 0;
    if (G::rank() == 0) {
      for (size_t i = 0; i < count * n; ++i)
        failed += dst[i] != value<int32_t>(int(i / count), size_t(me) * count + i % count);
    }
    for (int root = 0; root < n; ++root) {
      failed += gc::team_broadcast<G>(ctx(), w, bcast[root].data(), src.data(), count, root,
                                      "simt_broadcast") != 0;
    }
    if (G::rank() == 0) {
      for (int root = 0; root < n; ++root) {
        for (size_t i = 0; i < count; ++i) failed += bcast[root][i] != value<int32_t>(root, i);
      }
    }
  });
  EXPECT_EQ(failed.load(), 0);
  // The host API on the same team, then the group form again: the counter stays in step.
  int64_t x = me, host = 0, dev = 0;
  EXPECT_EQ(gshmem_allreduce(GSHMEM_TEAM_WORLD, &host, &x, 1, GSHMEM_INT64, GSHMEM_SUM, nullptr),
            0);
  simt::run(g, [&](unsigned) {
    if (Block::rank() >= G::size()) return;
    gc::team_reduce<G, int64_t, gc::OpSum>(ctx(), GSHMEM_TEAM_WORLD, &dev, &x, 1, "simt_reduce");
  });
  EXPECT_EQ(host, int64_t(n) * (n - 1) / 2);
  EXPECT_EQ(dev, host);
}

}  // namespace

TEST(SimtColl, TeamCollectivesByWarpAndBlock) {
  const bool net = std::getenv("MP_TEST_PPN") != nullptr;
  for (size_t count : {size_t(1), size_t(333), size_t(net ? 5000 : 40000)}) {
    team_calls<Warp>({1, 16, 8}, count);
    team_calls<Block>({1, 16, 8}, count);
    team_calls<Warp>({1, 32, 32}, count);
  }
}
