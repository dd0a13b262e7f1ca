// The device API: everything a kernel (or a CPU PE) needs to talk to other PEs. Umbrella over one
// header per concern; each also compiles on its own.
#pragma once

#include "gshmem/device/amo_op.cuh"
#include "gshmem/device/atomic.cuh"
#include "gshmem/device/barrier.cuh"
#include "gshmem/device/context.cuh"
#include "gshmem/device/group.cuh"
#include "gshmem/device/order.cuh"
#include "gshmem/device/rma.cuh"
#include "gshmem/device/signal.cuh"
#include "gshmem/device/wait_until.cuh"
