#!/usr/bin/env bash
# The demo: 4 PEs greet their neighbours through the symmetric heap and count with atomics, then
# the same across virtual nodes (network transport), then put bandwidth and latency tables.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${GSHMEM_BUILD_DIR:-$root/build}
"$root/scripts/deps.sh"
"$root/scripts/build.sh" gshmemrun gshmem-info gshmem_demo gshmem_put_bw gshmem_p_latency \
  gshmem_barrier_latency > "$build.build.log" 2>&1 || { tail -50 "$build.build.log"; exit 1; }
run() { echo; echo "\$ $*"; "$@"; }
cd "$build"
run ./gshmemrun -n 4 ./gshmem_demo
echo
echo "# Now 2 virtual nodes of 2 PEs: PEs 0,1 and 2,3 map each other; across nodes, libfabric."
run ./gshmemrun -n 4 --ppn 2 ./gshmem_demo
run ./gshmemrun -n 2 perftest/pt2pt/gshmem_put_bw -b 8 -e 4M
run ./gshmemrun -n 2 perftest/pt2pt/gshmem_p_latency
run ./gshmemrun -n 4 perftest/pt2pt/gshmem_barrier_latency
