// gshmem_mpi_moe_a2a: the MoE exchange of gshmem_moe_a2a_perf done the usual way, with MPI and
// no gshmem: the same shapes, token counts, inputs, timing, checks and table
// (perftest/moe/moe_bench.hpp), for side-by-side figures (perftest/moe_compare.sh).
//
//   mpirun -np 4 gshmem_mpi_moe_a2a [SHAPE...] [-b 1 -e 128 -f 2] [-n ITERS -w WARMUP] [--full]
//                                   [--json]
//
// dispatch: count rows per (rank, local expert); MPI_Alltoall of the counts; pack the rows
// (values, then scales) by destination; MPI_Alltoallv; regroup what arrived (by source rank)
// into the per-expert layout gshmem delivers. combine: gather the expert outputs back into
// source order; MPI_Alltoallv; each token's weighted sum in fp32.
#define OMPI_SKIP_MPICXX 1
#define MPICH_SKIP_MPICXX 1
#include <mpi.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "moe/reference.hpp"
#include "moe/weighted_sum.cuh"
#include "perftest/moe/moe_bench.hpp"

namespace {

using namespace perftest::moe;
namespace ref = gshmem::moe::reference;
namespace coll = gshmem::coll;

// One sweep point's exchange, with every buffer sized once.
class Exchange {
 public:
  Exchange(const gm::Config& cfg, int n)
      : cfg_(cfg),
        n_(n),
        L_(cfg.num_experts / n),
        K_(cfg.experts_per_token),
        S_(cfg.scales_per_token()),
        xb_(size_t(cfg.hidden) * gm::dtype_size(cfg.dispatch_type)),
        rb_(xb_ + size_t(S_) * sizeof(float)),
        yb_(size_t(cfg.hidden) * gm::dtype_size(cfg.combine_type)),
        cap_(n * cfg.max_tokens),
        send_counts_(size_t(n * L_)),
        recv_counts_(size_t(n * L_)),
        cursor_(size_t(n * L_)),
        bytes_(4 * size_t(n)),
        pos_(size_t(cfg.max_tokens * K_)),
        send_(size_t(cfg.max_tokens * K_) * rb_ + 1),
        recv_(size_t(cap_ * L_) * rb_ + 1),
        x_(size_t(L_ * cap_) * xb_),
        scales_(size_t(L_ * cap_ * S_)),
        counts_(size_t(L_)),
        y_send_(size_t(cap_ * L_) * yb_ + 1),
        y_recv_(size_t(cfg.max_tokens * K_) * yb_ + 1) {}

  gm::ExpertBatch dispatch(const ref::Inputs& in) {
    const int T = in.tokens;
    std::fill(send_counts_.begin(), send_counts_.end(), 0);
    for (int i = 0; i < T * K_; ++i) {
      if (in.indices[size_t(i)] >= 0) ++send_counts_[size_t(in.indices[size_t(i)])];
    }
    MPI_Alltoall(send_counts_.data(), L_, MPI_INT, recv_counts_.data(), L_, MPI_INT,
                 MPI_COMM_WORLD);
    // Pack by (destination rank, local expert), each expert's rows by (token, slot).
    int row = 0;
    for (int x = 0; x < n_ * L_; ++x) {
      cursor_[size_t(x)] = row;
      row += send_counts_[size_t(x)];
    }
    for (int i = 0; i < T * K_; ++i) {
      const int32_t x = in.indices[size_t(i)];
      if (x < 0) {
        pos_[size_t(i)] = -1;
        continue;
      }
      const int at = cursor_[size_t(x)]++, t = i / K_;
      pos_[size_t(i)] = at;
      uint8_t* dst = send_.data() + size_t(at) * rb_;
      std::memcpy(dst, in.x.data() + size_t(t) * xb_, xb_);
      if (S_) std::memcpy(dst + xb_, in.scales.data() + size_t(t * S_), size_t(S_) * 4);
    }
    rows_exchange(rb_, send_.data(), recv_.data(), false);
    // Regroup: what arrived is by (source, local expert); the experts want theirs together.
    std::fill(counts_.begin(), counts_.end(), 0);
    const uint8_t* src = recv_.data();
    for (int s = 0; s < n_; ++s) {
      for (int e = 0; e < L_; ++e) {
        for (int j = 0; j < recv_counts_[size_t(s * L_ + e)]; ++j, src += rb_) {
          const size_t r = size_t(e) * size_t(cap_) + size_t(counts_[size_t(e)]++);
          std::memcpy(x_.data() + r * xb_, src, xb_);
          if (S_) std::memcpy(scales_.data() + r * size_t(S_), src + xb_, size_t(S_) * 4);
        }
      }
    }
    gm::ExpertBatch b{};
    b.num_local_experts = L_;
    b.expert_capacity = cap_;
    b.counts = counts_.data();
    b.x = x_.data();
    b.scales = S_ ? scales_.data() : nullptr;
    b.scales_per_token = S_;
    b.token_bytes = xb_;
    return b;
  }

  void combine(const ref::Inputs& in, const uint8_t* y, uint8_t* out) {
    // Back into the order the rows arrived in.
    std::vector<int> taken(static_cast<size_t>(L_), 0);
    uint8_t* dst = y_send_.data();
    for (int s = 0; s < n_; ++s) {
      for (int e = 0; e < L_; ++e) {
        const int rows = recv_counts_[size_t(s * L_ + e)];
        const size_t first = size_t(e) * size_t(cap_) + size_t(taken[size_t(e)]);
        std::memcpy(dst, y + first * yb_, size_t(rows) * yb_);
        dst += size_t(rows) * yb_;
        taken[size_t(e)] += rows;
      }
    }
    rows_exchange(yb_, y_send_.data(), y_recv_.data(), true);
    switch (cfg_.combine_type) {
      case gm::DType::F32:
        weighted_sum<float>(in, out);
        break;
      case gm::DType::F16:
        weighted_sum<coll::half_t>(in, out);
        break;
      default:
        weighted_sum<coll::bfloat16_t>(in, out);
        break;
    }
  }

 private:
  // MPI_Alltoallv of rows of `row_bytes`; `back` swaps the directions of the counts.
  void rows_exchange(size_t row_bytes, const uint8_t* send, uint8_t* recv, bool back) {
    int* sc = bytes_.data();
    int* sd = sc + n_;
    int* rc = sd + n_;
    int* rd = rc + n_;
    int so = 0, ro = 0;
    for (int r = 0; r < n_; ++r) {
      int out = 0, in = 0;
      for (int e = 0; e < L_; ++e) {
        out += send_counts_[size_t(r * L_ + e)];
        in += recv_counts_[size_t(r * L_ + e)];
      }
      if (back) std::swap(out, in);
      sc[r] = out * int(row_bytes);
      rc[r] = in * int(row_bytes);
      sd[r] = so;
      rd[r] = ro;
      so += sc[r];
      ro += rc[r];
    }
    MPI_Alltoallv(send, sc, sd, MPI_BYTE, recv, rc, rd, MPI_BYTE, MPI_COMM_WORLD);
  }

  // The same row loops as gshmem's combine, so the comparison is of the exchange alone.
  template <class Y>
  void weighted_sum(const ref::Inputs& in, uint8_t* out) {
    using gshmem::Thread;
    const int H = cfg_.hidden;
    acc_.assign(size_t(H), 0.0f);
    const Y* y = reinterpret_cast<const Y*>(y_recv_.data());
    Y* o = reinterpret_cast<Y*>(out);
    for (int t = 0; t < in.tokens; ++t) {
      for (int k = 0; k < K_; ++k) {
        const int p = pos_[size_t(t * K_ + k)];
        if (p < 0) continue;
        gshmem::moe::detail::accumulate_row<Thread>(acc_.data(), y + size_t(p) * size_t(H),
                                                    in.weights[size_t(t * K_ + k)], H);
      }
      gshmem::moe::detail::store_row<Thread>(o + size_t(t) * size_t(H), acc_.data(), H);
    }
  }

  gm::Config cfg_;
  int n_, L_, K_, S_;
  size_t xb_, rb_, yb_;
  int cap_;
  std::vector<int> send_counts_, recv_counts_, cursor_, bytes_, pos_;
  std::vector<uint8_t> send_, recv_, x_;
  std::vector<float> scales_;
  std::vector<int32_t> counts_;
  std::vector<uint8_t> y_send_, y_recv_;
  std::vector<float> acc_;
};

int run_shape(const MoeOptions& o, const Shape& shape, int me, int n) {
  MoeTable table("mpi_moe_a2a", shape, n, "MPI_Alltoall + MPI_Alltoallv", o.base.json, me == 0);
  int wrong = 0;
  for (int tokens : o.tokens) {
    gm::Config cfg = shape.config(tokens, 0);
    Exchange ex(cfg, n);
    auto all = ref::synthesize_all(cfg, n, std::vector<int32_t>(size_t(n), tokens),
                                   ref::Routing::Uniform, uint64_t(tokens));
    const ref::Inputs& in = all[size_t(me)];
    const size_t yb = size_t(cfg.hidden) * gm::dtype_size(cfg.combine_type);

    gm::ExpertBatch b = ex.dispatch(in);
    std::string bad = ref::check_dispatch(cfg, n, all, me, b);
    std::vector<uint8_t> y(size_t(b.num_local_experts) * size_t(b.expert_capacity) * yb);
    ref::run_experts(cfg, me, b, y.data());
    std::vector<uint8_t> out(size_t(tokens) * yb);
    ex.combine(in, y.data(), out.data());
    if (bad.empty()) {
      bad = ref::check_combine(cfg, out.data(), ref::expected_combine(cfg, n, all, me), tokens);
    }
    if (!bad.empty()) {
      std::fprintf(stderr, "gshmem_mpi_moe_a2a: rank %d, %s, %d tokens: wrong result: %s\n", me,
                   shape.name.c_str(), tokens, bad.c_str());
      ++wrong;
    }

    Point mine = time_iterations(
        o.warmup(tokens), o.iters(tokens), [] { MPI_Barrier(MPI_COMM_WORLD); },
        [&] { ex.dispatch(in); }, [] {}, [&] { ex.combine(in, y.data(), out.data()); });
    const int64_t rows = pairs_sent(in.indices, tokens, cfg.experts_per_token);
    const double times[2] = {mine.dispatch, mine.combine};
    const double bytes[2] = {double(rows) * double(b.token_bytes + b.scales_per_token * 4),
                             double(rows) * double(yb)};
    double worst_times[2] = {0, 0}, total_bytes[2] = {0, 0};
    MPI_Reduce(times, worst_times, 2, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    MPI_Reduce(bytes, total_bytes, 2, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
    Point worst, mean;
    worst.dispatch = worst_times[0];
    worst.combine = worst_times[1];
    mean.dispatch_bytes = total_bytes[0] / n;
    mean.combine_bytes = total_bytes[1] / n;
    table.row(tokens, worst, mean);
  }
  return wrong;
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int me = 0, n = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  MPI_Comm_size(MPI_COMM_WORLD, &n);
  Parsed parsed = parse(argc, argv, "gshmem_mpi_moe_a2a",
                        "MoE dispatch/combine the usual way: MPI_Alltoall of the counts, then "
                        "MPI_Alltoallv both ways",
                        me == 0, n);
  int status = parsed.exit_code.value_or(0);
  if (!parsed.exit_code) {
    int wrong = 0, total = 0;
    for (const Shape& s : parsed.opts.shapes) wrong += run_shape(parsed.opts, s, me, n);
    MPI_Allreduce(&wrong, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (total) status = 1;
    if (me == 0 && total) std::printf("# wrong results on %d rank(s): FAILED\n", total);
  }
  MPI_Finalize();
  return status;
}
