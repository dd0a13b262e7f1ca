// MoE dispatch/combine on a GPU heap: the kernels of moe/moe_kernel.cu on a stream, checked
// exactly against the plain reference of the CPU tests (moe/reference.hpp). Inputs go to device
// memory, the batch comes back to the host for the check and the stand-in experts, and the
// outputs go back to the device for combine. Also: back-to-back calls with nothing but the stream
// between them (a device "expert" that passes the tokens through), a CUDA graph of dispatch,
// expert and combine replayed with a device-side token count that changes between replays,
// capacity overflow found on the device and reported by gshmem_moe_sync (then retried with
// room), bad input found on the device, and the blocking form (stream NULL).
#include <algorithm>

#include "gshmem/moe.hpp"
#include "moe/reference.hpp"
#include "tests/gpu/gpu_util.cuh"
#include "tests/moe/moe_check.hpp"

using namespace gshmem_gpu_test;
namespace ref = gshmem::moe::reference;
using gshmem::moe::AllToAll;
using gshmem::moe::CapacityError;
using gshmem::moe::Config;
using gshmem::moe::DType;
using gshmem::moe::ExpertBatch;
using moe_test::random_tokens;
using moe_test::shape;
using moe_test::uniform_inputs;
using moe_test::y_bytes;

namespace {

int me() {
  return gshmem_my_pe();
}
int npes() {
  return gshmem_n_pes();
}

class GpuMoe : public StreamTest {};

// A device copy of host bytes, freed at scope end.
class DevBuf {
 public:
  DevBuf() = default;
  explicit DevBuf(size_t bytes) { GPU_CHECK(cudaMalloc(&p_, bytes ? bytes : 1)); }
  template <class T>
  explicit DevBuf(const std::vector<T>& v) : DevBuf(v.size() * sizeof(T)) {
    // Complete on return (as to_dev): a pageable host-to-device cudaMemcpy runs on the legacy
    // stream and may return once the source is staged, and the kernels run on stream_, a
    // non-blocking stream not ordered after it, so they could read the old bytes (a stale
    // *num_tokens or expert_y).
    if (!v.empty()) to_dev(p_, v.data(), v.size() * sizeof(T));
  }
  ~DevBuf() {
    if (p_) cudaFree(p_);
  }
  DevBuf(const DevBuf&) = delete;
  DevBuf& operator=(const DevBuf&) = delete;
  template <class T = void>
  T* get() const {
    return static_cast<T*>(p_);
  }

 private:
  void* p_ = nullptr;
};

// The batch in host memory: counts, x and scales copied back from the device.
struct HostBatch {
  ExpertBatch b{};
  std::vector<int32_t> counts;
  std::vector<uint8_t> x;
  std::vector<float> scales;
};

HostBatch to_host(const ExpertBatch& d, cudaStream_t s) {
  HostBatch h;
  h.b = d;
  const size_t rows = size_t(d.num_local_experts) * size_t(d.expert_capacity);
  h.counts.resize(size_t(d.num_local_experts));
  h.x.resize(rows * d.token_bytes);
  h.scales.resize(rows * size_t(d.scales_per_token));
  GPU_CHECK(cudaMemcpyAsync(h.counts.data(), d.counts, h.counts.size() * sizeof(int32_t),
                            cudaMemcpyDefault, s));
  GPU_CHECK(cudaMemcpyAsync(h.x.data(), d.x, h.x.size(), cudaMemcpyDefault, s));
  if (d.scales) {
    GPU_CHECK(cudaMemcpyAsync(h.scales.data(), d.scales, h.scales.size() * sizeof(float),
                              cudaMemcpyDefault, s));
  }
  GPU_CHECK(cudaStreamSynchronize(s));
  h.b.counts = h.counts.data();
  h.b.x = h.x.data();
  h.b.scales = d.scales ? h.scales.data() : nullptr;
  return h;
}

// One call end to end on stream s (nullptr: the blocking form), checked against the reference.
void run_call(AllToAll& a2a, const std::vector<ref::Inputs>& all, cudaStream_t s, bool split) {
  const Config& cfg = a2a.config();
  const ref::Inputs& in = all[size_t(me())];
  DevBuf x(in.x), scales(in.scales), indices(in.indices), weights(in.weights);
  DevBuf tokens(std::vector<int32_t>{in.tokens});
  const float* sc = in.scales.empty() ? nullptr : scales.get<float>();
  ExpertBatch d;
  if (split) {
    a2a.dispatch_send(x.get(), sc, indices.get<int32_t>(), tokens.get<int32_t>(), s);
    d = a2a.dispatch_recv(s);
  } else {
    d = a2a.dispatch(x.get(), sc, indices.get<int32_t>(), tokens.get<int32_t>(), s);
  }
  HostBatch h = to_host(d, s);
  EXPECT_EQ(ref::check_dispatch(cfg, npes(), all, me(), h.b), "") << seed_note();

  std::vector<uint8_t> y(size_t(d.num_local_experts) * size_t(d.expert_capacity) * y_bytes(cfg));
  ref::run_experts(cfg, me(), h.b, y.data());
  DevBuf dy(y);
  const size_t out_bytes = size_t(std::max(in.tokens, 1)) * y_bytes(cfg);
  DevBuf out(out_bytes);
  if (split) {
    a2a.combine_send(dy.get(), s);
    a2a.combine_recv(out.get(), weights.get<float>(), s);
  } else {
    a2a.combine(out.get(), dy.get(), weights.get<float>(), s);
  }
  std::vector<uint8_t> got(out_bytes);
  GPU_CHECK(cudaMemcpyAsync(got.data(), out.get(), out_bytes, cudaMemcpyDefault, s));
  GPU_CHECK(cudaStreamSynchronize(s));
  EXPECT_NO_THROW(a2a.sync(s));
  EXPECT_EQ(
      ref::check_combine(cfg, got.data(), ref::expected_combine(cfg, npes(), all, me()), in.tokens),
      "")
      << seed_note();
}

TEST_F(GpuMoe, PayloadTypes) {
  for (const moe_test::PayloadCase& t : moe_test::payload_cases()) {
    Config cfg = shape(npes(), 3, t.x, t.y);
    cfg.scale_block = t.scale_block;
    SCOPED_TRACE("dispatch " + std::to_string(int(t.x)) + " combine " + std::to_string(int(t.y)));
    AllToAll a2a(cfg);
    for (int call = 0; call < 2; ++call) {
      uint64_t seed = key(job_seed(), "types", int(t.x), int(t.y), call);
      run_call(a2a, uniform_inputs(cfg, npes(), seed), stream_, call == 1);
    }
  }
}

TEST_F(GpuMoe, TopK) {
  for (int k = 1; k <= 8; ++k) {
    SCOPED_TRACE("top-" + std::to_string(k));
    Config cfg = shape(npes(), k);
    AllToAll a2a(cfg);
    uint64_t seed = key(job_seed(), "topk", k);
    run_call(a2a, uniform_inputs(cfg, npes(), seed), stream_, false);
  }
}

TEST_F(GpuMoe, SkewedMaskedAndEmpty) {
  Config cfg = shape(npes(), 3, DType::Bytes, DType::BF16);
  AllToAll a2a(cfg);
  uint64_t seed = key(job_seed(), "skewed");
  std::vector<int32_t> full(size_t(npes()), cfg.max_tokens);
  run_call(a2a, ref::synthesize_all(cfg, npes(), full, ref::Routing::Skewed, seed), stream_, false);
  std::vector<int32_t> some = random_tokens(cfg, npes(), seed);
  some[0] = 0;
  run_call(a2a, ref::synthesize_all(cfg, npes(), some, ref::Routing::Masked, seed), stream_, true);
  run_call(a2a,
           ref::synthesize_all(cfg, npes(), std::vector<int32_t>(size_t(npes()), 0),
                               ref::Routing::Uniform, seed),
           stream_, false);
}

TEST_F(GpuMoe, BlockingNullStream) {
  Config cfg = shape(npes(), 2, DType::F32, DType::F32);
  AllToAll a2a(cfg);
  uint64_t seed = key(job_seed(), "blocking");
  run_call(a2a, uniform_inputs(cfg, npes(), seed), nullptr, true);
}

// The device "expert" of the back-to-back and graph tests: fp32 in, fp32 out, each row passed
// through, for the rows the device counts say arrived (the host never reads them).
__global__ void pass_through(const int32_t* counts, const float* x, float* y, int experts,
                             int capacity, int hidden) {
  for (int e = blockIdx.x; e < experts; e += gridDim.x) {
    const size_t n = size_t(counts[e]) * size_t(hidden), at = size_t(e) * capacity * hidden;
    for (size_t i = threadIdx.x; i < n; i += blockDim.x) y[at + i] = x[at + i];
  }
}

// What combine gives with pass_through experts: each token's own values, weighted and summed in
// slot order in fp32 (the reference's combine with y(t, k) = x of the token).
std::vector<uint8_t> passed_through(const Config& cfg, const std::vector<ref::Inputs>& all) {
  return ref::combine(cfg, npes(), all, me(), [&](int32_t, const ref::Origin& o) -> const void* {
    return all[size_t(o.member)].x.data() + size_t(o.token) * size_t(cfg.hidden) * sizeof(float);
  });
}

// One iteration's device buffers: inputs for all calls are made up front.
struct Iteration {
  std::vector<ref::Inputs> all;
  DevBuf x, indices, weights, tokens, out;
  Iteration(const Config& cfg, std::vector<ref::Inputs> a)
      : all(std::move(a)),
        x(all[size_t(me())].x),
        indices(all[size_t(me())].indices),
        weights(all[size_t(me())].weights),
        tokens(std::vector<int32_t>{all[size_t(me())].tokens}),
        out(size_t(cfg.max_tokens) * y_bytes(cfg)) {}
};

void enqueue(AllToAll& a2a, const Config& cfg, const void* x, const int32_t* indices,
             const int32_t* tokens, const float* weights, void* out, float* y, cudaStream_t s) {
  a2a.dispatch_send(x, nullptr, indices, tokens, s);
  ExpertBatch b = a2a.dispatch_recv(s);
  pass_through<<<b.num_local_experts, 128, 0, s>>>(b.counts, static_cast<const float*>(b.x), y,
                                                   b.num_local_experts, b.expert_capacity,
                                                   cfg.hidden);
  a2a.combine_send(y, s);
  a2a.combine_recv(out, weights, s);
}

std::string check_out(const Config& cfg, const Iteration& it) {
  const int32_t tokens = it.all[size_t(me())].tokens;
  std::vector<uint8_t> got(size_t(cfg.max_tokens) * y_bytes(cfg));
  GPU_CHECK(cudaMemcpy(got.data(), it.out.get(), got.size(), cudaMemcpyDefault));
  return ref::check_combine(cfg, got.data(), passed_through(cfg, it.all), tokens);
}

// Calls follow each other on the stream with no host synchronisation until the end.
TEST_F(GpuMoe, BackToBackOnStream) {
  Config cfg = shape(npes(), 4, DType::F32, DType::F32);
  AllToAll a2a(cfg);
  DevBuf y(size_t(a2a.info().num_local_experts) * size_t(a2a.info().expert_capacity) *
           y_bytes(cfg));
  std::vector<std::unique_ptr<Iteration>> its;
  for (int i = 0; i < 6; ++i) {
    uint64_t seed = key(job_seed(), "b2b", i);
    its.push_back(std::make_unique<Iteration>(
        cfg, ref::synthesize_all(cfg, npes(), random_tokens(cfg, npes(), seed),
                                 i % 2 ? ref::Routing::Masked : ref::Routing::Uniform, seed)));
  }
  for (auto& it : its) {
    enqueue(a2a, cfg, it->x.get(), it->indices.get<int32_t>(), it->tokens.get<int32_t>(),
            it->weights.get<float>(), it->out.get(), y.get<float>(), stream_);
  }
  GPU_CHECK(cudaStreamSynchronize(stream_));
  EXPECT_NO_THROW(a2a.sync(stream_));
  for (size_t i = 0; i < its.size(); ++i) {
    EXPECT_EQ(check_out(cfg, *its[i]), "") << "call " << i << ", " << seed_note();
  }
}

// Dispatch, the expert kernel and combine captured once and replayed; before each replay the
// inputs and the device-side token count are rewritten (stream-ordered), so each replay is a new
// call with its own count.
TEST_F(GpuMoe, GraphReplay) {
  Config cfg = shape(npes(), 3, DType::F32, DType::F32);
  AllToAll a2a(cfg);
  DevBuf y(size_t(a2a.info().num_local_experts) * size_t(a2a.info().expert_capacity) *
           y_bytes(cfg));
  // The graph's buffers: sized for max_tokens; each replay's inputs are copied in first.
  const size_t x_bytes = size_t(cfg.max_tokens) * size_t(cfg.hidden) * sizeof(float);
  const size_t slots = size_t(cfg.max_tokens) * size_t(cfg.experts_per_token);
  DevBuf x(x_bytes), indices(slots * sizeof(int32_t)), weights(slots * sizeof(float));
  DevBuf tokens(sizeof(int32_t)), out(size_t(cfg.max_tokens) * y_bytes(cfg));
  GPU_CHECK(cudaMemsetAsync(tokens.get(), 0, sizeof(int32_t), stream_));
  GPU_CHECK(cudaStreamSynchronize(stream_));

  cudaGraph_t graph;
  GPU_CHECK(cudaStreamBeginCapture(stream_, cudaStreamCaptureModeThreadLocal));
  enqueue(a2a, cfg, x.get(), indices.get<int32_t>(), tokens.get<int32_t>(), weights.get<float>(),
          out.get(), y.get<float>(), stream_);
  GPU_CHECK(cudaStreamEndCapture(stream_, &graph));
  cudaGraphExec_t exec;
  GPU_CHECK(cudaGraphInstantiate(&exec, graph, 0));

  for (int replay = 0; replay < 5; ++replay) {
    uint64_t seed = key(job_seed(), "graph", replay);
    std::vector<int32_t> t = random_tokens(cfg, npes(), seed);
    if (replay == 2) t[size_t(npes() - 1)] = 0;
    if (replay == 3) std::fill(t.begin(), t.end(), cfg.max_tokens);
    auto all = ref::synthesize_all(cfg, npes(), t, ref::Routing::Uniform, seed);
    const ref::Inputs& in = all[size_t(me())];
    GPU_CHECK(cudaMemcpyAsync(x.get(), in.x.data(), in.x.size(), cudaMemcpyDefault, stream_));
    GPU_CHECK(cudaMemcpyAsync(indices.get(), in.indices.data(), in.indices.size() * 4,
                              cudaMemcpyDefault, stream_));
    GPU_CHECK(cudaMemcpyAsync(weights.get(), in.weights.data(), in.weights.size() * 4,
                              cudaMemcpyDefault, stream_));
    GPU_CHECK(cudaMemcpyAsync(tokens.get(), &in.tokens, 4, cudaMemcpyDefault, stream_));
    GPU_CHECK(cudaGraphLaunch(exec, stream_));
    GPU_CHECK(cudaStreamSynchronize(stream_));
    EXPECT_NO_THROW(a2a.sync(stream_));
    std::vector<uint8_t> got(size_t(cfg.max_tokens) * y_bytes(cfg));
    GPU_CHECK(cudaMemcpy(got.data(), out.get(), got.size(), cudaMemcpyDefault));
    EXPECT_EQ(ref::check_combine(cfg, got.data(), passed_through(cfg, all), in.tokens), "")
        << "replay " << replay << ", " << seed_note();
  }
  GPU_CHECK(cudaGraphExecDestroy(exec));
  GPU_CHECK(cudaGraphDestroy(graph));
}

// Every token to one expert with buffers for the average load: the kernels find the overflow on
// every member, write nothing, and gshmem_moe_sync reports it alike everywhere; a handle made with
// the factor it names takes the same call.
TEST_F(GpuMoe, CapacityOverflowAndRetry) {
  Config cfg = shape(npes(), 2, DType::F32, DType::F32);
  cfg.capacity_factor = 1.0;
  uint64_t seed = key(job_seed(), "overflow");
  std::vector<int32_t> full(size_t(npes()), cfg.max_tokens);
  auto all = ref::synthesize_all(cfg, npes(), full, ref::Routing::Skewed, seed);
  const ref::Inputs& in = all[size_t(me())];
  double factor = 0;
  {
    AllToAll a2a(cfg);
    DevBuf x(in.x), indices(in.indices), weights(in.weights);
    DevBuf tokens(std::vector<int32_t>{in.tokens});
    DevBuf y(size_t(a2a.info().num_local_experts) * size_t(a2a.info().expert_capacity) *
             y_bytes(cfg));
    std::vector<uint8_t> poison(size_t(cfg.max_tokens) * y_bytes(cfg), kPoison);
    DevBuf out(poison);
    enqueue(a2a, cfg, x.get(), indices.get<int32_t>(), tokens.get<int32_t>(), weights.get<float>(),
            out.get(), y.get<float>(), stream_);
    try {
      a2a.sync(stream_);
      ADD_FAILURE() << "the overflow was not reported";
    } catch (const CapacityError& e) {
      EXPECT_EQ(e.overflow().kind, GSHMEM_MOE_OVERFLOW_EXPERT);
      EXPECT_EQ(e.overflow().expert, 0);
      EXPECT_NE(std::string(e.what()).find("gshmem_moe_dispatch_send"), std::string::npos);
      factor = e.overflow().min_capacity_factor;
    }
    std::vector<uint8_t> got(poison.size());
    GPU_CHECK(cudaMemcpy(got.data(), out.get(), got.size(), cudaMemcpyDefault));
    EXPECT_TRUE(got == poison) << "combine wrote the output of a call that overflowed";
    // Reported once: the handle is usable and the next sync is clean.
    EXPECT_NO_THROW(a2a.sync(stream_));
  }
  ASSERT_GT(factor, 1.0);
  cfg.capacity_factor = factor;
  AllToAll retry(cfg);
  run_call(retry, all, stream_, false);
}

// An expert index out of range on one member, found by its kernel: every member's sync reports
// the call (the bad member names the index, the others the member).
TEST_F(GpuMoe, BadIndexOnDevice) {
  Config cfg = shape(npes(), 2, DType::F32, DType::F32);
  AllToAll a2a(cfg);
  uint64_t seed = key(job_seed(), "bad");
  std::vector<int32_t> full(size_t(npes()), 4);
  auto all = ref::synthesize_all(cfg, npes(), full, ref::Routing::Uniform, seed);
  ref::Inputs in = all[size_t(me())];
  if (me() == npes() - 1) in.indices[1] = cfg.num_experts + 3;
  DevBuf x(in.x), indices(in.indices), weights(in.weights);
  DevBuf tokens(std::vector<int32_t>{in.tokens});
  DevBuf y(size_t(a2a.info().num_local_experts) * size_t(a2a.info().expert_capacity) *
           y_bytes(cfg));
  DevBuf out(size_t(cfg.max_tokens) * y_bytes(cfg));
  enqueue(a2a, cfg, x.get(), indices.get<int32_t>(), tokens.get<int32_t>(), weights.get<float>(),
          out.get(), y.get<float>(), stream_);
  try {
    a2a.sync(stream_);
    ADD_FAILURE() << "the bad index was not reported";
  } catch (const gshmem::Error& e) {
    EXPECT_EQ(e.status(), GSHMEM_ERROR_INVALID_ARGUMENT);
    const std::string what = e.what();
    if (me() == npes() - 1) {
      EXPECT_NE(what.find("indices[0][1]"), std::string::npos) << what;
    } else {
      EXPECT_NE(what.find("passed bad input"), std::string::npos) << what;
    }
  }
  // The handle still works.
  run_call(a2a, all, stream_, false);
}

}  // namespace
