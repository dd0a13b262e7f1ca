// gshmem_<collective>_perf: nccl-tests' measurement of one collective through gshmem's host API
// (this file is compiled once per collective with COLLPERF_OP set), in nccl-tests' format.
//
//   gshmemrun -n 4 gshmem_allreduce_perf -b 8 -e 64M -f 2 [-n 20 -w 5 -c 1 -d float -o sum
//                                        -r 0 --private --floor|--no-floor --json]
//
// Buffers come from the symmetric heap (what gshmem programs use, and what lets the direct
// algorithms read peers' buffers in place); --private uses page-aligned malloc'd memory, as an
// MPI program would. With the memory floor (floor.hpp; by default when the sweep reaches 1 MiB)
// the PEs first measure memory bandwidth together, and each row ends with the fraction of the
// floor the planner's algorithm reached. Exit status 1 when any value was wrong.
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "collectives/coll_host.hpp"
#include "gshmem/collectives.h"
#include "gshmem/gshmem.h"
#include "perftest/coll/floor.hpp"
#include "perftest/coll/nccl_format.hpp"
#include "perftest/common/timing.hpp"

#define COLLPERF_STR2(x) #x
#define COLLPERF_STR(x) COLLPERF_STR2(x)

namespace {

using namespace collperf;
namespace gc = gshmem::coll;

gshmem_datatype_t dtype_of(Type t) {
  switch (t) {
    case Type::Float:
      return GSHMEM_FLOAT;
    case Type::Double:
      return GSHMEM_DOUBLE;
    case Type::Half:
      return GSHMEM_HALF;
    case Type::BFloat16:
      return GSHMEM_BFLOAT16;
    case Type::Int8:
      return GSHMEM_INT8;
    case Type::Uint8:
      return GSHMEM_UINT8;
    case Type::Int32:
      return GSHMEM_INT32;
    case Type::Uint32:
      return GSHMEM_UINT32;
    case Type::Int64:
      return GSHMEM_INT64;
    case Type::Uint64:
      return GSHMEM_UINT64;
  }
  return GSHMEM_FLOAT;
}

gshmem_redop_t redop_of(Redop r) {
  const gshmem_redop_t ops[] = {GSHMEM_SUM, GSHMEM_PROD, GSHMEM_MIN, GSHMEM_MAX, GSHMEM_AVG};
  return ops[int(r)];
}

gc::Coll coll_of(Op op) {
  switch (op) {
    case Op::AllReduce:
      return gc::Coll::AllReduce;
    case Op::AllGather:
      return gc::Coll::AllGather;
    case Op::ReduceScatter:
      return gc::Coll::ReduceScatter;
    case Op::Broadcast:
      return gc::Coll::Broadcast;
    case Op::AllToAll:
      return gc::Coll::AllToAll;
    default:
      return gc::Coll::Reduce;
  }
}

struct Bench {
  Op op;
  Config cfg;
  int me, n;
  gshmem_datatype_t dtype;
  gshmem_redop_t redop;
  size_t es;

  int call(void* dst, const void* src, size_t count) const {
    switch (op) {
      case Op::AllReduce:
        return gshmem_allreduce(GSHMEM_TEAM_WORLD, dst, src, count, dtype, redop, nullptr);
      case Op::AllGather:
        return gshmem_allgather(GSHMEM_TEAM_WORLD, dst, src, count, dtype, nullptr);
      case Op::ReduceScatter:
        return gshmem_reducescatter(GSHMEM_TEAM_WORLD, dst, src, count, dtype, redop, nullptr);
      case Op::Broadcast:
        return gshmem_broadcast(GSHMEM_TEAM_WORLD, dst, src, count, dtype, cfg.root, nullptr);
      case Op::AllToAll:
        return gshmem_alltoall(GSHMEM_TEAM_WORLD, dst, src, count, dtype, nullptr);
      case Op::Reduce:
        return gshmem_reduce(GSHMEM_TEAM_WORLD, dst, src, count, dtype, redop, cfg.root, nullptr);
    }
    return -1;
  }

  double average(double v) const {
    double sum = 0;
    gshmem_allreduce(GSHMEM_TEAM_WORLD, &sum, &v, 1, GSHMEM_DOUBLE, GSHMEM_SUM, nullptr);
    return sum / n;
  }
  long total(long v) const {
    int64_t mine = v, sum = 0;
    gshmem_allreduce(GSHMEM_TEAM_WORLD, &sum, &mine, 1, GSHMEM_INT64, GSHMEM_SUM, nullptr);
    return long(sum);
  }

  // One column: times the call, then checks a fresh run with crafted inputs.
  Result measure(const Shape& s, char* sbuf, char* rbuf, bool in_place, uint64_t salt) const {
    // nccl-tests' in-place layouts: AllGather's src is block `me` of dst; ReduceScatter's dst is
    // block `me` of src; the others use one buffer.
    char* src = sbuf;
    char* dst = rbuf;
    if (in_place) {
      src = rbuf;
      if (op == Op::AllGather) src = rbuf + size_t(me) * s.per_peer * es;
      if (op == Op::ReduceScatter) dst = rbuf + size_t(me) * s.per_peer * es;
    }
    fill(cfg.type, cfg.redop, src, s.send_count, me, salt);
    int rc = 0;
    for (int i = 0; i < cfg.base.warmup; ++i) rc |= call(dst, src, s.per_peer);
    gshmem_barrier_all();
    double sec = perftest::seconds_per_iter(0, cfg.base.iters,
                                            [&](long) { rc |= call(dst, src, s.per_peer); });
    Result r;
    r.time_us = average(sec * 1e6);
    r.algbw = double(s.bytes) / (r.time_us * 1e3);
    r.busbw = r.algbw * bus_factor(op, n);
    if (rc != 0) {
      r.wrong = total(long(s.recv_count ? s.recv_count : 1));
      return r;
    }
    if (!cfg.check) return r;
    fill(cfg.type, cfg.redop, src, s.send_count, me, salt + 1);
    long wrong = call(dst, src, s.per_peer) != 0 ? long(s.recv_count) : 0;
    if (!wrong) {
      wrong = long(count_wrong(op, cfg.type, cfg.redop, dst, s, me, n, cfg.root, salt + 1));
    }
    r.wrong = total(wrong);
    return r;
  }
};

// How the library publishes the buffers of a call on CPU PEs (coll_host.hpp: kPublishInPlaceMin,
// in_place_publishes_src).
Buffers buffers_of(const Bench& b, const Shape& s, gc::Algo algo, bool in_place) {
  const bool big =
      b.cfg.symmetric && std::max(s.send_count, s.recv_count) * b.es >= gc::kPublishInPlaceMin;
  Buffers buf;
  buf.in_place = in_place;
  buf.src_published = big && (!in_place || gc::in_place_publishes_src(coll_of(b.op), algo, b.n));
  buf.dst_published = big && b.op == Op::AllReduce && b.cfg.redop != Redop::Avg;
  return buf;
}

const char* describe(const gc::Plan& p, char* buf, size_t len) {
  std::snprintf(buf, len, "%s%s%s%s ch=%d chunk=%llu", gc::algo_name(p.algo),
                p.algo == gc::Algo::Hier ? "+" : "",
                p.algo == gc::Algo::Hier ? gc::algo_name(p.sub) : "",
                p.proto == gc::Proto::LL ? "/ll" : "", p.nch, (unsigned long long)p.chunk);
  return buf;
}

int run(const Bench& b) {
  const Config& cfg = b.cfg;
  std::vector<size_t> sizes = cfg.base.sizes();
  size_t smax = 0, rmax = 0;
  for (size_t bytes : sizes) {
    Shape s = shape_for(b.op, bytes, b.n, b.es);
    smax = std::max(smax, s.send_count * b.es);
    rmax = std::max(rmax, s.recv_count * b.es);
  }
  // In place, the receive buffer also holds the larger send side.
  rmax = std::max(rmax, smax);
  smax = (smax + 4095) / 4096 * 4096 + 4096;
  rmax = (rmax + 4095) / 4096 * 4096 + 4096;
  char *sbuf, *rbuf, *base = nullptr;
  if (cfg.symmetric) {
    base = static_cast<char*>(gshmem_malloc(smax + rmax));
    if (!base) {
      if (b.me == 0) std::fprintf(stderr, "symmetric heap too small (GSHMEM_SYMMETRIC_SIZE)\n");
      return 2;
    }
    sbuf = base;
    rbuf = base + smax;
  } else {
    sbuf = static_cast<char*>(std::aligned_alloc(4096, smax));
    rbuf = static_cast<char*>(std::aligned_alloc(4096, rmax));
  }
  std::memset(sbuf, 0, smax);
  std::memset(rbuf, 0, rmax);

  if (b.me == 0) {
    std::printf(
        "# gshmem_%s_perf: nPEs %d minBytes %zu maxBytes %zu step: %zu(factor) warmup "
        "iters: %d iters: %d validation: %d buffers: %s\n",
        op_name(b.op), b.n, cfg.base.min_size, cfg.base.max_size, cfg.base.factor, cfg.base.warmup,
        cfg.base.iters, cfg.check ? 1 : 0, cfg.symmetric ? "symmetric heap" : "private (malloc)");
    std::printf("#\n# Using PEs\n");
  }
  int pid = int(getpid());
  std::vector<int> pids(size_t(b.n));
  gshmem_allgather(GSHMEM_TEAM_WORLD, pids.data(), &pid, 1, GSHMEM_INT32, nullptr);
  if (b.me == 0) {
    char host[256] = {};
    gethostname(host, sizeof host - 1);
    for (int p = 0; p < b.n; ++p)
      std::printf("#  PE %2d Pid %6d on %10s (CPU)\n", p, pids[size_t(p)], host);
  }
  // The largest of the PEs' values (every PE calls it).
  auto slowest = [](double v) {
    double most = 0;
    gshmem_allreduce(GSHMEM_TEAM_WORLD, &most, &v, 1, GSHMEM_DOUBLE, GSHMEM_MAX, nullptr);
    return most;
  };
  const bool floor = cfg.floor > 0 || (cfg.floor < 0 && cfg.base.max_size >= kFloorAuto);
  MemoryBandwidth bw;
  if (floor) {
    bw = measure_memory(
        b.n, [] { gshmem_barrier_all(); }, slowest);
    if (b.me == 0) {
      std::printf(
          "#\n# Memory floor: STREAM copy %.2f GB/s, triad %.2f GB/s per PE with %d PEs at once "
          "(%.1f, %.1f GB/s in all; 3 arrays of %zu MiB per PE, best of %d, %.2f s)\n"
          "# floor = time of the algorithm's memory traffic at those rates / measured time "
          "(1: at the limit)\n",
          bw.copy_gbps, bw.triad_gbps, b.n, bw.copy_gbps * b.n, bw.triad_gbps * b.n,
          bw.array_bytes >> 20, bw.reps, bw.seconds);
      if (cfg.base.json) {
        std::printf(
            "{\"memory\":{\"npes\":%d,\"copy_gbps\":%.6g,\"triad_gbps\":%.6g,"
            "\"array_bytes\":%zu,\"reps\":%d,\"seconds\":%.4g}}\n",
            b.n, bw.copy_gbps, bw.triad_gbps, bw.array_bytes, bw.reps, bw.seconds);
      }
    }
  }
  const std::vector<Shape> shapes = measured_shapes(b.op, sizes, b.n, b.es);
  if (!shapes.empty()) {
    perftest::warm_up_job(
        perftest::kJobWarmupSeconds, [&] { b.call(rbuf, sbuf, shapes.front().per_peer); }, slowest);
  }
  Table table(b.op, cfg, b.n, b.me == 0, floor);
  table.header();
  std::vector<std::string> plans;
  uint64_t salt = 1;
  for (const Shape& s : shapes) {
    Result oop = b.measure(s, sbuf, rbuf, false, salt += 2);
    Result ip = b.measure(s, sbuf, rbuf, true, salt += 2);
    gc::Plan p = gc::plan_for(coll_of(b.op), GSHMEM_TEAM_WORLD, s.bytes);
    if (floor) {
      for (bool in_place : {false, true}) {
        Traffic t = traffic(b.op, p.algo, b.n, s, b.es, buffers_of(b, s, p.algo, in_place));
        (in_place ? ip : oop).floor_us = floor_us(t, bw);
      }
    }
    char desc[96];
    describe(p, desc, sizeof desc);
    table.row(s, oop, ip, std::string("\"algo\":\"") + desc + "\"");
    char line[160];
    std::snprintf(line, sizeof line, "#   %12zu B  %s  (predicted %.2f us)", s.bytes, desc,
                  p.predicted_us);
    plans.push_back(line);
  }
  long wrong = table.footer();
  if (b.me == 0) {
    std::printf(
        "# Planner's choice per size, /ll: the low-latency protocol (GSHMEM_ALGO, GSHMEM_PROTO, "
        "GSHMEM_NCHANNELS, GSHMEM_CHUNK_SIZE override it):\n");
    for (const std::string& l : plans) std::printf("%s\n", l.c_str());
    std::fflush(stdout);
  }
  if (cfg.symmetric) {
    gshmem_free(base);
  } else {
    std::free(sbuf);
    std::free(rbuf);
  }
  return wrong ? 1 : 0;
}

}  // namespace

int main(int argc, char** argv) {
  gshmem_init();
  Bench b{};
  if (!parse_op(COLLPERF_STR(COLLPERF_OP), &b.op)) return 2;
  b.me = gshmem_my_pe();
  b.n = gshmem_n_pes();
  std::string program = std::string("gshmem_") + op_name(b.op) + "_perf";
  std::string what = std::string("nccl-tests' ") + op_name(b.op) +
                     " benchmark through gshmem's collectives (run under gshmemrun)";
  int code = -1;
  b.cfg = parse(argc, argv, program.c_str(), what.c_str(), b.me == 0, true, &code);
  if (code < 0 && has_root(b.op) && (b.cfg.root < 0 || b.cfg.root >= b.n)) {
    if (b.me == 0) std::fprintf(stderr, "%s: -r %d is not a PE\n", program.c_str(), b.cfg.root);
    code = 2;
  }
  if (code < 0) {
    b.dtype = dtype_of(b.cfg.type);
    b.redop = redop_of(b.cfg.redop);
    b.es = type_size(b.cfg.type);
    code = run(b);
  }
  gshmem_finalize();
  return code;
}
