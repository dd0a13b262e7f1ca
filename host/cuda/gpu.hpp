// The CUDA-only layer as the rest of the runtime sees it: no CUDA headers here, so host/ and
// transports/ compile the same with and without a toolkit. Built without CUDA, probe() reports
// that and every other call throws Error (the runtime never reaches them: no GPU, no device heap).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "gshmem/device/context.cuh"

namespace gshmem::gpu {

// Whether this process can use a GPU, and if not, why ("no CUDA driver", "no device", the
// runtime's error string). Computed once; never throws.
struct Probe {
  bool available = false;
  int devices = 0;
  std::string why;  // empty when available
};
const Probe& probe();

// Picks this PE's device and makes it current: GSHMEM_CUDA_DEVICE when set, else the device
// whose context the application made current (cudaSetDevice before gshmem_init), else
// local_index mod device count. Several PEs may share one device: same-device peers map each
// other's heap like any other peer. `how` says which rule decided, for the log.
int select_device(int local_index, std::string* how);

// A device's identity across processes (its UUID): ordinals differ with CUDA_VISIBLE_DEVICES.
struct DeviceId {
  uint8_t uuid[16];
};
DeviceId device_id(int device);
// This process's ordinal for the device, -1 when it is not visible here.
int ordinal_of(const DeviceId& id);
// Kernels on `device` can load and store memory of `peer` (same device, or P2P over NVLink/PCIe).
bool can_access(int device, int peer);

// Zeroed pinned host memory mapped for every device, at the same address on host and device
// (UVA): the channel ring, the team table, the abort flag live there. Throws Error naming `what`.
void* pinned_alloc(size_t bytes, const char* what);
void pinned_free(void* p);
// Pins and maps existing host memory; returns its device address (the same under UVA).
void* host_register(void* p, size_t bytes, const char* what);
void host_unregister(void* p);
// Copies (src nullptr: zeroes) on a private non-blocking stream and waits for it: never the legacy
// stream, which would wait for the application's kernels, one of which may spin on a peer that
// is itself inside gshmem_malloc. Throws Error naming `call` and `what`.
void private_copy(void* dst, const void* src, size_t bytes, const char* call, const char* what);
// Whether host instructions may load and store p: false for device memory (cudaMalloc, the
// device heap), true for host memory of any kind and for managed memory.
bool host_accessible(const void* p);
// Device memory for tables kernels read (peer base tables).
void* device_alloc(size_t bytes, const char* what);
void device_free(void* p);

// The library's kernels, loaded when a PE's queue is made: under CUDA's lazy loading a kernel is
// loaded at its first launch, and that load can block behind a kernel of the process that spins
// (waiting for a peer that waits for this launch). Layers register theirs during static
// initialisation (a __global__ function's address).
void register_kernel(const void* kernel, const char* name);

// ---- Host calls on a device heap ---------------------------------------------------------
// The element types the one-thread kernel knows.
enum class ValType : uint8_t { I16, U16, I32, U32, I64, U64, F32, F64 };
template <class T>
constexpr ValType val_type_of() {
  constexpr bool is_float = T(0.5) != T(0);
  constexpr bool is_signed = T(-1) < T(0);
  if constexpr (sizeof(T) == 2) return is_signed ? ValType::I16 : ValType::U16;
  if constexpr (sizeof(T) == 4)
    return is_float ? ValType::F32 : is_signed ? ValType::I32 : ValType::U32;
  return is_float ? ValType::F64 : is_signed ? ValType::I64 : ValType::U64;
}

// One device-API call, run by one GPU thread with the device-usable context (host/cuda/ops.cu).
// The same code a kernel would run: mapped peers by load/store, others through the channel.
enum class OpKind : uint8_t {
  Put,         // dst, src, bytes, pe (src and dst device-reachable)
  Get,         // dst, src, bytes, pe
  PutSignal,   // + sig, value, sig_op
  Amo,         // dst, value, cond, amo_op, type, pe; returns the fetched value
  SignalOp,    // sig, value, sig_op, pe
  SignalWait,  // sig, cmp, value; returns the value seen
  WaitUntil,   // dst, cmp, value, type
  Test,        // dst, cmp, value, type; returns 1 when it holds
  Fence,
  Quiet,
  BarrierAll,
  SyncAll,
  Barrier,   // team
  TeamSync,  // team
  P,         // dst, bytes (1, 2, 4 or 8), value (the element's bits), pe
};
struct DeviceOp {
  OpKind kind;
  ValType type;
  uint8_t amo_op;  // AmoOp
  int8_t cmp;      // GSHMEM_CMP_*
  int32_t sig_op;  // GSHMEM_SIGNAL_*
  int32_t pe;
  int32_t team;
  void* dst;
  const void* src;
  uint64_t* sig;
  uint64_t bytes;
  uint64_t value;  // bits of the operand
  uint64_t cond;   // bits of the compare-swap condition
};

// A PE's GPU side: the internal non-blocking stream host calls use, and the device context.
// Not thread-safe beyond what the CUDA runtime gives (host calls are made by one thread at a
// time per PE, as for the host heap).
class Queue {
 public:
  Queue(int device);
  ~Queue();
  Queue(const Queue&) = delete;
  Queue& operator=(const Queue&) = delete;

  int device() const { return device_; }
  // Makes this PE's device current for the calling thread (the runtime's current device is per
  // thread); code that calls the CUDA runtime for the PE first calls this.
  void make_current() const;
  void set_context(const DeviceContext& device_ctx) { dctx_ = device_ctx; }
  const DeviceContext& context() const { return dctx_; }

  // The internal non-blocking stream of host calls. Other streams are the application's
  // cudaStream_t (nullptr is its legacy default stream).
  void* internal() const { return stream_; }
  // On `stream`. wait: synchronise that stream before returning.
  void copy(void* dst, const void* src, size_t bytes, void* stream, bool wait);
  void copy2d(void* dst, size_t dpitch, const void* src, size_t spitch, size_t width, size_t height,
              void* stream, bool wait);
  // Runs op in a one-thread kernel; with wait, returns its result.
  uint64_t run(const DeviceOp& op, void* stream, bool wait);
  // Stream memory operation wait (*addr == value, or (int64)(*addr - value) >= 0 for GE).
  // false when the driver cannot (no stream memops): the caller launches a wait kernel.
  bool wait_value64(void* stream, const uint64_t* addr, uint64_t value, int cmp);
  // Everything issued on the internal stream is complete.
  void sync();
  // Everything issued on this PE's device is complete, the application's streams included
  // (cudaDeviceSynchronize): host barriers and finalize come after the application's kernels.
  void sync_device(const char* call);

 private:
  int device_;
  void* stream_ = nullptr;
  uint64_t* result_ = nullptr;  // pinned, written by the kernel
  DeviceContext dctx_{};
};

// Implemented in ops.cu: launches the one-thread kernel.
void launch_op(const DeviceContext& dctx, const DeviceOp& op, uint64_t* result, void* stream);

}  // namespace gshmem::gpu
