// The NCCL-style collectives on a GPU heap, stream-ordered: every collective for several types
// and operators, 0 and 1 elements, unaligned counts and counts larger than a chunk (several
// channels, many pipeline rounds), in place and out of place, symmetric and private device
// buffers, on a stream; every algorithm forced in turn; the blocking form (stream NULL); and a
// CUDA graph of collectives and kernels replayed back to back. Results are checked against the
// host reference of the CPU tests (tests/coll/coll_check.hpp through gpu_coll_ref: inputs crafted
// so that every algorithm gets the same bits), outputs are poisoned first, and bytes the call must
// not write (a guard after dst, dst on non-roots) must keep their poison.
#include "tests/gpu/gpu_coll_ref.hpp"
#include "tests/gpu/gpu_util.cuh"

using namespace gshmem_gpu_test;
using gpu_coll_ref::Algo;
using gpu_coll_ref::Case;
using gpu_coll_ref::Coll;

namespace {

constexpr size_t kBig = 200003;  // elements: > 512 KiB of 4-byte types (2+ channels), > a chunk
constexpr size_t kGuard = 64;

class GpuColl : public StreamTest {};

int npes() {
  return gshmem_n_pes();
}

// Symmetric scratch for the cases with symmetric buffers (allocated once, collectively).
char* arena(size_t* bytes) {
  static const size_t kBytes = 2 * (kBig * 4 * size_t(npes()) + 8192);
  static char* base = static_cast<char*>(gshmem_malloc(kBytes));
  *bytes = base ? kBytes : 0;
  return base;
}

int call(const Case& c, void* out, const void* in, cudaStream_t s) {
  switch (c.coll) {
    case Coll::AllReduce:
      return gshmem_allreduce(GSHMEM_TEAM_WORLD, out, in, c.count, c.dtype, c.op, s);
    case Coll::Reduce:
      return gshmem_reduce(GSHMEM_TEAM_WORLD, out, in, c.count, c.dtype, c.op, c.root, s);
    case Coll::ReduceScatter:
      return gshmem_reducescatter(GSHMEM_TEAM_WORLD, out, in, c.count, c.dtype, c.op, s);
    case Coll::AllGather:
      return gshmem_allgather(GSHMEM_TEAM_WORLD, out, in, c.count, c.dtype, s);
    case Coll::Broadcast:
      return gshmem_broadcast(GSHMEM_TEAM_WORLD, out, in, c.count, c.dtype, c.root, s);
    case Coll::AllToAll:
      return gshmem_alltoall(GSHMEM_TEAM_WORLD, out, in, c.count, c.dtype, s);
  }
  return -1;
}

std::string describe(const Case& c, bool blocking) {
  return gpu_coll_ref::describe(c) + (blocking ? " stream=NULL" : " on a stream");
}

// Runs one case on this PE (every PE runs the same cases in the same order) and checks this
// PE's output. blocking: stream NULL, and the result is read back without synchronising the
// default stream (the call must have returned with it). Returns the number of wrong elements.
size_t run_case(const Case& c, cudaStream_t stream, bool blocking = false) {
  const int n = npes(), me = gshmem_my_pe();
  const size_t count = c.count, es = gshmem_datatype_size(c.dtype), N = size_t(n);
  size_t src_elems = count, dst_elems = count;
  if (c.coll == Coll::AllGather) dst_elems = count * N;
  if (c.coll == Coll::ReduceScatter) src_elems = count * N;
  if (c.coll == Coll::AllToAll) src_elems = dst_elems = count * N;
  // The output region: dst (in place ReduceScatter: the whole src), then a guard.
  const bool rs_in_place = c.in_place && c.coll == Coll::ReduceScatter;
  const size_t reg_bytes = (rs_in_place ? src_elems : dst_elems) * es + kGuard;
  const size_t reg_span = (reg_bytes + 4095) / 4096 * 4096;
  const size_t src_bytes = src_elems * es + 64;
  char* reg = nullptr;
  char* src_mem = nullptr;
  DevBuf priv_reg(c.symmetric ? 1 : reg_bytes), priv_src(c.symmetric ? 1 : src_bytes);
  if (c.symmetric) {
    size_t have = 0;
    char* a = arena(&have);
    if (have < reg_span + src_bytes) {
      ADD_FAILURE() << "symmetric arena too small for " << describe(c, blocking);
      return 1;
    }
    reg = a;
    src_mem = a + reg_span;
  } else {
    reg = priv_reg.get<char>();
    src_mem = priv_src.get<char>();
  }
  // The region as it is before the call: poison, with the input where the call reads it in place.
  std::vector<char> before(reg_bytes, char(kPoison));
  std::vector<char> input(src_elems * es + 1);
  gpu_coll_ref::make_input(c, me, src_elems, input.data());
  size_t out_at = 0;  // byte offset of dst in the region
  const void* in = src_mem;
  if (c.in_place) {
    size_t in_at = c.coll == Coll::AllGather ? size_t(me) * count * es : 0;
    if (rs_in_place) out_at = size_t(me) * count * es;
    std::memcpy(before.data() + in_at, input.data(), src_elems * es);
    in = reg + in_at;
  } else {
    to_dev(src_mem, input.data(), src_elems * es);
  }
  to_dev(reg, before.data(), reg_bytes);
  GPU_CHECK(cudaDeviceSynchronize());

  int rc = call(c, reg + out_at, in, blocking ? nullptr : stream);
  if (rc != GSHMEM_SUCCESS) {
    ADD_FAILURE() << "returned " << rc << ": " << describe(c, blocking);
    return 1;
  }
  std::vector<char> got(reg_bytes);
  if (blocking) {
    // A stream that does not wait for the legacy default stream: the call itself must have.
    GPU_CHECK(cudaMemcpyAsync(got.data(), reg, reg_bytes, cudaMemcpyDefault, stream));
    GPU_CHECK(cudaStreamSynchronize(stream));
  } else {
    GPU_CHECK(cudaStreamSynchronize(stream));
    GPU_CHECK(cudaMemcpy(got.data(), reg, reg_bytes, cudaMemcpyDefault));
  }

  size_t written = dst_elems;
  size_t wrong = 0;
  if (c.coll == Coll::Reduce && me != c.root) {
    written = 0;
  } else {
    wrong = gpu_coll_ref::check_output(c, me, n, got.data() + out_at,
                                       describe(c, blocking) + ", " + seed_note());
  }
  // Nothing else in the region (the guard, dst on a non-root, the rest of an in-place src) moved.
  const size_t lo = out_at, hi = lo + written * es;
  for (size_t b = 0; b < reg_bytes; ++b) {
    if (b >= lo && b < hi) continue;
    if (got[b] != before[b]) {
      ++wrong;
      ADD_FAILURE() << describe(c, blocking) << ": byte " << b
                    << " of the output region (result at [" << lo << ", " << hi << ")) changed";
      break;
    }
  }
  return wrong;
}

const Coll kColls[] = {Coll::AllReduce, Coll::Reduce,    Coll::ReduceScatter,
                       Coll::AllGather, Coll::Broadcast, Coll::AllToAll};

struct TypeOp {
  gshmem_datatype_t dtype;
  gshmem_redop_t op;
  bool big;  // also at kBig elements
};

// Every kind of element (fp32/fp64, the 16-bit floats, narrow and wide integers, complex) with
// operators that exercise each family of the device reducer, AVG's division included.
const TypeOp kReducing[] = {
    {GSHMEM_FLOAT, GSHMEM_SUM, true},      {GSHMEM_FLOAT, GSHMEM_AVG, false},
    {GSHMEM_FLOAT, GSHMEM_MAX, false},     {GSHMEM_DOUBLE, GSHMEM_MIN, false},
    {GSHMEM_HALF, GSHMEM_SUM, true},       {GSHMEM_HALF, GSHMEM_AVG, false},
    {GSHMEM_BFLOAT16, GSHMEM_PROD, false}, {GSHMEM_INT8, GSHMEM_SUM, false},
    {GSHMEM_UINT8, GSHMEM_BAND, false},    {GSHMEM_INT32, GSHMEM_BXOR, true},
    {GSHMEM_UINT32, GSHMEM_MAX, false},    {GSHMEM_INT64, GSHMEM_PROD, false},
    {GSHMEM_UINT64, GSHMEM_BOR, false},    {GSHMEM_COMPLEXF, GSHMEM_SUM, false},
    {GSHMEM_COMPLEXD, GSHMEM_PROD, false},
};
const TypeOp kMoving[] = {
    {GSHMEM_FLOAT, GSHMEM_SUM, true},     {GSHMEM_HALF, GSHMEM_SUM, false},
    {GSHMEM_UINT8, GSHMEM_SUM, true},     {GSHMEM_INT64, GSHMEM_SUM, false},
    {GSHMEM_COMPLEXD, GSHMEM_SUM, false},
};

bool reduces(Coll c) {
  return gpu_coll_ref::reduces(c);
}

// Every collective x (type, op) at 1 element and an unaligned count, and the big ones at kBig;
// in place / out of place and symmetric / private alternate (each combination occurs for every
// collective); roots rotate.
TEST_F(GpuColl, StreamMatrix) {
  SCOPED_TRACE(seed_note());
  size_t k = 0;
  for (Coll coll : kColls) {
    const TypeOp* first = reduces(coll) ? std::begin(kReducing) : std::begin(kMoving);
    const TypeOp* last = reduces(coll) ? std::end(kReducing) : std::end(kMoving);
    for (const TypeOp* to = first; to != last; ++to) {
      std::vector<size_t> counts = {1, 4099};
      if (to->big) counts.push_back(kBig);
      for (size_t count : counts) {
        const int variants = count == kBig ? 4 : 1;  // the big ones in all four placements
        for (int v = 0; v < variants; ++v) {
          Case c{coll, to->dtype, to->op, count};
          c.root = int(k % size_t(npes()));
          const size_t bits = variants == 4 ? size_t(v) : k;
          c.in_place = (bits & 1) != 0;
          c.symmetric = (bits & 2) != 0;
          c.salt = ++k;
          EXPECT_EQ(run_case(c, stream_), 0u);
        }
      }
    }
  }
}

// Zero elements: success, nothing enqueued, nothing written (null buffers too).
TEST_F(GpuColl, ZeroCount) {
  for (Coll coll : kColls) {
    Case c{coll, GSHMEM_INT32, GSHMEM_SUM, 0};
    c.salt = 7;
    EXPECT_EQ(run_case(c, stream_), 0u);
    EXPECT_EQ(call(c, nullptr, nullptr, stream_), GSHMEM_SUCCESS) << gpu_coll_ref::coll_name(coll);
  }
  GPU_CHECK(cudaStreamSynchronize(stream_));
}

// Every algorithm that applies to each collective here, forced, at a small odd count and one
// larger than a chunk (forced 64 KiB chunks, two channels: many pipeline rounds per channel).
TEST_F(GpuColl, AlgorithmSweep) {
  SCOPED_TRACE(seed_note());
  size_t k = 1000;
  for (Coll coll : kColls) {
    for (Algo algo : gpu_coll_ref::algorithms_for(coll)) {
      gpu_coll_ref::force(algo, 2, 64 << 10);
      for (size_t count : {size_t(7), size_t(70001)}) {
        Case c{coll, reduces(coll) ? GSHMEM_FLOAT : GSHMEM_INT32, GSHMEM_SUM, count};
        c.root = int(k % size_t(npes()));
        c.in_place = (k & 1) != 0;
        c.symmetric = (k & 2) != 0;
        c.salt = ++k;
        EXPECT_EQ(run_case(c, stream_), 0u) << gpu_coll_ref::algo_name(algo);
      }
      gpu_coll_ref::unforce();
    }
  }
}

// Stream NULL with a GPU heap: the legacy default stream, and the call returns with the result.
TEST_F(GpuColl, BlockingNullStream) {
  SCOPED_TRACE(seed_note());
  size_t k = 2000;
  for (Coll coll : kColls) {
    Case c{coll, reduces(coll) ? GSHMEM_HALF : GSHMEM_UINT8, GSHMEM_SUM, 4099};
    c.root = int(k % size_t(npes()));
    c.in_place = (k & 1) != 0;
    c.symmetric = (k & 2) != 0;
    c.salt = ++k;
    EXPECT_EQ(run_case(c, stream_, true), 0u);
  }
}

// Long double has no device arithmetic: refused, naming the type, with nothing enqueued.
TEST_F(GpuColl, LongDoubleRefused) {
  DevBuf buf(64);
  testing::internal::CaptureStderr();
  int rc = gshmem_allreduce(GSHMEM_TEAM_WORLD, buf.get(), buf.get(), 2, GSHMEM_LONGDOUBLE,
                            GSHMEM_SUM, stream_);
  std::string err = testing::internal::GetCapturedStderr();
  EXPECT_EQ(rc, GSHMEM_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(err.find("GSHMEM_LONGDOUBLE"), std::string::npos) << err;
}

// ---- A CUDA graph ------------------------------------------------------------------------------

// Member p's element i in replay `it` (read from the device): small integers, so sums are exact.
__device__ __host__ inline float graph_value(int p, size_t i, uint32_t it) {
  return float(int((uint64_t(p) * 7 + i * 3 + uint64_t(it) * 5) % 9) - 4);
}

__global__ void graph_fill(float* src, size_t n, int me, const uint32_t* it) {
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n;
       i += size_t(gridDim.x) * blockDim.x) {
    src[i] = graph_value(me, i, *it);
  }
}

__global__ void graph_accumulate(float* acc, const float* sum, size_t n) {
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n;
       i += size_t(gridDim.x) * blockDim.x) {
    acc[i] += sum[i];
  }
}

__global__ void graph_next(uint32_t* it) {
  ++*it;
}

// fill src from the replay number -> allreduce (several channels) -> accumulate the sums ->
// allgather of src -> next replay number, captured once and launched kReplays times back to back
// with no host step between: each replay must be a new call (fresh tags), or a replay would take
// the previous one's flags for its own and read stale data. acc holds the sum of every replay's
// allreduce; the allgather output is the last replay's inputs.
TEST_F(GpuColl, GraphReplay) {
  SCOPED_TRACE(seed_note());
  const int me = gshmem_my_pe(), n = npes();
  constexpr int kReplays = 4;
  const size_t count = kBig, gcount = 4099;
  Sym src(count * sizeof(float)), sum(count * sizeof(float)), gathered(gcount * n * sizeof(float));
  DevBuf acc(count * sizeof(float)), it(sizeof(uint32_t));
  GPU_CHECK(cudaMemset(acc.get(), 0, count * sizeof(float)));
  GPU_CHECK(cudaMemset(it.get(), 0, sizeof(uint32_t)));
  poison_dev(sum.get(), count * sizeof(float));
  poison_dev(gathered.get(), gcount * n * sizeof(float));
  gshmem_barrier_all();

  cudaGraph_t graph;
  GPU_CHECK(cudaStreamBeginCapture(stream_, cudaStreamCaptureModeThreadLocal));
  graph_fill<<<16, 256, 0, stream_>>>(src.get<float>(), count, me, it.get<uint32_t>());
  EXPECT_EQ(gshmem_allreduce(GSHMEM_TEAM_WORLD, sum.get(), src.get(), count, GSHMEM_FLOAT,
                             GSHMEM_SUM, stream_),
            GSHMEM_SUCCESS);
  graph_accumulate<<<16, 256, 0, stream_>>>(acc.get<float>(), sum.get<float>(), count);
  EXPECT_EQ(
      gshmem_allgather(GSHMEM_TEAM_WORLD, gathered.get(), src.get(), gcount, GSHMEM_FLOAT, stream_),
      GSHMEM_SUCCESS);
  graph_next<<<1, 1, 0, stream_>>>(it.get<uint32_t>());
  GPU_CHECK(cudaStreamEndCapture(stream_, &graph));
  cudaGraphExec_t exec;
  GPU_CHECK(cudaGraphInstantiate(&exec, graph, 0));
  for (int r = 0; r < kReplays; ++r) GPU_CHECK(cudaGraphLaunch(exec, stream_));
  GPU_CHECK(cudaStreamSynchronize(stream_));

  std::vector<float> got_acc = from_dev<float>(acc.get(), count);
  std::vector<float> got_gather = from_dev<float>(gathered.get(), gcount * n);
  size_t wrong = 0;
  for (size_t i = 0; i < count; ++i) {
    float want = 0;
    for (int r = 0; r < kReplays; ++r) {
      float s = 0;
      for (int p = 0; p < n; ++p) s += graph_value(p, i, uint32_t(r));
      want += s;
    }
    if (got_acc[i] != want && ++wrong <= 3) {
      ADD_FAILURE() << "sum of the replays' allreduce, element " << i << ": " << got_acc[i]
                    << ", expected " << want;
    }
  }
  for (int p = 0; p < n; ++p) {
    for (size_t i = 0; i < gcount; ++i) {
      float want = graph_value(p, i, kReplays - 1);
      float got = got_gather[size_t(p) * gcount + i];
      if (got != want && ++wrong <= 6) {
        ADD_FAILURE() << "last replay's allgather, block " << p << " element " << i << ": " << got
                      << ", expected " << want;
      }
    }
  }
  EXPECT_EQ(wrong, 0u);
  EXPECT_EQ(from_dev<uint32_t>(it.get(), 1)[0], uint32_t(kReplays));
  GPU_CHECK(cudaGraphExecDestroy(exec));
  GPU_CHECK(cudaGraphDestroy(graph));
  gshmem_barrier_all();
}

}  // namespace
