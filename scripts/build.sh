#!/usr/bin/env bash
# Configures and builds into ./build (or $GSHMEM_BUILD_DIR). Extra arguments are make targets.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${GSHMEM_BUILD_DIR:-$root/build}
cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo > "$build.configure.log" 2>&1 ||
  { cat "$build.configure.log"; exit 1; }
grep -E "^-- gshmem:" "$build.configure.log" || true
cmake --build "$build" -j "$(nproc)" ${1:+--target "$@"}
