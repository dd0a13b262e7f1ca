// The device API: everything a kernel (or a CPU PE) needs to talk to other PEs. Umbrella over one
// header per concern; each also compiles on its own.
//
// Group calls (the Warp and Block forms, the C API's _warp and _block names) are made by every
// thread of the group with the same arguments. A _warp call needs whole warps: in a block whose
// size is not a multiple of 32 the last warp's missing lanes would leave their share of the work
// undone; with GSHMEM_DEVICE_CHECKS=1 such a call traps, naming itself
// (gshmem/device/group_check.cuh).
#pragma once

#include "gshmem/device/amo_op.cuh"
#include "gshmem/device/atomic.cuh"
#include "gshmem/device/barrier.cuh"
#include "gshmem/device/context.cuh"
#include "gshmem/device/group.cuh"
#include "gshmem/device/group_check.cuh"
#include "gshmem/device/order.cuh"
#include "gshmem/device/rma.cuh"
#include "gshmem/device/signal.cuh"
#include "gshmem/device/wait_until.cuh"
