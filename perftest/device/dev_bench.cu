#include "perftest/device/dev_bench.hpp"

#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "gshmem/device/capi.cuh"
#include "perftest/common/gshmem_bench.hpp"
#include "perftest/common/timing.hpp"

// From the runtime; weak so the programs also build against a libgshmem without it.
extern "C" __attribute__((weak)) int gshmemx_gpu_available(char* why, size_t len);

namespace perftest::device {

namespace {

enum class Scope { Thread, Warp, Block };
const char* scope_name(Scope s) {
  return s == Scope::Thread ? "thread" : s == Scope::Warp ? "warp" : "block";
}

struct DevOptions {
  Scope scope = Scope::Block;
  int blocks = 0;  // 0: two per SM
  int threads = 1024;
};

#define DEV_CHECK(call)                                                                         \
  do {                                                                                          \
    cudaError_t dev_check_e = (call);                                                           \
    if (dev_check_e != cudaSuccess) {                                                           \
      std::fprintf(stderr, "perftest: PE %d: %s:%d: %s failed: %s\n", gshmem_my_pe(), __FILE__, \
                   __LINE__, #call, cudaGetErrorString(dev_check_e));                           \
      gshmem_global_exit(1);                                                                    \
    }                                                                                           \
  } while (0)

// Takes --scope, -c and -t out of argv (the shared parser rejects options it does not know).
// Returns an error message, empty on success.
std::string take_device_options_or_fail(int* argc, char** argv, DevOptions* d) {
  int out = 1;
  for (int i = 1; i < *argc; ++i) {
    std::string opt = argv[i];
    if (opt != "--scope" && opt != "-c" && opt != "-t") {
      argv[out++] = argv[i];
      continue;
    }
    if (i + 1 >= *argc) return opt + " needs a value";
    std::string v = argv[++i];
    if (opt == "--scope") {
      if (v == "thread") {
        d->scope = Scope::Thread;
      } else if (v == "warp") {
        d->scope = Scope::Warp;
      } else if (v == "block") {
        d->scope = Scope::Block;
      } else {
        return "--scope must be thread, warp or block, got '" + v + "'";
      }
      continue;
    }
    char* end = nullptr;
    long n = std::strtol(v.c_str(), &end, 10);
    if (*end || n < 1 || n > (opt == "-t" ? 1024 : 1 << 20)) {
      return "bad value '" + v + "' for " + opt;
    }
    if (opt == "-t" && n % 32) return "-t must be a multiple of 32 (whole warps)";
    (opt == "-c" ? d->blocks : d->threads) = int(n);
  }
  *argc = out;
  argv[out] = nullptr;
  return "";
}

std::string take_device_options(int* argc, char** argv, DevOptions* d) {
  std::string err = take_device_options_or_fail(argc, argv, d);
  if (!err.empty()) *argc = 1;  // the shared parser must not report our options as unknown
  return err;
}

std::string no_gpu_reason() {
  char why[256] = "";
  if (gshmemx_gpu_available) {
    return gshmemx_gpu_available(why, sizeof why) ? "" : std::string(why[0] ? why : "no GPU");
  }
  int n = 0;
  cudaError_t e = cudaGetDeviceCount(&n);
  if (e != cudaSuccess) {
    cudaGetLastError();
    return std::string("cudaGetDeviceCount: ") + cudaGetErrorString(e);
  }
  return n > 0 ? "" : "cudaGetDeviceCount found no device";
}

// NAME at the kernel's scope.
#define SCOPED_CALL(S, NAME, ...)            \
  do {                                       \
    if constexpr (S == Scope::Thread) {      \
      NAME(__VA_ARGS__);                     \
    } else if constexpr (S == Scope::Warp) { \
      NAME##_warp(__VA_ARGS__);              \
    } else {                                 \
      NAME##_block(__VA_ARGS__);             \
    }                                        \
  } while (0)

// This group's part of a message: 16-byte aligned chunks, so the copy uses vector accesses.
template <Scope S>
__device__ void my_chunk(size_t bytes, size_t* begin, size_t* n) {
  size_t groups, index;
  if constexpr (S == Scope::Thread) {
    groups = size_t(gridDim.x) * blockDim.x;
    index = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  } else if constexpr (S == Scope::Warp) {
    groups = size_t(gridDim.x) * (blockDim.x / 32);
    index = size_t(blockIdx.x) * (blockDim.x / 32) + threadIdx.x / 32;
  } else {
    groups = gridDim.x;
    index = blockIdx.x;
  }
  size_t chunk = (bytes + groups - 1) / groups;
  chunk = (chunk + 15) / 16 * 16;
  size_t b = index * chunk;
  *begin = b < bytes ? b : bytes;
  *n = b < bytes ? (bytes - b < chunk ? bytes - b : chunk) : 0;
}

// NVSHMEM's shape: every iteration moves the whole message again (same addresses), then quiet.
// At most 1024 threads a block: the register budget is capped to fit (64 a thread on sm_80 and
// sm_90), so -t 1024 launches at every scope.
constexpr int kMaxThreads = 1024;

template <Scope S, bool Put>
__global__ void __launch_bounds__(kMaxThreads)
    bw_kernel(char* remote, char* local, size_t bytes, int pe, int iters) {
  size_t b, n;
  my_chunk<S>(bytes, &b, &n);
  for (int i = 0; i < iters; ++i) {
    if (n == 0) break;  // the same for the whole group
    if constexpr (Put) {
      SCOPED_CALL(S, gshmem_putmem_nbi, remote + b, local + b, n, pe);
    } else {
      SCOPED_CALL(S, gshmem_getmem_nbi, local + b, remote + b, n, pe);
    }
  }
  gshmem_quiet();
}

__device__ GSHMEM_INLINE unsigned long long global_ns() {
  unsigned long long t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}

template <class T>
__device__ GSHMEM_INLINE void p_one(T* remote, T v, int pe) {
  if constexpr (sizeof(T) == 1) gshmem_uint8_p(reinterpret_cast<uint8_t*>(remote), uint8_t(v), pe);
  if constexpr (sizeof(T) == 2) {
    gshmem_uint16_p(reinterpret_cast<uint16_t*>(remote), uint16_t(v), pe);
  }
  if constexpr (sizeof(T) == 4) {
    gshmem_uint32_p(reinterpret_cast<uint32_t*>(remote), uint32_t(v), pe);
  }
  if constexpr (sizeof(T) == 8) {
    gshmem_uint64_p(reinterpret_cast<uint64_t*>(remote), uint64_t(v), pe);
  }
}

// One thread: p + quiet back to back; the timed part measured on the GPU's clock.
template <class T>
__global__ void p_kernel(void* remote, int pe, int warmup, int iters, unsigned long long* ns) {
  unsigned long long t0 = 0;
  for (int i = 0; i < warmup + iters; ++i) {
    if (i == warmup) t0 = global_ns();
    p_one(static_cast<T*>(remote), T(i), pe);
    gshmem_quiet();
  }
  *ns = global_ns() - t0;
}

// One group on each of PE 0 and PE 1: PE 0 sends bytes + signal k, PE 1 waits for it and sends
// back; half the round trip is the latency.
template <Scope S>
__global__ void __launch_bounds__(kMaxThreads)
    pingpong_kernel(char* buf, const char* src, size_t bytes, uint64_t* sig, int me, int warmup,
                    int iters, unsigned long long* ns) {
  const int peer = 1 - me;
  unsigned long long t0 = 0;
  for (int k = 1; k <= warmup + iters; ++k) {
    if (k == warmup + 1) t0 = global_ns();
    if (me == 0) {
      SCOPED_CALL(S, gshmem_putmem_signal, buf, src, bytes, sig, uint64_t(k), GSHMEM_SIGNAL_SET,
                  peer);
      gshmem_signal_wait_until(sig, GSHMEM_CMP_GE, uint64_t(k));
    } else {
      gshmem_signal_wait_until(sig, GSHMEM_CMP_GE, uint64_t(k));
      SCOPED_CALL(S, gshmem_putmem_signal, buf, src, bytes, sig, uint64_t(k), GSHMEM_SIGNAL_SET,
                  peer);
    }
  }
  if (threadIdx.x == 0) *ns = global_ns() - t0;
}

template <Scope S>
__global__ void __launch_bounds__(kMaxThreads)
    barrier_kernel(int warmup, int iters, unsigned long long* ns) {
  unsigned long long t0 = 0;
  for (int i = 0; i < warmup + iters; ++i) {
    if (i == warmup) t0 = global_ns();
    if constexpr (S == Scope::Thread) {
      gshmem_barrier_all();
    } else if constexpr (S == Scope::Warp) {
      gshmem_barrier_all_warp();
    } else {
      gshmem_barrier_all_block();
    }
  }
  if (threadIdx.x == 0) *ns = global_ns() - t0;
}

template <class K>
K pick(Scope s, K thread, K warp, K block) {
  return s == Scope::Thread ? thread : s == Scope::Warp ? warp : block;
}

// One group's launch shape for the latency kernels.
unsigned group_threads(Scope s, int threads) {
  return s == Scope::Thread ? 1u : s == Scope::Warp ? 32u : unsigned(threads);
}

unsigned long long read_ns(const unsigned long long* d) {
  unsigned long long v = 0;
  DEV_CHECK(cudaMemcpy(&v, d, sizeof v, cudaMemcpyDeviceToHost));
  return v;
}

void kernel_done(const char* what) {
  cudaError_t e = cudaGetLastError();
  if (e == cudaSuccess) e = cudaDeviceSynchronize();
  if (e != cudaSuccess) {
    std::fprintf(stderr, "perftest: PE %d: kernel %s failed: %s\n", gshmem_my_pe(), what,
                 cudaGetErrorString(e));
    gshmem_global_exit(1);
  }
}

// The end of a step that PE 0 measures alone (PEs 0 and 1 in the ping-pong). The others wait asleep
// in the bootstrap's barrier (gshmemx_host_barrier_all), not in gshmem_barrier_all or a polling
// test: on a GPU heap those run kernels on the GPU the PEs share (PE processes time-slice it
// without MPS), which would take PE 0's time while it measures.
void idle_until_measured() {
  gshmemx_host_barrier_all();
  gshmem_barrier_all();
}

void bandwidth(const Bench& b, const DevOptions& d, bool put) {
  const Options& o = b.opts;
  const char* call = put ? "gshmem_putmem_nbi" : "gshmem_getmem_nbi";
  auto* remote = static_cast<char*>(symmetric_alloc(o.max_size));
  char *local = nullptr, *copy_src = nullptr, *copy_dst = nullptr;
  DEV_CHECK(cudaMalloc(&local, o.max_size));
  DEV_CHECK(cudaMalloc(&copy_src, o.max_size));
  DEV_CHECK(cudaMalloc(&copy_dst, o.max_size));
  DEV_CHECK(cudaMemset(local, 1, o.max_size));
  DEV_CHECK(cudaMemset(copy_src, 2, o.max_size));
  DEV_CHECK(cudaMemset(remote, 3, o.max_size));
  cudaStream_t stream;
  cudaEvent_t start, stop;
  DEV_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  DEV_CHECK(cudaEventCreate(&start));
  DEV_CHECK(cudaEventCreate(&stop));
  DEV_CHECK(cudaDeviceSynchronize());
  auto kernel = put ? pick(d.scope, bw_kernel<Scope::Thread, true>, bw_kernel<Scope::Warp, true>,
                           bw_kernel<Scope::Block, true>)
                    : pick(d.scope, bw_kernel<Scope::Thread, false>, bw_kernel<Scope::Warp, false>,
                           bw_kernel<Scope::Block, false>);
  std::string test = put ? "dev_put_bw" : "dev_get_bw";
  Table table =
      b.table(test,
              std::string(call) + "_" + scope_name(d.scope) + " x " + std::to_string(o.iters) +
                  " + gshmem_quiet, " + std::to_string(d.blocks) + " blocks x " +
                  std::to_string(d.threads) + " threads, PE 0 " + (put ? "->" : "<-") +
                  " PE 1; memcpy: cudaMemcpyAsync device-to-device, same sizes",
              {{"scope", "scope"}, {"memcpy(GB/s)", "memcpy"}}, kBandwidth);
  double ratio_1m = -1, ratio_max = -1;
  size_t last = 0;
  for (size_t size : o.sizes()) {
    gshmem_barrier_all();
    if (b.me == 0) {
      // The reference: the copy engine's (or the driver's kernel's) device-to-device rate.
      for (int i = 0; i < o.warmup; ++i) {
        DEV_CHECK(cudaMemcpyAsync(copy_dst, copy_src, size, cudaMemcpyDeviceToDevice, stream));
      }
      DEV_CHECK(cudaEventRecord(start, stream));
      for (int i = 0; i < o.iters; ++i) {
        DEV_CHECK(cudaMemcpyAsync(copy_dst, copy_src, size, cudaMemcpyDeviceToDevice, stream));
      }
      DEV_CHECK(cudaEventRecord(stop, stream));
      DEV_CHECK(cudaEventSynchronize(stop));
      float copy_ms = 0;
      DEV_CHECK(cudaEventElapsedTime(&copy_ms, start, stop));

      if (o.warmup) kernel<<<d.blocks, d.threads, 0, stream>>>(remote, local, size, 1, o.warmup);
      DEV_CHECK(cudaEventRecord(start, stream));
      kernel<<<d.blocks, d.threads, 0, stream>>>(remote, local, size, 1, o.iters);
      DEV_CHECK(cudaEventRecord(stop, stream));
      kernel_done(call);
      float rma_ms = 0;
      DEV_CHECK(cudaEventElapsedTime(&rma_ms, start, stop));
      double bytes = double(size) * o.iters;
      double copy_bw = gb_per_s(bytes, copy_ms / 1e3), rma_bw = gb_per_s(bytes, rma_ms / 1e3);
      table.row(size, {scope_name(d.scope), copy_bw}, rma_bw);
      if (size == (size_t(1) << 20)) ratio_1m = rma_bw / copy_bw;
      ratio_max = rma_bw / copy_bw;
      last = size;
    }
    idle_until_measured();
  }
  char line[160];
  if (ratio_1m >= 0) {
    std::snprintf(line, sizeof line, "%s/memcpy at 1 MiB: %.2f", test.c_str(), ratio_1m);
    table.note(line);
  }
  if (ratio_max >= 0) {
    std::snprintf(line, sizeof line, "%s/memcpy at %zu B: %.2f", test.c_str(), last, ratio_max);
    table.note(line);
  }
  DEV_CHECK(cudaEventDestroy(start));
  DEV_CHECK(cudaEventDestroy(stop));
  DEV_CHECK(cudaStreamDestroy(stream));
  DEV_CHECK(cudaFree(copy_dst));
  DEV_CHECK(cudaFree(copy_src));
  DEV_CHECK(cudaFree(local));
  gshmem_free(remote);
}

void p_latency(const Bench& b) {
  const Options& o = b.opts;
  auto* remote = static_cast<uint64_t*>(symmetric_alloc(sizeof(uint64_t)));
  unsigned long long* ns = nullptr;
  DEV_CHECK(cudaMalloc(&ns, sizeof *ns));
  Table table = b.table("dev_p_latency",
                        "gshmem_uintN_p + gshmem_quiet by one thread, PE 0 -> PE 1 "
                        "(size: the element; GPU global timer)",
                        {}, kLatency);
  for (size_t size : {size_t(1), size_t(2), size_t(4), size_t(8)}) {
    if (size < o.min_size || size > o.max_size) continue;
    gshmem_barrier_all();
    if (b.me == 0) {
      auto kernel = size == 1   ? p_kernel<uint8_t>
                    : size == 2 ? p_kernel<uint16_t>
                    : size == 4 ? p_kernel<uint32_t>
                                : p_kernel<uint64_t>;
      kernel<<<1, 1>>>(remote, 1, o.warmup, o.iters, ns);
      kernel_done("p_kernel");
      table.row(size, double(read_ns(ns)) / 1e3 / o.iters);
    }
    idle_until_measured();
  }
  DEV_CHECK(cudaFree(ns));
  gshmem_free(remote);
}

void ping_pong(const Bench& b, const DevOptions& d) {
  const Options& o = b.opts;
  auto* buf = static_cast<char*>(symmetric_alloc(o.max_size));
  auto* sig = static_cast<uint64_t*>(symmetric_alloc(sizeof(uint64_t)));
  char* src = nullptr;
  unsigned long long* ns = nullptr;
  DEV_CHECK(cudaMalloc(&src, o.max_size));
  DEV_CHECK(cudaMemset(src, 7, o.max_size));
  DEV_CHECK(cudaMalloc(&ns, sizeof *ns));
  auto kernel = pick(d.scope, pingpong_kernel<Scope::Thread>, pingpong_kernel<Scope::Warp>,
                     pingpong_kernel<Scope::Block>);
  Table table =
      b.table("dev_put_signal_ping_pong",
              std::string("gshmem_putmem_signal") +
                  (d.scope == Scope::Thread ? "" : std::string("_") + scope_name(d.scope)) +
                  " + gshmem_signal_wait_until, PE 0 <-> PE 1, half the round trip",
              {{"scope", "scope"}}, kLatency);
  for (size_t size : o.sizes()) {
    DEV_CHECK(cudaMemset(sig, 0, sizeof(uint64_t)));
    DEV_CHECK(cudaDeviceSynchronize());
    gshmem_barrier_all();
    if (b.me < 2) {
      kernel<<<1, group_threads(d.scope, d.threads)>>>(buf, src, size, sig, b.me, o.warmup, o.iters,
                                                       ns);
      kernel_done("pingpong_kernel");
      if (b.me == 0) table.row(size, {scope_name(d.scope)}, double(read_ns(ns)) / 2e3 / o.iters);
    }
    idle_until_measured();
  }
  DEV_CHECK(cudaFree(ns));
  DEV_CHECK(cudaFree(src));
  gshmem_free(sig);
  gshmem_free(buf);
}

void barrier_latency(const Bench& b, const DevOptions& d) {
  const Options& o = b.opts;
  unsigned long long* ns = nullptr;
  DEV_CHECK(cudaMalloc(&ns, sizeof *ns));
  auto kernel = pick(d.scope, barrier_kernel<Scope::Thread>, barrier_kernel<Scope::Warp>,
                     barrier_kernel<Scope::Block>);
  Table table =
      b.table("dev_barrier_latency",
              std::string("gshmem_barrier_all") +
                  (d.scope == Scope::Thread ? "" : std::string("_") + scope_name(d.scope)) +
                  " on every PE (size: 0)",
              {{"scope", "scope"}, {"npes", "npes"}}, kLatency);
  gshmem_barrier_all();
  kernel<<<1, group_threads(d.scope, d.threads)>>>(o.warmup, o.iters, ns);
  kernel_done("barrier_kernel");
  if (b.me == 0) {
    table.row(0, {scope_name(d.scope), b.npes}, double(read_ns(ns)) / 1e3 / o.iters);
  }
  gshmem_barrier_all();
  DEV_CHECK(cudaFree(ns));
}

struct Program {
  const char* name;
  const char* what;
  Options defaults;
};

Program program_of(Test t) {
  Options bw;
  bw.min_size = 8;
  bw.max_size = size_t(64) << 20;
  bw.iters = 50;
  bw.warmup = 5;
  Options lat;
  lat.iters = 1000;
  lat.warmup = 100;
  Options pp;
  pp.min_size = 8;
  pp.max_size = size_t(64) << 10;
  pp.iters = 200;
  pp.warmup = 20;
  Options one;
  one.min_size = 1;
  one.max_size = 8;
  one.iters = 10000;
  one.warmup = 100;
  switch (t) {
    case Test::PutBw:
      return {"gshmem_dev_put_bw",
              "Bandwidth of gshmem_putmem_nbi[_warp|_block] from a kernel, PE 0 -> PE 1, next to "
              "cudaMemcpy device-to-device.",
              bw};
    case Test::GetBw:
      return {"gshmem_dev_get_bw",
              "Bandwidth of gshmem_getmem_nbi[_warp|_block] from a kernel, PE 0 <- PE 1.", bw};
    case Test::PLatency:
      return {"gshmem_dev_p_latency",
              "Latency of gshmem_uintN_p + gshmem_quiet from one GPU thread, PE 0 -> PE 1.", one};
    case Test::PutSignalPingPong:
      return {"gshmem_dev_put_signal_ping_pong",
              "Ping-pong of gshmem_putmem_signal[_warp|_block] + gshmem_signal_wait_until "
              "between kernels on PE 0 and PE 1.",
              pp};
    case Test::BarrierLatency:
      return {"gshmem_dev_barrier_latency",
              "Latency of gshmem_barrier_all[_warp|_block] from a kernel on every PE.", lat};
  }
  return {"?", "?", lat};
}

int g_status = 0;

}  // namespace

int dev_bench_main(int argc, char** argv, Test test) {
  Program prog = program_of(test);
  DevOptions d;
  std::string bad = take_device_options(&argc, argv, &d);
  std::string what = std::string(prog.what) +
                     "\nDevice options (besides those below):"
                     "\n  --scope S     thread, warp or block: the group making each call "
                     "(default block)"
                     "\n  -c BLOCKS     thread blocks of the bandwidth kernels (default: 2 per SM)"
                     "\n  -t THREADS    threads per block, a multiple of 32 (default 1024)";
  Usage usage{prog.name, what.c_str()};
  int status = run_gshmem_bench(argc, argv, usage, prog.defaults, 2, [&](const Bench& b) {
    if (!bad.empty()) {
      if (b.me == 0) std::fprintf(stderr, "%s: %s (try -h)\n", prog.name, bad.c_str());
      g_status = 2;
      return;
    }
    std::string why = no_gpu_reason();
    if (!why.empty()) {
      if (b.me == 0) std::printf("%s: SKIPPED: no usable GPU: %s\n", prog.name, why.c_str());
      return;
    }
    std::string problem = gshmem::device_context_problem(gshmem::device_context());
    if (!problem.empty()) {
      std::fprintf(stderr, "%s: PE %d: FAILED: kernels cannot use the default context: %s\n",
                   prog.name, b.me, problem.c_str());
      gshmem_global_exit(1);
    }
    if (d.blocks == 0) {
      int dev = 0, sms = 0;
      DEV_CHECK(cudaGetDevice(&dev));
      DEV_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
      d.blocks = 2 * sms;
    }
    switch (test) {
      case Test::PutBw:
        bandwidth(b, d, true);
        break;
      case Test::GetBw:
        bandwidth(b, d, false);
        break;
      case Test::PLatency:
        p_latency(b);
        break;
      case Test::PutSignalPingPong:
        ping_pong(b, d);
        break;
      case Test::BarrierLatency:
        barrier_latency(b, d);
        break;
    }
  });
  return status ? status : g_status;
}

}  // namespace perftest::device
