// Plumbing shared by the device C API headers (capi_rma.cuh, capi_amo.cuh, capi_sync.cuh).
//
// How one name serves host code and kernels (gshmem_putmem from main() and from a kernel, as
// NVSHMEM allows): nvcc cannot overload on __host__/__device__, so each name the host API
// declares in gshmem.h is redeclared here as __host__ __device__ and defined only in the device
// compilation pass (__CUDA_ARCH__), over the templates and the default context. The host pass
// sees a declaration only, so host calls still go to the library's function of that name; the
// device pass inlines the template. Names that exist only on the device (the _warp and _block
// forms) are plain __device__ functions.
#pragma once

#if !defined(__CUDACC__)
#error "gshmem/device/capi*.cuh are for CUDA sources (nvcc); host code includes gshmem/gshmem.h"
#endif

#include "gshmem/device.cuh"
#include "gshmem/device/default_context.cuh"
#include "gshmem/device/sized.cuh"
#include "gshmem/gshmem.h"

// A function the host API declares too. gshmem.h declared it __host__ first; turning that into
// __host__ __device__ is what this header is for, so nvcc's note about it (20040) is expected.
#if defined(__CUDA_ARCH__)
#define GSHMEMI_SHARED(...) extern "C" __host__ __device__ GSHMEM_INLINE __VA_ARGS__
#define GSHMEMI_BODY(...) \
  { __VA_ARGS__ }
#else
#define GSHMEMI_SHARED(...) extern "C" __host__ __device__ __VA_ARGS__
#define GSHMEMI_BODY(...) ;
#endif
// A function that exists on the device only.
#define GSHMEMI_DEVICE(...) extern "C" __device__ GSHMEM_INLINE __VA_ARGS__

#define GSHMEMI_CTX ::gshmem::detail::device_default_context()
// T() does not parse for multi-word types (`long long`) inside the generated wrappers.
#define GSHMEMI_ZERO(T) ::gshmem::detail::capi_zero<T>()

// The thread groups of the _warp and _block names: X(suffix, group type).
#define GSHMEMI_FOR_GROUPS(X) X(warp, ::gshmem::Warp) X(block, ::gshmem::Block)
