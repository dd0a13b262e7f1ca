// Shared by the C API wrappers: the default context they work on and the element types of the
// generated families. Every wrapper is one call into the host operations (host/runtime/hostops).
#pragma once

#include <cstdint>

#include "gshmem/device/sized.cuh"
#include "gshmem/gshmem.h"
#include "host/runtime/hostops.hpp"
#include "host/runtime/process.hpp"

namespace gshmem::capi {

inline const DeviceContext& ctx() {
  return detail::g_default_ctx;
}

// A team this PE belongs to, by the context's team table (the one kernels read); none outside
// init..finalize.
bool member_of(gshmem_team_t team);

}  // namespace gshmem::capi
