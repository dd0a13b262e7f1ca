#include "host/cuda/driver.hpp"

#include <cuda_runtime_api.h>

#include <mutex>

namespace gshmem::gpu {

namespace {

Driver g_driver{};
bool g_loaded = false;

template <class Fn>
void load(const char* symbol, Fn* out) {
  void* fn = nullptr;
  cudaDriverEntryPointQueryResult status{};
  // 12000: the ABI the typedefs above describe. Not cudaGetDriverEntryPoint: deprecated in 13.
  if (cudaGetDriverEntryPointByVersion(symbol, &fn, 12000, cudaEnableDefault, &status) !=
          cudaSuccess ||
      status != cudaDriverEntryPointSuccess) {
    fn = nullptr;
    (void)cudaGetLastError();  // the query's failure is not the application's error
  }
  *out = reinterpret_cast<Fn>(fn);
}

}  // namespace

bool Driver::has_vmm() const {
  return cuMemCreate && cuMemRelease && cuMemExportToShareableHandle &&
         cuMemImportFromShareableHandle && cuMemAddressReserve && cuMemAddressFree && cuMemMap &&
         cuMemUnmap && cuMemSetAccess && cuMemGetAllocationGranularity;
}

const Driver* driver() {
  static std::once_flag once;
  std::call_once(once, [] {
    int count = 0;
    // The runtime loads libcuda on this first call; without a driver it fails cleanly.
    if (cudaGetDeviceCount(&count) != cudaSuccess) {
      (void)cudaGetLastError();
      return;
    }
    Driver& d = g_driver;
    load("cuGetErrorString", &d.cuGetErrorString);
    load("cuDeviceGet", &d.cuDeviceGet);
    load("cuDeviceGetAttribute", &d.cuDeviceGetAttribute);
    load("cuCtxGetCurrent", &d.cuCtxGetCurrent);
    load("cuCtxGetDevice", &d.cuCtxGetDevice);
    load("cuMemCreate", &d.cuMemCreate);
    load("cuMemRelease", &d.cuMemRelease);
    load("cuMemExportToShareableHandle", &d.cuMemExportToShareableHandle);
    load("cuMemImportFromShareableHandle", &d.cuMemImportFromShareableHandle);
    load("cuMemAddressReserve", &d.cuMemAddressReserve);
    load("cuMemAddressFree", &d.cuMemAddressFree);
    load("cuMemMap", &d.cuMemMap);
    load("cuMemUnmap", &d.cuMemUnmap);
    load("cuMemSetAccess", &d.cuMemSetAccess);
    load("cuMemGetAllocationGranularity", &d.cuMemGetAllocationGranularity);
    load("cuPointerGetAttribute", &d.cuPointerGetAttribute);
    load("cuStreamWaitValue64", &d.cuStreamWaitValue64);
    load("cuStreamWriteValue64", &d.cuStreamWriteValue64);
    g_loaded = d.cuGetErrorString && d.cuDeviceGet && d.cuDeviceGetAttribute;
  });
  return g_loaded ? &g_driver : nullptr;
}

std::string describe(CUresult rc, const char* call) {
  const char* text = nullptr;
  if (const Driver* d = driver(); d && d->cuGetErrorString) d->cuGetErrorString(rc, &text);
  return std::string(call) + ": " + (text ? text : "unknown error") + " (CUresult " +
         std::to_string(int(rc)) + ")";
}

}  // namespace gshmem::gpu
