#include "perftest/device/dev_bench.hpp"

int main(int argc, char** argv) {
  return perftest::device::dev_bench_main(argc, argv, perftest::device::Test::PutSignalPingPong);
}
