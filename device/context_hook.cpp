// gshmem::device, host side: keeps the kernels' default contexts (__constant__ copies) equal to
// the runtime's. Plain C++ (no device code), so a whole-program CUDA build that links it needs no
// device link.
#include <cuda_runtime_api.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <string>
#include <vector>

#include "gshmem/device/context.cuh"
#include "gshmem/device_module.h"
#include "gshmem/types.h"

extern "C" {
// The runtime's hook registry (host/). Weak so that a libgshmem without it still links; then
// attach() says so once and the default context stays zero ("not initialised" on the device).
__attribute__((weak)) void gshmemx_register_context_hook(void (*hook)(const void* ctx,
                                                                      size_t bytes));
int gshmemi_device_attach(const void* symbol);
}

namespace gshmem {
DeviceContext device_context();
std::string device_context_problem(const DeviceContext& c);
}  // namespace gshmem

namespace {

struct State {
  std::recursive_mutex mu;  // the runtime may call the hook from inside register (already up)
  std::vector<const void*> symbols;
  std::vector<void*> globals;  // device addresses of copies in modules the program loaded
  gshmem::DeviceContext last{};
  int device = -1;  // where the last non-empty context's heap is (the zero one goes there too)
  bool hooked = false;
  bool warned = false;
};

State& state() {
  static State* s = new State;  // never destroyed: the finalize hook may run during exit
  return *s;
}

bool gpu_present() {
  int n = 0;
  return cudaGetDeviceCount(&n) == cudaSuccess && n > 0;
}

// The device a context's heap is on (this process's ordinal), -1 when unknown. From the heap
// pointer itself: a hook must not call back into gshmem.
int heap_device(const gshmem::DeviceContext& c) {
  cudaPointerAttributes a{};
  if (!c.heap.base || cudaPointerGetAttributes(&a, c.heap.base) != cudaSuccess) {
    cudaGetLastError();
    return -1;
  }
  return a.type == cudaMemoryTypeDevice ? a.device : -1;
}

// libgshmem has its own CUDA runtime, whose current device is not ours: copy on the heap's
// device (the application's kernels must run there too), and leave ours as it was.
class OnDevice {
 public:
  explicit OnDevice(int want) {
    if (want >= 0 && cudaGetDevice(&old_) == cudaSuccess && old_ != want &&
        cudaSetDevice(want) == cudaSuccess) {
      switched_ = true;
    }
  }
  ~OnDevice() {
    if (switched_) cudaSetDevice(old_);
  }
  OnDevice(const OnDevice&) = delete;
  OnDevice& operator=(const OnDevice&) = delete;

 private:
  int old_ = 0;
  bool switched_ = false;
};

// The copy goes on a private non-blocking stream: cudaMemcpyToSymbol would queue behind every
// kernel on the legacy stream, and such a kernel may be waiting for a peer that is itself inside
// gshmem_malloc, waiting for this PE.
cudaError_t copy_on_own_stream(const void* symbol, const gshmem::DeviceContext& c) {
  cudaStream_t stream = nullptr;
  cudaError_t e = cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking);
  if (e != cudaSuccess) return e;
  e = cudaMemcpyToSymbolAsync(symbol, &c, sizeof c, 0, cudaMemcpyHostToDevice, stream);
  cudaError_t done = cudaStreamSynchronize(stream);
  cudaStreamDestroy(stream);
  return e != cudaSuccess ? e : done;
}

// The same for a copy known by its device address (a loaded module's).
cudaError_t copy_on_own_stream(void* global, const gshmem::DeviceContext& c) {
  cudaStream_t stream = nullptr;
  cudaError_t e = cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking);
  if (e != cudaSuccess) return e;
  e = cudaMemcpyAsync(global, &c, sizeof c, cudaMemcpyHostToDevice, stream);
  cudaError_t done = cudaStreamSynchronize(stream);
  cudaStreamDestroy(stream);
  return e != cudaSuccess ? e : done;
}

template <class Where>
void copy_to(Where symbol, const gshmem::DeviceContext& c, int device) {
  OnDevice on(device);
  cudaError_t e = copy_on_own_stream(symbol, c);
  if (e == cudaSuccess) return;
  cudaGetLastError();  // clear it: the caller's next CUDA call must not see our failure
  // The zeroed context at finalize may arrive after the CUDA runtime is gone; nothing is left
  // that could read it then.
  if (c.n_pes == 0) return;
  std::fprintf(stderr,
               "gshmem: PE %d: could not update the kernels' default context "
               "(cudaMemcpyToSymbolAsync: %s); device calls through it will misbehave\n",
               c.my_pe, cudaGetErrorString(e));
}

void hook(const void* ctx, size_t bytes) {
  if (bytes != sizeof(gshmem::DeviceContext)) {
    std::fprintf(stderr,
                 "gshmem: the runtime's DeviceContext is %zu bytes, gshmem::device was built for "
                 "%zu: rebuild gshmem::device against this libgshmem\n",
                 bytes, sizeof(gshmem::DeviceContext));
    std::abort();
  }
  State& s = state();
  std::lock_guard<std::recursive_mutex> lock(s.mu);
  std::memcpy(&s.last, ctx, bytes);
  // No GPU: no kernel can run, and asking CUDA to copy would only print errors on CPU-only runs.
  if (!gpu_present()) return;
  if (s.last.n_pes != 0) {
    s.device = heap_device(s.last);
    OnDevice on(s.device);
    std::string problem = gshmem::device_context_problem(s.last);
    if (!problem.empty()) {
      std::fprintf(stderr, "gshmem: PE %d: warning: kernels cannot use this context: %s\n",
                   s.last.my_pe, problem.c_str());
    }
  }
  for (const void* sym : s.symbols) copy_to(sym, s.last, s.device);
  for (void* global : s.globals) copy_to(global, s.last, s.device);
}

// The module's (or library's) copy of the default context, through the driver entry point
// `getter` (cuModuleGetGlobal or cuLibraryGetGlobal: the same signature); nullptr after saying
// why.
void* module_global(const char* call, const char* getter, void* handle) {
  using Get = int (*)(unsigned long long* dptr, size_t* bytes, void* handle, const char* name);
  if (!handle) {
    std::fprintf(stderr, "gshmem: %s: the handle is NULL\n", call);
    return nullptr;
  }
  void* fn = nullptr;
  cudaDriverEntryPointQueryResult found{};
  if (!gpu_present() ||
      cudaGetDriverEntryPointByVersion(getter, &fn, 12000, cudaEnableDefault, &found) !=
          cudaSuccess ||
      !fn) {
    cudaGetLastError();
    std::fprintf(stderr, "gshmem: %s: no CUDA driver with %s (is there a GPU?)\n", call, getter);
    return nullptr;
  }
  unsigned long long dptr = 0;
  size_t bytes = 0;
  if (reinterpret_cast<Get>(fn)(&dptr, &bytes, handle, "gshmemi_device_ctx") != 0) {
    std::fprintf(stderr,
                 "gshmem: %s: the module has no gshmemi_device_ctx: compile it with -rdc=true "
                 "and device-link it against gshmem::device\n",
                 call);
    return nullptr;
  }
  if (bytes != sizeof(gshmem::DeviceContext)) {
    std::fprintf(stderr,
                 "gshmem: %s: the module's context is %zu bytes, this gshmem::device's %zu: "
                 "rebuild the module against it\n",
                 call, bytes, sizeof(gshmem::DeviceContext));
    return nullptr;
  }
  return reinterpret_cast<void*>(static_cast<uintptr_t>(dptr));
}

int attach_global(const char* call, const char* getter, void* handle) {
  void* global = module_global(call, getter, handle);
  if (!global) return GSHMEM_ERROR_INVALID_ARGUMENT;
  State& s = state();
  std::lock_guard<std::recursive_mutex> lock(s.mu);
  for (void* g : s.globals) {
    if (g == global) return GSHMEM_SUCCESS;
  }
  s.globals.push_back(global);
  if (!s.hooked && gshmemx_register_context_hook) {
    s.hooked = true;
    gshmemx_register_context_hook(hook);  // copies at once when already initialised
  } else if (s.last.n_pes != 0) {
    copy_to(global, s.last, s.device);
  }
  return GSHMEM_SUCCESS;
}

int detach_global(const char* call, const char* getter, void* handle) {
  void* global = module_global(call, getter, handle);
  if (!global) return GSHMEM_ERROR_INVALID_ARGUMENT;
  State& s = state();
  std::lock_guard<std::recursive_mutex> lock(s.mu);
  for (size_t i = 0; i < s.globals.size(); ++i) {
    if (s.globals[i] == global) {
      s.globals.erase(s.globals.begin() + long(i));
      break;
    }
  }
  return GSHMEM_SUCCESS;
}

}  // namespace

extern "C" int gshmemx_cumodule_init(void* module) {
  return attach_global("gshmemx_cumodule_init", "cuModuleGetGlobal", module);
}
extern "C" int gshmemx_cumodule_finalize(void* module) {
  return detach_global("gshmemx_cumodule_finalize", "cuModuleGetGlobal", module);
}
extern "C" int gshmemx_culibrary_init(void* library) {
  return attach_global("gshmemx_culibrary_init", "cuLibraryGetGlobal", library);
}
extern "C" int gshmemx_culibrary_finalize(void* library) {
  return detach_global("gshmemx_culibrary_finalize", "cuLibraryGetGlobal", library);
}

extern "C" int gshmemi_device_attach(const void* symbol) {
  State& s = state();
  std::lock_guard<std::recursive_mutex> lock(s.mu);
  for (const void* sym : s.symbols) {
    if (sym == symbol) return 0;
  }
  s.symbols.push_back(symbol);
  if (!gshmemx_register_context_hook) {
    if (!s.warned) {
      std::fprintf(stderr,
                   "gshmem: this libgshmem has no gshmemx_register_context_hook: kernels' "
                   "default context stays empty and device calls through it will fail\n");
      s.warned = true;
    }
    return -1;
  }
  if (!s.hooked) {
    s.hooked = true;
    gshmemx_register_context_hook(hook);  // may call hook() at once when already initialised
  } else if (s.last.n_pes != 0 && gpu_present()) {
    copy_to(symbol, s.last, s.device);
  }
  return 0;
}

gshmem::DeviceContext gshmem::device_context() {
  State& s = state();
  std::lock_guard<std::recursive_mutex> lock(s.mu);
  return s.last;
}
