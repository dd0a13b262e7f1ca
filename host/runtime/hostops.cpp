#include "host/runtime/hostops.hpp"

#include <cstring>
#include <string>

#include "host/base/error.hpp"
#include "host/runtime/runtime.hpp"
#include "host/team/teams.hpp"

namespace gshmem::hostops {

namespace on_gpu {

// Through the context's runtime when it has one, so the job ends naming this PE.
void fail(const DeviceContext& c, const Error& e) {
  if (auto* rt = static_cast<Runtime*>(c.host_runtime)) rt->fail(e);
  raise(e);
}

#if GSHMEM_HAVE_CUDA
gpu::Queue* queue_of(const DeviceContext& c) {
  auto* rt = static_cast<Runtime*>(c.host_runtime);
  return rt ? rt->gpu() : nullptr;
}
#endif

namespace detail {

bool gpu_target(const DeviceContext& c, const void* addr, size_t elem, int pe, bool aligned,
                Site s) {
  if (aligned && reinterpret_cast<uintptr_t>(addr) % elem != 0 && elem <= 8) {
    gshmem::detail::bad_input(c, s, BadInput::Misaligned, addr, elem, pe);
  }
  Remote r = resolve(c, addr, elem, pe, s);
  return r.ptr && r.segment == 0;
}

uint64_t run(gpu::Queue& q, const gpu::DeviceOp& op) {
  return q.run(op, q.internal(), true);
}

}  // namespace detail

namespace {

// The mapped address of a heap range on pe, nullptr when the plain code applies (not mapped,
// or static data). Validates like the plain code.
char* mapped_heap(const DeviceContext& c, const void* addr, uint64_t bytes, int pe, Site s) {
  Remote r = resolve(c, addr, bytes, pe, s);
  return r.segment == 0 ? r.ptr : nullptr;
}

}  // namespace

namespace {

// A contiguous copy between host memory and a heap range mapped here, on the internal stream.
bool copy(const DeviceContext& c, bool is_put, void* dst, const void* src, uint64_t bytes, int pe,
          bool nbi, Site s) {
  gpu::Queue* q = queue_of(c);
  if (!q) return false;
  if (bytes == 0) return true;
  char* mapped = mapped_heap(c, is_put ? dst : src, bytes, pe, s.with(is_put ? "dest" : "source"));
  if (!mapped) return false;
  q->copy(is_put ? mapped : dst, is_put ? src : mapped, bytes, q->internal(), !nbi);
  return true;
}

}  // namespace

bool putmem(const DeviceContext& c, void* dst, const void* src, uint64_t bytes, int pe, bool nbi,
            Site s) {
  return copy(c, true, dst, src, bytes, pe, nbi, s);
}

bool getmem(const DeviceContext& c, void* dst, const void* src, uint64_t bytes, int pe, bool nbi,
            Site s) {
  return copy(c, false, dst, src, bytes, pe, nbi, s);
}

bool strided(const DeviceContext& c, bool is_put, void* dst, const void* src, size_t elem,
             ptrdiff_t dst_stride, ptrdiff_t src_stride, size_t nelems, int pe, Site s) {
  gpu::Queue* q = queue_of(c);
  if (!q) return false;
  const void* remote = is_put ? dst : src;
  uint64_t span = (uint64_t(nelems - 1) * uint64_t(is_put ? dst_stride : src_stride) + 1) * elem;
  char* mapped = mapped_heap(c, remote, span, pe, s.with(is_put ? "dest" : "source"));
  if (!mapped) return false;
  // One 2D copy: rows of one element, pitches of the strides.
  q->copy2d(is_put ? mapped : dst, size_t(dst_stride) * elem, is_put ? src : mapped,
            size_t(src_stride) * elem, elem, nelems, q->internal(), true);
  return true;
}

bool putmem_signal(const DeviceContext& c, void* dst, const void* src, uint64_t bytes,
                   uint64_t* sig, uint64_t value, int sig_op, int pe, bool nbi, Site s) {
  gpu::Queue* q = queue_of(c);
  if (!q) return false;
  gshmem::detail::check_signal_op(c, s, sig, sig_op);
  Remote data = resolve(c, dst, bytes, pe, s.with("dest"));
  Remote signal = resolve(c, sig, sizeof(uint64_t), pe, s.with("sig_addr"));
  if (!data.ptr) return false;  // not mapped: the proxy path orders data and signal itself
  if (bytes && data.segment == 0) {
    q->copy(data.ptr, src, bytes, q->internal(), false);
  } else if (bytes) {
    std::memcpy(data.ptr, src, bytes);  // static data: host memory
  }
  if (signal.segment == 0) {
    // Stream order: the kernel starts after the copy is complete, so the signal follows the data.
    gpu::DeviceOp op{};
    op.kind = gpu::OpKind::SignalOp;
    op.sig = sig;
    op.value = value;
    op.sig_op = sig_op;
    op.pe = pe;
    q->run(op, q->internal(), !nbi);
  } else {
    q->sync();
    gshmem::signal_op(c, sig, value, sig_op, pe, s);
  }
  return true;
}

bool signal_op(const DeviceContext& c, uint64_t* sig, uint64_t value, int sig_op, int pe, Site s) {
  gpu::Queue* q = queue_of(c);
  if (!q) return false;
  gshmem::detail::check_signal_op(c, s, sig, sig_op);
  if (!detail::gpu_target(c, sig, sizeof(uint64_t), pe, true, s.with("sig_addr"))) return false;
  gpu::DeviceOp op{};
  op.kind = gpu::OpKind::SignalOp;
  op.sig = sig;
  op.value = value;
  op.sig_op = sig_op;
  op.pe = pe;
  detail::run(*q, op);
  return true;
}

bool signal_fetch(const DeviceContext& c, const uint64_t* sig, Site s, uint64_t* out) {
  gpu::Queue* q = queue_of(c);
  if (!q || !detail::gpu_target(c, sig, sizeof(uint64_t), c.my_pe, true, s)) return false;
  q->copy(out, sig, sizeof(uint64_t), q->internal(), true);
  return true;
}

bool signal_wait_until(const DeviceContext& c, uint64_t* sig, int cmp, uint64_t value, Site s,
                       uint64_t* out) {
  gpu::Queue* q = queue_of(c);
  if (!q) return false;
  gshmem::detail::check_cmp(c, s, sig, cmp);
  if (!detail::gpu_target(c, sig, sizeof(uint64_t), c.my_pe, true, s.with("sig_addr")))
    return false;
  gpu::DeviceOp op{};
  op.kind = gpu::OpKind::SignalWait;
  op.sig = sig;
  op.cmp = int8_t(cmp);
  op.value = value;
  *out = detail::run(*q, op);
  return true;
}

void sync(const DeviceContext& c) {
  if (gpu::Queue* q = queue_of(c)) q->sync();
}

namespace {

bool collective(const DeviceContext& c, gpu::OpKind kind, gshmem_team_t team) {
  gpu::Queue* q = queue_of(c);
  if (!q) return false;
  gpu::DeviceOp op{};
  op.kind = kind;
  op.team = team;
  detail::run(*q, op);  // after everything issued before it on the stream
  return true;
}

}  // namespace

// A host barrier completes what this PE issued before it, kernels' operations included: it first
// waits for the application's earlier GPU work on every stream (the barrier itself runs on the
// internal stream, which orders nothing with the application's streams).
bool barrier_all(const DeviceContext& c, Site s) {
  if (gpu::Queue* q = queue_of(c)) q->sync_device(s.call);
  return collective(c, gpu::OpKind::BarrierAll, GSHMEM_TEAM_WORLD);
}
bool sync_all(const DeviceContext& c, Site) {
  return collective(c, gpu::OpKind::SyncAll, GSHMEM_TEAM_WORLD);
}
bool barrier(const DeviceContext& c, gshmem_team_t team, Site s) {
  if (gpu::Queue* q = queue_of(c)) q->sync_device(s.call);
  return collective(c, gpu::OpKind::Barrier, team);
}
bool team_sync(const DeviceContext& c, gshmem_team_t team, Site) {
  return collective(c, gpu::OpKind::TeamSync, team);
}

void poll_pause(const DeviceContext& c, uint64_t started_ns, Site s) {
  if (c.abort_flag && *c.abort_flag) gshmem::detail::host_wait_failed(c, s, false);
  uint64_t waited = gshmem::detail::now_ns() - started_ns;
  if (c.timeout_ns && waited > c.timeout_ns) gshmem::detail::host_wait_failed(c, s, true);
  gshmem::detail::host_backoff(c, 0, waited);
}

}  // namespace on_gpu

void read_local(const DeviceContext& c, void* dst, const void* heap_src, size_t bytes) {
  if (gpu::Queue* q = gpu_heap(c) ? on_gpu::queue_of(c) : nullptr) {
    q->copy(dst, heap_src, bytes, q->internal(), true);
  } else {
    std::memcpy(dst, heap_src, bytes);
  }
}

void pe_quiet(const DeviceContext& c, const int* target_pes, size_t n, Site s) {
  if (n && !target_pes) {
    on_gpu::fail(c, Error(GSHMEM_ERROR_INVALID_ARGUMENT, s.call, "target_pes",
                          "target_pes is NULL with npes=" + std::to_string(n)));
  }
  for (size_t i = 0; i < n; ++i) {
    if (target_pes[i] < 0 || target_pes[i] >= c.n_pes) {
      on_gpu::fail(c,
                   Error(GSHMEM_ERROR_INVALID_ARGUMENT, s.call, "target_pes",
                         "target_pes[" + std::to_string(i) + "]=" + std::to_string(target_pes[i]) +
                             " is out of range (0.." + std::to_string(c.n_pes - 1) + ")"));
    }
  }
  quiet(c);
}

TeamCalls team_calls() {
  TeamCalls calls;
  calls.p64 = [](const DeviceContext& c, uint64_t* dst, uint64_t value, int pe, Site s) {
    hostops::p(c, dst, value, pe, s);
  };
  calls.barrier = [](const DeviceContext& c, gshmem_team_t team, Site s) {
    hostops::barrier(c, team, s);
  };
  calls.team_sync = [](const DeviceContext& c, gshmem_team_t team, Site s) {
    hostops::team_sync(c, team, s);
  };
  calls.quiet = [](const DeviceContext& c) { hostops::quiet(c); };
  calls.read_local = read_local;
  return calls;
}

}  // namespace gshmem::hostops
