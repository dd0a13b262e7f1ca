// The device C API: NVSHMEM-style names callable from CUDA kernels, over the default context
// (gshmem/device/default_context.cuh). Include it from .cu files together with (or instead of)
// gshmem/gshmem.h: the names the host API has are then callable from host code and from kernels
// alike; the _warp and _block forms are device-only. Link gshmem::device.
#pragma once

#include "gshmem/device/capi_amo.cuh"
#include "gshmem/device/capi_rma.cuh"
#include "gshmem/device/capi_sync.cuh"
