// The point-to-point perftests through MPI one-sided communication, for side-by-side figures:
// the same work, flags, tables and JSON lines as the gshmem programs, rank 0 measuring against
// rank 1 through a passive-target epoch (MPI_Win_allocate + MPI_Win_lock_all).
//
//   mpirun -np 2 gshmem_mpi_rma_bench [TEST...] [-b MIN -e MAX -f F -n ITERS -w WARMUP
//                                     --window W --json]
//
// gshmem's "complete at the target" is MPI_Win_flush here: put + quiet maps to MPI_Put +
// MPI_Win_flush. There is no p_pingpong: MPI RMA has no wait_until on window memory.
//
// Written against MPI's C bindings, in C++ only to share the perftest harness.
#define OMPI_SKIP_MPICXX 1
#define MPICH_SKIP_MPICXX 1
#include <mpi.h>

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "perftest/common/options.hpp"
#include "perftest/common/table.hpp"
#include "perftest/common/timing.hpp"
#include "perftest/pt2pt/defaults.hpp"

namespace {

using namespace perftest;

constexpr int kTarget = 1;

// Window memory on every rank, open for passive-target access for the object's lifetime.
class Window {
 public:
  explicit Window(size_t bytes) {
    MPI_Win_allocate(MPI_Aint(bytes), 1, MPI_INFO_NULL, MPI_COMM_WORLD, &base_, &win_);
    std::memset(base_, 0, bytes);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Win_lock_all(0, win_);
  }
  ~Window() {
    MPI_Win_unlock_all(win_);
    MPI_Win_free(&win_);
  }
  Window(const Window&) = delete;
  Window& operator=(const Window&) = delete;
  MPI_Win win() const { return win_; }

 private:
  void* base_ = nullptr;
  MPI_Win win_ = MPI_WIN_NULL;
};

struct Rank {
  int me;
  int n;
};

Table make_table(const Rank& r, const Options& o, const char* test, const std::string& title,
                 std::vector<Column> extra, Metric metric) {
  return Table(test, title, std::move(extra), metric, o.json, r.me == 0);
}

void rma_bw(const Rank& r, const Options& o, bool put) {
  Window w(o.max_size);
  std::vector<char> local(o.max_size, 1);
  const char* test = put ? "put_bw" : "get_bw";
  Table table =
      make_table(r, o, test,
                 "window of " + std::to_string(o.window) + (put ? " MPI_Put" : " MPI_Get") +
                     " + MPI_Win_flush, rank 0 <-> rank 1",
                 {}, kBandwidth);
  for (size_t size : o.sizes()) {
    MPI_Barrier(MPI_COMM_WORLD);
    if (r.me == 0) {
      int n = int(size);
      double t = seconds_per_iter(o.warmup, o.iters, [&](long) {
        for (int i = 0; i < o.window; ++i) {
          if (put) {
            MPI_Put(local.data(), n, MPI_BYTE, kTarget, 0, n, MPI_BYTE, w.win());
          } else {
            MPI_Get(local.data(), n, MPI_BYTE, kTarget, 0, n, MPI_BYTE, w.win());
          }
        }
        MPI_Win_flush(kTarget, w.win());
      });
      table.row(size, gb_per_s(double(size) * o.window, t));
    }
    MPI_Barrier(MPI_COMM_WORLD);
  }
}

void put_latency(const Rank& r, const Options& o) {
  Window w(o.max_size);
  std::vector<char> local(o.max_size, 1);
  Table table =
      make_table(r, o, "put_latency", "MPI_Put + MPI_Win_flush, rank 0 -> rank 1", {}, kLatency);
  for (size_t size : o.sizes()) {
    MPI_Barrier(MPI_COMM_WORLD);
    if (r.me == 0) {
      int n = int(size);
      double t = seconds_per_iter(o.warmup, o.iters, [&](long) {
        MPI_Put(local.data(), n, MPI_BYTE, kTarget, 0, n, MPI_BYTE, w.win());
        MPI_Win_flush(kTarget, w.win());
      });
      table.row(size, usec(t));
    }
    MPI_Barrier(MPI_COMM_WORLD);
  }
}

void p_latency(const Rank& r, const Options& o) {
  Window w(sizeof(long long));
  Table table =
      make_table(r, o, "p_latency", "MPI_Put of one long long + MPI_Win_flush, rank 0 -> rank 1",
                 {}, kLatency);
  MPI_Barrier(MPI_COMM_WORLD);
  if (r.me == 0) {
    double t = seconds_per_iter(o.warmup, o.iters, [&](long k) {
      long long v = k;
      MPI_Put(&v, 1, MPI_LONG_LONG, kTarget, 0, 1, MPI_LONG_LONG, w.win());
      MPI_Win_flush(kTarget, w.win());
    });
    table.row(sizeof(long long), usec(t));
  }
  MPI_Barrier(MPI_COMM_WORLD);
}

void atomic_latency(const Rank& r, const Options& o) {
  Window w(sizeof(uint64_t));
  Table table = make_table(r, o, "atomic_latency",
                           "MPI atomics on rank 1's uint64_t + MPI_Win_flush, from rank 0",
                           {{"op", "op"}}, kLatency);
  const MPI_Win win = w.win();
  uint64_t one = 1, result = 0, sink = 0;
  // Every body ends with the flush that completes its operation (and lands `result`).
  auto row = [&](const char* op, auto&& body) {
    MPI_Barrier(MPI_COMM_WORLD);
    if (r.me == 0)
      table.row(sizeof(uint64_t), {op}, usec(seconds_per_iter(o.warmup, o.iters, body)));
    MPI_Barrier(MPI_COMM_WORLD);
  };
  row("fetch_add", [&](long) {
    MPI_Fetch_and_op(&one, &result, MPI_UINT64_T, kTarget, 0, MPI_SUM, win);
    MPI_Win_flush(kTarget, win);
    sink += result;
  });
  row("add", [&](long) {
    MPI_Accumulate(&one, 1, MPI_UINT64_T, kTarget, 0, 1, MPI_UINT64_T, MPI_SUM, win);
    MPI_Win_flush(kTarget, win);
  });
  // Only rank 0 writes the word; tracking its value makes every compare-and-swap succeed.
  uint64_t expected = 0, desired = 0;
  if (r.me == 0) {
    MPI_Fetch_and_op(nullptr, &expected, MPI_UINT64_T, kTarget, 0, MPI_NO_OP, win);
    MPI_Win_flush(kTarget, win);
  }
  row("compare_swap", [&](long) {
    desired = expected + 1;
    MPI_Compare_and_swap(&desired, &expected, &result, MPI_UINT64_T, kTarget, 0, win);
    MPI_Win_flush(kTarget, win);
    expected = result == expected ? desired : result;
  });
  row("swap", [&](long k) {
    uint64_t v = uint64_t(k);
    MPI_Fetch_and_op(&v, &result, MPI_UINT64_T, kTarget, 0, MPI_REPLACE, win);
    MPI_Win_flush(kTarget, win);
    sink += result;
  });
  row("fetch", [&](long) {
    MPI_Fetch_and_op(nullptr, &result, MPI_UINT64_T, kTarget, 0, MPI_NO_OP, win);
    MPI_Win_flush(kTarget, win);
    sink += result;
  });
  keep(&sink);
}

void barrier_latency(const Rank& r, const Options& o) {
  Table table = make_table(r, o, "barrier_latency", "all ranks, rank 0's time",
                           {{"op", "op"}, {"PEs", "npes"}}, kLatency);
  MPI_Barrier(MPI_COMM_WORLD);
  double t = seconds_per_iter(o.warmup, o.iters, [](long) { MPI_Barrier(MPI_COMM_WORLD); });
  table.row(0, {"MPI_Barrier", r.n}, usec(t));
}

struct Test {
  const char* name;
  Options defaults;
  int min_ranks;
  void (*run)(const Rank&, const Options&);
};

const Test kTests[] = {
    {"put_bw", pt2pt::bandwidth_defaults(), 2,
     [](const Rank& r, const Options& o) { rma_bw(r, o, true); }},
    {"get_bw", pt2pt::bandwidth_defaults(), 2,
     [](const Rank& r, const Options& o) { rma_bw(r, o, false); }},
    {"put_latency", pt2pt::rma_latency_defaults(), 2, put_latency},
    {"p_latency", pt2pt::element_latency_defaults(), 2, p_latency},
    {"atomic_latency", pt2pt::element_latency_defaults(), 2, atomic_latency},
    {"barrier_latency", pt2pt::barrier_defaults(), 1, barrier_latency},
};

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  Rank r{};
  MPI_Comm_rank(MPI_COMM_WORLD, &r.me);
  MPI_Comm_size(MPI_COMM_WORLD, &r.n);
  // -h lists every test with its own defaults; the option defaults shown are put_latency's.
  std::string what =
      "The gshmem point-to-point perftests through MPI RMA (passive target).\nTESTs "
      "(default: all), with their defaults:";
  for (const Test& t : kTests) {
    const Options& d = t.defaults;
    what += "\n  " + std::string(t.name) + ": -b " + std::to_string(d.min_size) + " -e " +
            std::to_string(d.max_size) + " -n " + std::to_string(d.iters) + " -w " +
            std::to_string(d.warmup);
  }
  Usage usage{"gshmem_mpi_rma_bench", what.c_str(), "[TEST...]"};
  Args args = parse_args(argc, argv, usage, pt2pt::rma_latency_defaults(), r.me == 0);
  int status = args.exit_code.value_or(0);
  std::vector<const Test*> chosen;
  for (const std::string& name : args.operands) {
    const Test* found = nullptr;
    for (const Test& t : kTests) {
      if (name == t.name) found = &t;
    }
    if (!found) {
      if (r.me == 0) std::fprintf(stderr, "gshmem_mpi_rma_bench: no test '%s'\n", name.c_str());
      status = 2;
    }
    chosen.push_back(found);
  }
  if (args.operands.empty()) {
    for (const Test& t : kTests) chosen.push_back(&t);
  }
  if (!args.exit_code && status == 0) {
    for (const Test* t : chosen) {
      if (r.n < t->min_ranks) {
        if (r.me == 0)
          std::fprintf(stderr, "# %s: skipped, needs %d ranks\n", t->name, t->min_ranks);
        continue;
      }
      t->run(r, args.over(t->defaults));
    }
  }
  MPI_Finalize();
  return status;
}
