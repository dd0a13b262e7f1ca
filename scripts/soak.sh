#!/usr/bin/env bash
# The long soak (tests/soak): 8 PEs on 2 virtual nodes of 4, the verified mix for MINUTES on each
# libfabric provider (tcp;ofi_rxm, then sockets with the EFA-like paths forced: emulated atomics,
# registered local buffers), printing each run's samples and its per-PE table of resident memory,
# descriptors, heap use and /dev/shm. Fails when a run does (a wrong result or a growth).
#   scripts/soak.sh [--minutes M] [--settle SECONDS] [--build DIR] [--sample SECONDS]
#                   [--provider tcp|sockets]...
# MINUTES are measured after the warm-up, which goes on for up to --settle seconds (default 300)
# until resident memory is flat: a provider ring of fixed size filling page by page is not a leak
# (see tests/soak/soak.cpp).
# The build directory (default ./build) must hold the soak and gshmemrun
# (cmake --build build --target soak gshmemrun).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=$root/build
minutes=10
sample=30
settle=300
providers=()
while [ $# -gt 0 ]; do
  case "$1" in
    --minutes) minutes=$2; shift 2 ;;
    --build) build=$2; shift 2 ;;
    --sample) sample=$2; shift 2 ;;
    --settle) settle=$2; shift 2 ;;
    --provider) providers+=("$2"); shift 2 ;;
    *) echo "soak.sh: unknown argument $1" >&2; exit 2 ;;
  esac
done
[ ${#providers[@]} -gt 0 ] || providers=(tcp sockets)
soak=$build/tests/soak/soak
run=$build/gshmemrun
for f in "$soak" "$run"; do
  [ -x "$f" ] || { echo "soak.sh: $f is missing (cmake --build $build --target soak gshmemrun)" >&2; exit 2; }
done
seconds=$(awk -v m="$minutes" 'BEGIN { printf "%d", m * 60 }')
status=0
for p in "${providers[@]}"; do
  case "$p" in
    tcp) env=(GSHMEM_FABRIC_PROVIDER='tcp;ofi_rxm') ;;
    sockets) env=(GSHMEM_FABRIC_PROVIDER=sockets GSHMEM_FABRIC_ATOMICS=emulated GSHMEM_FABRIC_FORCE_MR_LOCAL=1) ;;
    *) echo "soak.sh: unknown provider $p (tcp or sockets)" >&2; exit 2 ;;
  esac
  echo "== soak on $p: ${minutes} min after a warm-up of up to ${settle}s, 8 PEs on 2 nodes of 4"
  # The job limit leaves the last iteration and the report time to finish.
  if env "${env[@]}" GSHMEM_TIMEOUT=300 GSHMEM_SYMMETRIC_SIZE=256M \
      "$run" -n 8 --ppn 4 --timeout $((seconds + settle + 600)) "$soak" --seconds "$seconds" \
      --settle "$settle" --sample "$sample"; then
    echo "== soak on $p: passed"
  else
    echo "== soak on $p: FAILED"
    status=1
  fi
done
exit $status
