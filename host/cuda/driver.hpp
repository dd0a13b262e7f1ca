// The CUDA driver API, reached at run time through the runtime's entry-point query. libgshmem
// links the static CUDA runtime and never libcuda, so its binaries start on machines without a
// driver; what the runtime cannot give (VMM, stream memory operations) comes through this table.
// CUDA-only: included by sources built when GSHMEM_HAVE_CUDA.
#pragma once

#include <cuda.h>
#include <cudaTypedefs.h>

#include <string>

namespace gshmem::gpu {

// Pointers with the signatures of the CUDA 12.0 ABI (cudaGetDriverEntryPointByVersion 12000):
// a newer driver hands out the versions compatible with it. nullptr when the driver lacks one.
struct Driver {
  PFN_cuGetErrorString_v6000 cuGetErrorString;
  PFN_cuDeviceGet_v2000 cuDeviceGet;
  PFN_cuDeviceGetAttribute_v2000 cuDeviceGetAttribute;
  PFN_cuCtxGetCurrent_v4000 cuCtxGetCurrent;
  PFN_cuCtxGetDevice_v2000 cuCtxGetDevice;
  PFN_cuMemCreate_v10020 cuMemCreate;
  PFN_cuMemRelease_v10020 cuMemRelease;
  PFN_cuMemExportToShareableHandle_v10020 cuMemExportToShareableHandle;
  PFN_cuMemImportFromShareableHandle_v10020 cuMemImportFromShareableHandle;
  PFN_cuMemAddressReserve_v10020 cuMemAddressReserve;
  PFN_cuMemAddressFree_v10020 cuMemAddressFree;
  PFN_cuMemMap_v10020 cuMemMap;
  PFN_cuMemUnmap_v10020 cuMemUnmap;
  PFN_cuMemSetAccess_v10020 cuMemSetAccess;
  PFN_cuMemGetAllocationGranularity_v10020 cuMemGetAllocationGranularity;
  PFN_cuPointerGetAttribute_v4000 cuPointerGetAttribute;
  PFN_cuStreamWaitValue64_v11070 cuStreamWaitValue64;
  PFN_cuStreamWriteValue64_v11070 cuStreamWriteValue64;

  // Every VMM entry point is there (cuMemCreate through cuMemGetAllocationGranularity).
  bool has_vmm() const;
  bool has_stream_memops() const { return cuStreamWaitValue64 && cuStreamWriteValue64; }
};

// Loaded once per process. nullptr when there is no usable driver (probe() says why).
const Driver* driver();

// "cuMemCreate: out of memory (CUDA_ERROR_OUT_OF_MEMORY)" for messages.
std::string describe(CUresult rc, const char* call);

}  // namespace gshmem::gpu
