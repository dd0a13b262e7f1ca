#include "perftest/coll/floor.hpp"

#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstring>

#include "perftest/common/timing.hpp"

namespace collperf {

namespace {

using gshmem::coll::Algo;
using Clock = std::chrono::steady_clock;

// All PEs' arrays together are kFootprint times the last-level cache (at least 64 MiB), each
// array at least kMinArray: well beyond what the caches hold, and still quick to map and sweep
// (a measurement takes well under a second).
constexpr double kFootprint = 1.5;
constexpr size_t kMinArray = size_t(32) << 20;
constexpr int kReps = 3;

size_t last_level_cache() {
  for (int name : {_SC_LEVEL3_CACHE_SIZE, _SC_LEVEL2_CACHE_SIZE}) {
    long v = sysconf(name);
    if (v > 0) return size_t(v);
  }
  return 0;
}

double since(Clock::time_point t0) {
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

// STREAM's triad; restrict lets the compiler vectorise it.
void triad(double* __restrict a, const double* __restrict b, const double* __restrict c, size_t n,
           double q) {
  for (size_t i = 0; i < n; ++i) a[i] = b[i] + q * c[i];
}

// Bytes a reduction of k user inputs of `bytes` each into a user output reads and writes, with
// reduce_all's passes of at most 16 inputs (each later pass reads its previous output again).
double reduction(int k, double bytes) {
  const int passes = k <= 16 ? 1 : 1 + (k - 16 + 14) / 15;
  return (k + 1) * bytes + 2.0 * (passes - 1) * bytes;
}

// A binary tree of n members (tree.cuh: virtual index v has children 2v + 1 and 2v + 2).
int children(int v, int n) {
  return (2 * v + 1 < n) + (2 * v + 2 < n);
}

}  // namespace

MemoryBandwidth measure_memory(int npes, const std::function<void()>& barrier,
                               const std::function<double(double)>& slowest) {
  const Clock::time_point start = Clock::now();
  MemoryBandwidth bw;
  const size_t total = std::max(size_t(kFootprint * double(last_level_cache())), size_t(64) << 20);
  const size_t want = total / (3 * size_t(std::max(1, npes)));
  bw.array_bytes = (std::max(kMinArray, want) + (2u << 20) - 1) / (2u << 20) * (2u << 20);
  bw.reps = kReps;
  const size_t n = bw.array_bytes / sizeof(double);
  // One mapping for the three arrays, its pages made present at once (much cheaper than a fault
  // per page on first touch). Every PE reaches the barriers even when it got no memory, and then
  // all report 0.
  void* map = mmap(nullptr, 3 * bw.array_bytes, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
  const bool ok = map != MAP_FAILED;
  double* a = ok ? static_cast<double*>(map) : nullptr;
  double* b = ok ? a + n : nullptr;
  double* c = ok ? b + n : nullptr;
  double best_copy = 0, best_triad = 0;
  for (int r = 0; r < kReps; ++r) {
    barrier();
    Clock::time_point t0 = Clock::now();
    if (ok) std::memcpy(c, a, bw.array_bytes);
    perftest::keep(c);
    double t = slowest(since(t0));
    if (r == 0 || t < best_copy) best_copy = t;
    barrier();
    t0 = Clock::now();
    if (ok) triad(a, b, c, n, 3.0);
    perftest::keep(a);
    t = slowest(since(t0));
    if (r == 0 || t < best_triad) best_triad = t;
  }
  const bool all_ok = slowest(ok ? 0 : 1) == 0;
  if (ok) munmap(map, 3 * bw.array_bytes);
  if (all_ok && best_copy > 0 && best_triad > 0) {
    bw.copy_gbps = perftest::gb_per_s(2.0 * double(bw.array_bytes), best_copy);
    bw.triad_gbps = perftest::gb_per_s(3.0 * double(bw.array_bytes), best_triad);
  }
  bw.seconds = since(start);
  return bw;
}

// Traffic per PE of one call, as the algorithms in include/gshmem/coll/*.cuh run on CPU PEs of
// one node. What counts is every load from and store to a user buffer (src and dst, this PE's or
// a mapped peer's): for a message well beyond the caches that is memory traffic no algorithm
// avoids. Loads and stores of the collective pool do not count: its slots and publication copies
// are a few MiB per PE, reused every step, and stay in cache. A reduction of k user inputs into a
// user output is k + 1 bytes per byte; a copy between user buffers 2, to or from the pool 1. With
// S the nccl-tests size and B one PE's block (AllReduce: its 1/n share of the vector), src and
// dst published (large symmetric buffers, out of place):
//
//   AllReduce   direct   reduce n inputs into dst: (n+1)S
//               direct2  reduce my slice of n inputs into dst: S + B; copy n-1 slices from the
//                        peers' dst: 2(n-1)B
//               ring     read src block by block (send, then n-1 reductions): S; write the reduced
//                        block B and read it to send; write the n-1 blocks received: S
//               tree     leaves read src to send; inner nodes reduce src into a slot, the root into
//                        dst; the root reads dst once per child, every other PE writes dst
//               rd       per exchange round: read dst to send, reduce it in place (2S); before:
//                        src into dst (a copy, or the fold's reduction); after: the fold's copy
//   AllGather   direct   copy my block and the n-1 peers' blocks into dst: 2S
//               ring     read src to send, copy it into dst, write n-1 blocks received: (n+2)B
//               rd       (Bruck) copy src into dst; per round read the blocks sent, write the
//                        blocks received: 2B + 2(n-1)B
//   ReduceScat. direct   reduce block `me` of n inputs into dst: S + B
//               ring     read src block by block (a send, n-1 reductions, the last into dst): S;
//                        write dst: B
//               rd       (Bruck) every input block read once; dst written and re-read per round
//   Broadcast   direct   every PE copies root's src into dst: 2S (the root reads its own src)
//               ring     the root reads src to send and copies it; the others write dst
//               tree     as ring, the root reading src once per child
//   Reduce      as AllReduce's counterparts, the output written on the root only
//   AlltoAll    direct   copy n blocks into dst: 2S;  pairwise: 2S, plus the staging copy of src
//                        in place (2S)
//
// src not published (private buffers, or in place): peers read a copy in the pool, so only this
// PE's own reads of src count (the copy's read included); dst not published: slices pass through
// the pool. Copies of a block onto itself (in place) are skipped, as copy() skips them. Figures are
// averaged over the PEs where PEs differ (root, chain ends, tree levels). Across nodes the network,
// not memory, bounds a call; the figures still count what passes through each PE's memory.
Traffic traffic(Op op, Algo algo, int n, const Shape& s, size_t es, Buffers buf) {
  if (n <= 1) return Traffic{};
  Traffic t;
  t.known = true;
  const double S = double(s.bytes);
  const double B = double(s.per_peer * es);
  const bool pub = buf.src_published, ip = buf.in_place;
  const double own = ip ? 0 : 2;  // a copy of a block onto its own place
  switch (op) {
    case Op::AllReduce:
    case Op::Reduce: {
      const bool all = op == Op::AllReduce;
      const double blk = S / n;
      switch (algo) {
        case Algo::Direct:
          // Inputs (n, or this PE's alone when the peers' are pool copies) plus dst.
          if (all) {
            t.copied = pub ? 0 : S;
            t.reduced = reduction(pub ? n : 1, S);
          } else {  // the non-roots publish, the root reduces
            t.copied = pub ? 0 : (n - 1) * S / n;
            t.reduced = reduction(pub ? n : 1, S) / n;
          }
          break;
        case Algo::Direct2: {
          // Each PE reduces its slice (the peers' slices of src read in place, or its own), then
          // the slices are gathered into dst (from the peers' dst, or through their pools).
          const bool dst = all && buf.dst_published;
          t.copied = pub ? 0 : S;
          t.reduced = (pub ? S : blk) + (dst || !all ? blk / (all ? 1 : n) : 0);
          if (all) {
            t.copied += dst ? 2 * (n - 1) * blk : S;
          } else {
            t.copied += (n - 1) * blk / n;
          }
          break;
        }
        case Algo::Ring:
          if (all) {
            t.reduced = S;
            t.copied = (n + 1) * blk;
          } else {  // the chain: the first reads src to send, each other PE reduces src
            t.copied = S / n;
            t.reduced = (n - 1) * S / n + S / n;
          }
          break;
        case Algo::Tree:
          for (int v = 0; v < n; ++v) {
            const int k = children(v, n);
            if (k == 0) {
              t.copied += S / n;
            } else {
              t.reduced += (v == 0 ? 2 : 1) * S / n;
            }
            if (all) t.copied += (v == 0 ? k : 1) * S / n;
          }
          break;
        case Algo::RecDbl: {
          if (!all) return Traffic{};
          int p2 = 1, rounds = 0;
          while (p2 * 2 <= n) p2 *= 2, ++rounds;
          for (int v = 0; v < n; ++v) {
            if (v >= p2) {  // a helper: sends src, copies the result into dst
              t.copied += 2 * S / n;
              continue;
            }
            if (v + p2 < n) {
              t.reduced += 2 * S / n;  // src and the helper's slot into dst
              t.copied += S / n;       // dst sent back to the helper
            } else {
              t.copied += own * S / n;
            }
            t.copied += rounds * S / n;
            t.reduced += rounds * 2 * S / n;
          }
          break;
        }
        default:
          return Traffic{};
      }
      break;
    }
    case Op::AllGather:
      switch (algo) {
        case Algo::Direct:
          t.copied = own * B + (n - 1) * B * (pub ? 2 : 1) + (pub ? 0 : B);
          break;
        case Algo::Ring:
          t.copied = B + own * B + (n - 1) * B;
          break;
        case Algo::RecDbl:
          t.copied = own * B + 2 * (n - 1) * B;
          break;
        default:
          return Traffic{};
      }
      break;
    case Op::ReduceScatter:
      switch (algo) {
        case Algo::Direct:
          t.copied = pub ? 0 : S;
          t.reduced = (pub ? S : B) + B;
          break;
        case Algo::Ring:
          t.copied = B;
          t.reduced = S;
          break;
        case Algo::RecDbl: {
          int rounds = 0;
          while ((1 << rounds) < n) ++rounds;
          t.reduced = S + rounds * B + (rounds - 1) * B;
          break;
        }
        default:
          return Traffic{};
      }
      break;
    case Op::Broadcast:
      switch (algo) {
        case Algo::Direct:
          t.copied = ((pub ? 0 : S) + own * S + (n - 1) * S * (pub ? 2 : 1)) / n;
          break;
        case Algo::Ring:
          t.copied = (S + own * S + (n - 1) * S) / n;
          break;
        case Algo::Tree:
          t.copied = (children(0, n) * S + own * S + (n - 1) * S) / n;
          break;
        default:
          return Traffic{};
      }
      break;
    case Op::AllToAll:
      switch (algo) {
        case Algo::Direct:
          t.copied = own * B + (n - 1) * B * (pub ? 2 : 1) + (pub ? 0 : S);
          break;
        case Algo::Pairwise:
          t.copied = 2 * n * B + (ip ? 2 * S : 0);
          break;
        default:
          return Traffic{};
      }
      break;
  }
  return t;
}

double floor_us(const Traffic& t, const MemoryBandwidth& bw) {
  if (!t.known || bw.copy_gbps <= 0 || bw.triad_gbps <= 0) return 0;
  return t.copied / (bw.copy_gbps * 1e3) + t.reduced / (bw.triad_gbps * 1e3);
}

}  // namespace collperf
