#include "host/cuda/gpu.hpp"

#include <cuda_runtime_api.h>

#include <cstring>
#include <mutex>
#include <vector>

#include "gshmem/gshmem.hpp"
#include "host/cuda/cuda_error.hpp"
#include "host/cuda/driver.hpp"
#include "host/base/env.hpp"
#include "host/base/log.hpp"

namespace gshmem::gpu {

void cuda_fail(int rc, const char* call, std::string_view what, int status, const char* argument) {
  (void)cudaGetLastError();
  auto e = cudaError_t(rc);
  throw Error(status, call, argument,
              std::string(what) + ": " + cudaGetErrorString(e) + " (" + cudaGetErrorName(e) + ")");
}

namespace {

cudaStream_t as_stream(void* s) {
  return static_cast<cudaStream_t>(s);
}

// Host calls may come from any thread; the runtime's current device is per thread.
void use_device(int device) {
  int current = -1;
  if (cudaGetDevice(&current) != cudaSuccess || current != device) {
    cuda_check(cudaSetDevice(device), "gshmem", "cudaSetDevice");
  }
}

}  // namespace

const Probe& probe() {
  static Probe p;
  static std::once_flag once;
  std::call_once(once, [] {
    int count = 0;
    cudaError_t rc = cudaGetDeviceCount(&count);
    if (rc != cudaSuccess) {
      (void)cudaGetLastError();
      int version = 0;
      (void)cudaDriverGetVersion(&version);  // 0 when no driver library loads
      if (rc == cudaErrorInsufficientDriver && version == 0) {
        p.why = "no CUDA driver (libcuda.so.1 not found or not loadable)";
      } else if (rc == cudaErrorInsufficientDriver) {
        // The static runtime needs a driver at least as new as the toolkit gshmem was built with.
        p.why = "the CUDA driver supports CUDA " + std::to_string(version / 1000) + "." +
                std::to_string(version % 1000 / 10) + ", gshmem's CUDA runtime needs " +
                std::to_string(CUDART_VERSION / 1000) + "." +
                std::to_string(CUDART_VERSION % 1000 / 10) + " (update the driver)";
      } else if (rc == cudaErrorNoDevice) {
        p.why = "no CUDA device";
      } else {
        p.why = std::string("cudaGetDeviceCount: ") + cudaGetErrorString(rc);
      }
      return;
    }
    if (count == 0) {
      p.why = "no CUDA device";
      return;
    }
    if (!driver()) {
      p.why = "the CUDA driver does not give its entry points (cudaGetDriverEntryPointByVersion)";
      return;
    }
    p.devices = count;
    p.available = true;
  });
  return p;
}

int select_device(int local_index, std::string* how) {
  const Probe& p = probe();
  if (!p.available) {
    throw Error(GSHMEM_ERROR_INVALID_ARGUMENT, "gshmem_init", "", "no usable GPU: " + p.why);
  }
  const Env& env = Env::get();
  int dev = -1;
  if (env.is_set("GSHMEM_CUDA_DEVICE")) {
    int64_t want = env.integer("GSHMEM_CUDA_DEVICE");
    if (want < 0 || want >= p.devices) {
      throw Error(GSHMEM_ERROR_INVALID_ARGUMENT, "gshmem_init", "GSHMEM_CUDA_DEVICE",
                  "GSHMEM_CUDA_DEVICE=" + std::to_string(want) + " is not a device here (" +
                      std::to_string(p.devices) + " visible)");
    }
    dev = int(want);
    *how = "GSHMEM_CUDA_DEVICE";
  }
  const Driver* d = driver();
  CUcontext current = nullptr;
  if (dev < 0 && d->cuCtxGetCurrent && d->cuCtxGetDevice &&
      d->cuCtxGetCurrent(&current) == CUDA_SUCCESS && current) {
    // The application chose (cudaSetDevice in its own runtime leaves that context current).
    CUdevice cu = 0;
    if (d->cuCtxGetDevice(&cu) == CUDA_SUCCESS) {
      dev = int(cu);
      *how = "the application's current device";
    }
  }
  if (dev < 0) {
    // Several PEs per GPU is allowed: they map each other's VMM memory like any peer.
    dev = local_index % p.devices;
    *how = "local PE index " + std::to_string(local_index) + " mod " + std::to_string(p.devices) +
           " devices";
  }
  cuda_check(cudaSetDevice(dev), "gshmem_init", "cudaSetDevice");
  cuda_check(cudaFree(nullptr), "gshmem_init", "cudaFree(0) (context creation)");
  return dev;
}

DeviceId device_id(int device) {
  cudaDeviceProp prop{};
  cuda_check(cudaGetDeviceProperties(&prop, device), "gshmem_init", "cudaGetDeviceProperties");
  DeviceId id{};
  static_assert(sizeof(id.uuid) == sizeof(prop.uuid.bytes));
  std::memcpy(id.uuid, prop.uuid.bytes, sizeof id.uuid);
  return id;
}

int ordinal_of(const DeviceId& id) {
  for (int dev = 0; dev < probe().devices; ++dev) {
    if (std::memcmp(device_id(dev).uuid, id.uuid, sizeof id.uuid) == 0) return dev;
  }
  return -1;
}

bool can_access(int device, int peer) {
  if (device == peer) return true;
  int ok = 0;
  if (cudaDeviceCanAccessPeer(&ok, device, peer) != cudaSuccess) {
    (void)cudaGetLastError();
    return false;
  }
  return ok != 0;
}

void* pinned_alloc(size_t bytes, const char* what) {
  void* p = nullptr;
  cuda_check(cudaHostAlloc(&p, bytes, cudaHostAllocMapped | cudaHostAllocPortable), "gshmem_init",
             std::string("cudaHostAlloc(") + format_bytes(bytes) + ") for " + what);
  std::memset(p, 0, bytes);
  void* dev = nullptr;
  cuda_check(cudaHostGetDevicePointer(&dev, p, 0), "gshmem_init", "cudaHostGetDevicePointer");
  if (dev != p) {
    // Device structures in this memory hold pointers that host and device both follow.
    cudaFreeHost(p);
    throw Error(GSHMEM_ERROR_INTERNAL, "gshmem_init", "",
                std::string("pinned memory for ") + what +
                    " has different host and device addresses (no unified addressing)");
  }
  return p;
}

void pinned_free(void* p) {
  if (p) cudaFreeHost(p);
}

void* host_register(void* p, size_t bytes, const char* what) {
  cuda_check(cudaHostRegister(p, bytes, cudaHostRegisterMapped | cudaHostRegisterPortable),
             "gshmem_init", std::string("cudaHostRegister for ") + what);
  void* dev = nullptr;
  cuda_check(cudaHostGetDevicePointer(&dev, p, 0), "gshmem_init", "cudaHostGetDevicePointer");
  return dev;
}

void host_unregister(void* p) {
  if (p && cudaHostUnregister(p) != cudaSuccess) (void)cudaGetLastError();
}

void private_copy(void* dst, const void* src, size_t bytes, const char* call, const char* what) {
  cudaStream_t s = nullptr;
  cuda_check(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking), call,
             "cudaStreamCreateWithFlags");
  cudaError_t rc = src ? cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDefault, s)
                       : cudaMemsetAsync(dst, 0, bytes, s);
  if (rc == cudaSuccess) rc = cudaStreamSynchronize(s);
  cudaStreamDestroy(s);
  cuda_check(rc, call,
             std::string(src ? "cudaMemcpyAsync" : "cudaMemsetAsync") + " (" + what + ")");
}

bool host_accessible(const void* p) {
  cudaPointerAttributes a{};
  if (cudaPointerGetAttributes(&a, p) != cudaSuccess) {
    (void)cudaGetLastError();
    return true;  // not known to CUDA: ordinary host memory
  }
  return a.type != cudaMemoryTypeDevice;
}

void* device_alloc(size_t bytes, const char* what) {
  void* p = nullptr;
  cuda_check(cudaMalloc(&p, bytes), "gshmem_init", std::string("cudaMalloc for ") + what);
  private_copy(p, nullptr, bytes, "gshmem_init", what);
  return p;
}

void device_free(void* p) {
  if (p && cudaFree(p) != cudaSuccess) (void)cudaGetLastError();
}

// ---- Queue -------------------------------------------------------------------------------

namespace {

struct Kernel {
  const void* func;
  const char* name;
};
std::vector<Kernel>& kernels() {
  static std::vector<Kernel> all;
  return all;
}

// cudaFuncGetAttributes loads the kernel's module for the current device.
void load_kernels() {
  for (const Kernel& k : kernels()) {
    cudaFuncAttributes a{};
    cuda_check(cudaFuncGetAttributes(&a, k.func), "gshmem_init",
               std::string("cudaFuncGetAttributes (loading ") + k.name + ")");
  }
}

}  // namespace

void register_kernel(const void* kernel, const char* name) {
  kernels().push_back({kernel, name});
}

Queue::Queue(int device) : device_(device) {
  cudaStream_t s = nullptr;
  // Non-blocking: host calls must not serialise with the application's legacy default stream.
  cuda_check(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking), "gshmem_init",
             "cudaStreamCreateWithFlags");
  stream_ = s;
  result_ = static_cast<uint64_t*>(pinned_alloc(64, "host-call results"));
  load_kernels();
}

Queue::~Queue() {
  if (stream_) {
    cudaStreamSynchronize(as_stream(stream_));
    cudaStreamDestroy(as_stream(stream_));
  }
  pinned_free(result_);
  (void)cudaGetLastError();
}

void Queue::make_current() const {
  use_device(device_);
}

void Queue::copy(void* dst, const void* src, size_t bytes, void* stream, bool wait) {
  use_device(device_);
  cudaStream_t s = as_stream(stream);
  cuda_check(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDefault, s), "gshmem", "cudaMemcpyAsync");
  if (wait) cuda_check(cudaStreamSynchronize(s), "gshmem", "cudaStreamSynchronize");
}

void Queue::copy2d(void* dst, size_t dpitch, const void* src, size_t spitch, size_t width,
                   size_t height, void* stream, bool wait) {
  use_device(device_);
  cudaStream_t s = as_stream(stream);
  cuda_check(cudaMemcpy2DAsync(dst, dpitch, src, spitch, width, height, cudaMemcpyDefault, s),
             "gshmem", "cudaMemcpy2DAsync");
  if (wait) cuda_check(cudaStreamSynchronize(s), "gshmem", "cudaStreamSynchronize");
}

uint64_t Queue::run(const DeviceOp& op, void* stream, bool wait) {
  use_device(device_);
  cudaStream_t s = as_stream(stream);
  // Results only for synchronous calls: one slot, and the stream orders the calls.
  launch_op(dctx_, op, wait ? result_ : nullptr, s);
  cuda_check(cudaGetLastError(), "gshmem", "one-thread kernel launch");
  if (!wait) return 0;
  cuda_check(cudaStreamSynchronize(s), "gshmem", "cudaStreamSynchronize");
  return detail::atomic_ref<uint64_t>(*result_).load(detail::acquire);
}

bool Queue::wait_value64(void* stream, const uint64_t* addr, uint64_t value, int cmp) {
  const Driver* d = driver();
  if (!d || !d->has_stream_memops()) return false;
  int ok = 0;
  CUdevice dev = 0;
  if (d->cuDeviceGet(&dev, device_) != CUDA_SUCCESS ||
      d->cuDeviceGetAttribute(&ok, CU_DEVICE_ATTRIBUTE_CAN_USE_64_BIT_STREAM_MEM_OPS, dev) !=
          CUDA_SUCCESS ||
      !ok) {
    return false;
  }
  unsigned flags = cmp == GSHMEM_CMP_EQ ? CU_STREAM_WAIT_VALUE_EQ : CU_STREAM_WAIT_VALUE_GEQ;
  CUresult rc = d->cuStreamWaitValue64(
      static_cast<CUstream>(stream), CUdeviceptr(reinterpret_cast<uintptr_t>(addr)), value, flags);
  if (rc != CUDA_SUCCESS) {
    throw Error(GSHMEM_ERROR_INTERNAL, "gshmem_signal_wait_until_on_stream", "",
                describe(rc, "cuStreamWaitValue64"));
  }
  return true;
}

void Queue::sync() {
  use_device(device_);
  cuda_check(cudaStreamSynchronize(as_stream(stream_)), "gshmem_quiet", "cudaStreamSynchronize");
}

void Queue::sync_device(const char* call) {
  use_device(device_);
  cuda_check(cudaDeviceSynchronize(), call, "cudaDeviceSynchronize (the application's GPU work)");
}

}  // namespace gshmem::gpu
