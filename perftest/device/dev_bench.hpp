// Device-initiated perftests: kernels call the device API, timed with cudaEvents (bandwidth) or
// the GPU's global timer inside the kernel (latency). Same tables and options as the host
// perftests (perftest/common), plus
//   --scope thread|warp|block   the group each device call is made by (default block)
//   -c BLOCKS                   thread blocks of bandwidth kernels (default: 2 per SM)
//   -t THREADS                  threads per block (default 1024; latency kernels use one group)
// Without a usable GPU each program prints "SKIPPED: reason" and exits 0.
#pragma once

namespace perftest::device {

enum class Test { PutBw, GetBw, PLatency, PutSignalPingPong, BarrierLatency };

int dev_bench_main(int argc, char** argv, Test test);

}  // namespace perftest::device
