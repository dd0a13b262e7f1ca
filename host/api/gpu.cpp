// C API: the GPU side. The probe, the heap kind, the context hook for the device library, and
// the stream-ordered calls (which need a GPU heap: they are enqueued, never run on the host).
#include <cstdio>
#include <cstring>

#include "host/api/capi.hpp"
#include "host/base/env.hpp"
#include "host/base/log.hpp"
#include "host/cuda/gpu.hpp"
#include "host/runtime/process.hpp"
#include "host/runtime/runtime.hpp"

using gshmem::capi::ctx;
namespace gpu = gshmem::gpu;

namespace {

// The GPU queue for an on-stream call, or nullptr after reporting why there is none.
gpu::Queue* stream_queue(const char* call) {
  gshmem::Runtime* rt = gshmem::detail::default_runtime();
  if (!rt) {
    gshmem::log::error("%s: %s", call, gshmem::detail::not_running().c_str());
    return nullptr;
  }
  if (!rt->gpu()) {
    gshmem::log::error(
        "%s: the symmetric heap is in host memory (GSHMEM_HEAP=%s); on-stream calls "
        "need a GPU heap (GSHMEM_HEAP=device, or auto in a program that links gshmem::device)",
        call, gshmem::Env::get().str("GSHMEM_HEAP").c_str());
  }
  return rt->gpu();
}

// Where a heap address is for an on-stream call: 1 mapped here, 0 reached through the proxy,
// -1 bad (static data cannot be reached from a stream; resolve reports other bad input itself).
int where(const void* addr, uint64_t bytes, int pe, gshmem::Site s, char** mapped) {
  gshmem::Remote r = gshmem::resolve(ctx(), addr, bytes, pe, s);
  if (r.segment != 0) {
    gshmem::log::error(
        "%s: %s=%p is in the program's static data; on-stream calls reach the "
        "symmetric heap only",
        s.call, s.arg ? s.arg : "address", addr);
    return -1;
  }
  *mapped = r.ptr;
  return r.ptr ? 1 : 0;
}

int enqueue(gpu::Queue* q, gpu::DeviceOp op, void* stream) {
  q->run(op, stream, false);
  return GSHMEM_SUCCESS;
}

gpu::DeviceOp make(gpu::OpKind kind) {
  gpu::DeviceOp op{};
  op.kind = kind;
  return op;
}

// A team barrier or sync on a stream: every member enqueues it (collective over the team).
int team_on_stream(gpu::OpKind kind, gshmem_team_t team, void* stream, const char* call) {
  gpu::Queue* q = stream_queue(call);
  if (!q) return GSHMEM_ERROR_INVALID_ARGUMENT;
  if (!gshmem::capi::member_of(team)) {
    gshmem::log::error("%s: team=%d is not a team this PE belongs to", call, int(team));
    return GSHMEM_ERROR_INVALID_ARGUMENT;
  }
  gpu::DeviceOp op = make(kind);
  op.team = team;
  return enqueue(q, op, stream);
}

// Later work on the stream waits until the local ivar (bytes wide) satisfies cmp.
int wait_on_stream(void* ivar, uint64_t bytes, gpu::ValType type, int cmp, uint64_t value,
                   void* stream, const char* call) {
  gpu::Queue* q = stream_queue(call);
  if (!q) return GSHMEM_ERROR_INVALID_ARGUMENT;
  gshmem::Site s{call};
  gshmem::detail::check_cmp(ctx(), s, ivar, cmp);
  char* local = nullptr;
  if (where(ivar, bytes, ctx().my_pe, s.with("ivar"), &local) < 0) {
    return GSHMEM_ERROR_INVALID_ARGUMENT;
  }
  gpu::DeviceOp op = make(gpu::OpKind::WaitUntil);
  op.dst = ivar;
  op.pe = ctx().my_pe;
  op.type = type;
  op.cmp = int8_t(cmp);
  op.value = value;
  return enqueue(q, op, stream);
}

// One element: its bits travel in the operation, so `value` need not outlive the call.
int p_on_stream(void* dest, uint64_t bytes, uint64_t bits, int pe, void* stream, const char* call) {
  gpu::Queue* q = stream_queue(call);
  if (!q) return GSHMEM_ERROR_INVALID_ARGUMENT;
  char* to = nullptr;
  if (where(dest, bytes, pe, {call, -1, "dest"}, &to) < 0) return GSHMEM_ERROR_INVALID_ARGUMENT;
  gpu::DeviceOp op = make(gpu::OpKind::P);
  op.dst = dest;
  op.bytes = bytes;
  op.value = bits;
  op.pe = pe;
  return enqueue(q, op, stream);
}

}  // namespace

extern "C" {

int gshmemx_gpu_available(char* why, size_t len) {
  const gpu::Probe& p = gpu::probe();
  if (why && len) std::snprintf(why, len, "%s", p.available ? "" : p.why.c_str());
  return p.available ? 1 : 0;
}

int gshmemx_heap_kind(void) {
  gshmem::Runtime* rt = gshmem::detail::default_runtime();
  if (!rt) return GSHMEMX_HEAP_NONE;
  return rt->gpu() ? GSHMEMX_HEAP_DEVICE : GSHMEMX_HEAP_HOST;
}

int gshmemx_cuda_device(void) {
  gshmem::Runtime* rt = gshmem::detail::default_runtime();
  return rt && rt->gpu() ? rt->gpu()->device() : -1;
}

void gshmemx_register_context_hook(void (*hook)(const void* ctx, size_t bytes)) {
  if (hook) gshmem::detail::register_context_hook(hook);
}

int gshmem_putmem_on_stream(void* dest, const void* source, size_t bytes, int pe, void* stream) {
  const char* call = "gshmem_putmem_on_stream";
  gpu::Queue* q = stream_queue(call);
  if (!q) return GSHMEM_ERROR_INVALID_ARGUMENT;
  if (!bytes) return GSHMEM_SUCCESS;
  char* to = nullptr;
  int w = where(dest, bytes, pe, {call, -1, "dest"}, &to);
  if (w < 0) return GSHMEM_ERROR_INVALID_ARGUMENT;
  if (w) {
    q->copy(to, source, bytes, stream, false);
    return GSHMEM_SUCCESS;
  }
  gpu::DeviceOp op = make(gpu::OpKind::Put);
  op.dst = dest;
  op.src = source;
  op.bytes = bytes;
  op.pe = pe;
  return enqueue(q, op, stream);
}

int gshmem_getmem_on_stream(void* dest, const void* source, size_t bytes, int pe, void* stream) {
  const char* call = "gshmem_getmem_on_stream";
  gpu::Queue* q = stream_queue(call);
  if (!q) return GSHMEM_ERROR_INVALID_ARGUMENT;
  if (!bytes) return GSHMEM_SUCCESS;
  char* from = nullptr;
  int w = where(source, bytes, pe, {call, -1, "source"}, &from);
  if (w < 0) return GSHMEM_ERROR_INVALID_ARGUMENT;
  if (w) {
    q->copy(dest, from, bytes, stream, false);
    return GSHMEM_SUCCESS;
  }
  gpu::DeviceOp op = make(gpu::OpKind::Get);
  op.dst = dest;
  op.src = source;
  op.bytes = bytes;
  op.pe = pe;
  return enqueue(q, op, stream);
}

int gshmem_putmem_signal_on_stream(void* dest, const void* source, size_t bytes, uint64_t* sig_addr,
                                   uint64_t signal, int sig_op, int pe, void* stream) {
  const char* call = "gshmem_putmem_signal_on_stream";
  gpu::Queue* q = stream_queue(call);
  if (!q) return GSHMEM_ERROR_INVALID_ARGUMENT;
  gshmem::Site s{call};
  gshmem::detail::check_signal_op(ctx(), s, sig_addr, sig_op);
  char* to = nullptr;
  char* sig = nullptr;
  int w = where(dest, bytes, pe, s.with("dest"), &to);
  if (w < 0 || where(sig_addr, sizeof(uint64_t), pe, s.with("sig_addr"), &sig) < 0) {
    return GSHMEM_ERROR_INVALID_ARGUMENT;
  }
  gpu::DeviceOp op = make(w ? gpu::OpKind::SignalOp : gpu::OpKind::PutSignal);
  if (w && bytes) q->copy(to, source, bytes, stream, false);  // the signal kernel follows it
  op.dst = dest;
  op.src = source;
  op.bytes = bytes;
  op.sig = sig_addr;
  op.value = signal;
  op.sig_op = sig_op;
  op.pe = pe;
  return enqueue(q, op, stream);
}

int gshmem_signal_op_on_stream(uint64_t* sig_addr, uint64_t signal, int sig_op, int pe,
                               void* stream) {
  const char* call = "gshmem_signal_op_on_stream";
  gpu::Queue* q = stream_queue(call);
  if (!q) return GSHMEM_ERROR_INVALID_ARGUMENT;
  gshmem::Site s{call};
  gshmem::detail::check_signal_op(ctx(), s, sig_addr, sig_op);
  char* sig = nullptr;
  if (where(sig_addr, sizeof(uint64_t), pe, s.with("sig_addr"), &sig) < 0) {
    return GSHMEM_ERROR_INVALID_ARGUMENT;
  }
  gpu::DeviceOp op = make(gpu::OpKind::SignalOp);
  op.sig = sig_addr;
  op.value = signal;
  op.sig_op = sig_op;
  op.pe = pe;
  return enqueue(q, op, stream);
}

int gshmem_signal_wait_until_on_stream(uint64_t* sig_addr, int cmp, uint64_t cmp_value,
                                       void* stream) {
  const char* call = "gshmem_signal_wait_until_on_stream";
  gpu::Queue* q = stream_queue(call);
  if (!q) return GSHMEM_ERROR_INVALID_ARGUMENT;
  gshmem::Site s{call};
  gshmem::detail::check_cmp(ctx(), s, sig_addr, cmp);
  char* local = nullptr;
  if (where(sig_addr, sizeof(uint64_t), ctx().my_pe, s.with("sig_addr"), &local) < 0) {
    return GSHMEM_ERROR_INVALID_ARGUMENT;
  }
  // A stream memory operation where it can express the comparison (GE is the driver's wrapping
  // compare, (int64)(*sig - value) >= 0: the same as >= for counters within 2^63 of the value).
  if ((cmp == GSHMEM_CMP_EQ || cmp == GSHMEM_CMP_GE) &&
      q->wait_value64(stream, sig_addr, cmp_value, cmp)) {
    return GSHMEM_SUCCESS;
  }
  gpu::DeviceOp op = make(gpu::OpKind::SignalWait);
  op.sig = sig_addr;
  op.cmp = int8_t(cmp);
  op.value = cmp_value;
  return enqueue(q, op, stream);
}

int gshmem_quiet_on_stream(void* stream) {
  gpu::Queue* q = stream_queue("gshmem_quiet_on_stream");
  return q ? enqueue(q, make(gpu::OpKind::Quiet), stream) : GSHMEM_ERROR_INVALID_ARGUMENT;
}

int gshmem_barrier_all_on_stream(void* stream) {
  gpu::Queue* q = stream_queue("gshmem_barrier_all_on_stream");
  return q ? enqueue(q, make(gpu::OpKind::BarrierAll), stream) : GSHMEM_ERROR_INVALID_ARGUMENT;
}

int gshmem_sync_all_on_stream(void* stream) {
  gpu::Queue* q = stream_queue("gshmem_sync_all_on_stream");
  return q ? enqueue(q, make(gpu::OpKind::SyncAll), stream) : GSHMEM_ERROR_INVALID_ARGUMENT;
}

int gshmem_barrier_on_stream(gshmem_team_t team, void* stream) {
  return team_on_stream(gpu::OpKind::Barrier, team, stream, "gshmem_barrier_on_stream");
}

int gshmem_team_sync_on_stream(gshmem_team_t team, void* stream) {
  return team_on_stream(gpu::OpKind::TeamSync, team, stream, "gshmem_team_sync_on_stream");
}

#define GSHMEM_DEF_P_ON_STREAM(NAME, T)                                             \
  int gshmem_##NAME##_p_on_stream(T* dest, T value, int pe, void* stream) {         \
    return p_on_stream(dest, sizeof(T), gshmem::detail::to_bits(value), pe, stream, \
                       "gshmem_" #NAME "_p_on_stream");                             \
  }
GSHMEM_FOR_RMA_TYPES(GSHMEM_DEF_P_ON_STREAM)
#undef GSHMEM_DEF_P_ON_STREAM

#define GSHMEM_DEF_WAIT_ON_STREAM(NAME, T)                                                \
  int gshmem_##NAME##_wait_until_on_stream(T* ivar, int cmp, T cmp_value, void* stream) { \
    return wait_on_stream(ivar, sizeof(T), gpu::val_type_of<T>(), cmp,                    \
                          gshmem::detail::to_bits(cmp_value), stream,                     \
                          "gshmem_" #NAME "_wait_until_on_stream");                       \
  }
GSHMEM_FOR_WAIT_TYPES(GSHMEM_DEF_WAIT_ON_STREAM)
#undef GSHMEM_DEF_WAIT_ON_STREAM

}  // extern "C"
