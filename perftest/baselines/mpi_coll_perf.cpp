// The collective perftests' baseline: the same sizes through Open MPI (MPI_Allreduce,
// MPI_Allgather, MPI_Reduce_scatter_block, MPI_Bcast, MPI_Alltoall, MPI_Reduce), timed and
// checked the same way and printed in the same nccl-tests table as gshmem_<op>_perf.
//
//   mpirun --allow-run-as-root --oversubscribe -np 4 gshmem_mpi_coll_perf allreduce -b 8 -e 64M -f
//   2
//
// In place uses MPI_IN_PLACE (Reduce_scatter_block then leaves the result at the start of the
// buffer, Bcast always works in place). Types: float double int8 uint8 int32 uint32 int64
// uint64; ops: sum prod min max. Exit status 1 when any value was wrong.
// The C bindings only (Open MPI's C++ bindings would need libmpi_cxx).
#define OMPI_SKIP_MPICXX 1
#define MPICH_SKIP_MPICXX 1
#include <mpi.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "perftest/coll/nccl_format.hpp"
#include "perftest/common/timing.hpp"

namespace {

using namespace collperf;

MPI_Datatype mpi_type(Type t) {
  switch (t) {
    case Type::Float:
      return MPI_FLOAT;
    case Type::Double:
      return MPI_DOUBLE;
    case Type::Int8:
      return MPI_INT8_T;
    case Type::Uint8:
      return MPI_UINT8_T;
    case Type::Int32:
      return MPI_INT32_T;
    case Type::Uint32:
      return MPI_UINT32_T;
    case Type::Int64:
      return MPI_INT64_T;
    case Type::Uint64:
      return MPI_UINT64_T;
    default:
      return MPI_DATATYPE_NULL;
  }
}

MPI_Op mpi_op(Redop r) {
  switch (r) {
    case Redop::Sum:
      return MPI_SUM;
    case Redop::Prod:
      return MPI_PROD;
    case Redop::Min:
      return MPI_MIN;
    case Redop::Max:
      return MPI_MAX;
    default:
      return MPI_OP_NULL;
  }
}

struct Bench {
  Op op;
  Config cfg;
  int me, n;
  MPI_Datatype type;
  MPI_Op redop;
  size_t es;

  // in_place: nccl-tests' layouts, expressed with MPI_IN_PLACE. Returns where the result is.
  char* call(char* sbuf, char* rbuf, const Shape& s, bool in_place) const {
    const int count = int(s.per_peer);
    const void* send = in_place ? MPI_IN_PLACE : sbuf;
    switch (op) {
      case Op::AllReduce:
        MPI_Allreduce(send, rbuf, count, type, redop, MPI_COMM_WORLD);
        return rbuf;
      case Op::AllGather:
        MPI_Allgather(send, count, type, rbuf, count, type, MPI_COMM_WORLD);
        return rbuf;
      case Op::ReduceScatter:
        MPI_Reduce_scatter_block(send, rbuf, count, type, redop, MPI_COMM_WORLD);
        return rbuf;
      case Op::Broadcast:
        MPI_Bcast(rbuf, count, type, cfg.root, MPI_COMM_WORLD);
        return rbuf;
      case Op::AllToAll:
        MPI_Alltoall(send, count, type, rbuf, count, type, MPI_COMM_WORLD);
        return rbuf;
      case Op::Reduce:
        MPI_Reduce(in_place && me != cfg.root ? rbuf : send, rbuf, count, type, redop, cfg.root,
                   MPI_COMM_WORLD);
        return rbuf;
    }
    return rbuf;
  }

  // Where this PE's input goes for the layout.
  char* input(char* sbuf, char* rbuf, const Shape& s, bool in_place) const {
    if (op == Op::Broadcast) return rbuf;  // MPI_Bcast has one buffer
    if (!in_place) return sbuf;
    if (op == Op::AllGather) return rbuf + size_t(me) * s.per_peer * es;
    return rbuf;
  }

  Result measure(const Shape& s, char* sbuf, char* rbuf, bool in_place, uint64_t salt) const {
    char* in = input(sbuf, rbuf, s, in_place);
    if (op != Op::Broadcast || me == cfg.root)
      fill(cfg.type, cfg.redop, in, s.send_count, me, salt);
    for (int i = 0; i < cfg.base.warmup; ++i) call(sbuf, rbuf, s, in_place);
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    for (int i = 0; i < cfg.base.iters; ++i) call(sbuf, rbuf, s, in_place);
    double sec = (MPI_Wtime() - t0) / cfg.base.iters;
    Result r;
    double us = sec * 1e6, sum = 0;
    MPI_Allreduce(&us, &sum, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    r.time_us = sum / n;
    r.algbw = double(s.bytes) / (r.time_us * 1e3);
    r.busbw = r.algbw * bus_factor(op, n);
    if (!cfg.check) return r;
    if (op != Op::Broadcast || me == cfg.root) {
      fill(cfg.type, cfg.redop, in, s.send_count, me, salt + 1);
    }
    char* out = call(sbuf, rbuf, s, in_place);
    long wrong = long(count_wrong(op, cfg.type, cfg.redop, out, s, me, n, cfg.root, salt + 1)),
         all = 0;
    MPI_Allreduce(&wrong, &all, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    r.wrong = all;
    return r;
  }
};

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  Bench b{};
  MPI_Comm_rank(MPI_COMM_WORLD, &b.me);
  MPI_Comm_size(MPI_COMM_WORLD, &b.n);
  const char* program = "gshmem_mpi_coll_perf";
  int code = -1;
  if (argc < 2 || !parse_op(argv[1], &b.op)) {
    if (b.me == 0) {
      std::fprintf(stderr,
                   "usage: %s allreduce|allgather|reducescatter|broadcast|alltoall|reduce "
                   "[nccl-tests options; -h for the list]\n",
                   program);
    }
    code = 2;
  } else {
    b.cfg = parse(argc - 1, argv + 1, program, "nccl-tests' measurement through Open MPI",
                  b.me == 0, false, &code);
  }
  if (code < 0) {
    b.type = mpi_type(b.cfg.type);
    b.redop = mpi_op(b.cfg.redop);
    b.es = type_size(b.cfg.type);
    if (b.type == MPI_DATATYPE_NULL || (reduces(b.op) && b.redop == MPI_OP_NULL)) {
      if (b.me == 0)
        std::fprintf(stderr, "%s: -d %s / -o %s have no MPI counterpart\n", program,
                     type_name(b.cfg.type), redop_name(b.cfg.redop));
      code = 2;
    }
  }
  if (code < 0) {
    const Config& cfg = b.cfg;
    std::vector<size_t> sizes = cfg.base.sizes();
    size_t smax = 0, rmax = 0;
    for (size_t bytes : sizes) {
      Shape s = shape_for(b.op, bytes, b.n, b.es);
      smax = std::max(smax, s.send_count * b.es);
      rmax = std::max(rmax, std::max(s.recv_count, s.send_count) * b.es);
    }
    smax = (smax + 4095) / 4096 * 4096 + 4096;
    rmax = (rmax + 4095) / 4096 * 4096 + 4096;
    char* sbuf = static_cast<char*>(std::aligned_alloc(4096, smax));
    char* rbuf = static_cast<char*>(std::aligned_alloc(4096, rmax));
    std::memset(sbuf, 0, smax);
    std::memset(rbuf, 0, rmax);
    if (b.me == 0) {
      std::printf(
          "# mpi_%s_perf (Open MPI baseline): nPEs %d minBytes %zu maxBytes %zu step: "
          "%zu(factor) warmup iters: %d iters: %d validation: %d buffers: private (malloc)\n",
          op_name(b.op), b.n, cfg.base.min_size, cfg.base.max_size, cfg.base.factor,
          cfg.base.warmup, cfg.base.iters, cfg.check ? 1 : 0);
    }
    const std::vector<Shape> shapes = measured_shapes(b.op, sizes, b.n, b.es);
    if (!shapes.empty()) {
      perftest::warm_up_job(
          perftest::kJobWarmupSeconds, [&] { b.call(sbuf, rbuf, shapes.front(), false); },
          [](double v) {
            double most = 0;
            MPI_Allreduce(&v, &most, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
            return most;
          });
    }
    Table table(b.op, cfg, b.n, b.me == 0);
    table.header();
    uint64_t salt = 1;
    for (const Shape& s : shapes) {
      Result oop = b.measure(s, sbuf, rbuf, false, salt += 2);
      Result ip = b.measure(s, sbuf, rbuf, true, salt += 2);
      table.row(s, oop, ip);
    }
    code = table.footer() ? 1 : 0;
    std::free(sbuf);
    std::free(rbuf);
  }
  MPI_Finalize();
  return code;
}
