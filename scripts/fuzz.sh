#!/usr/bin/env bash
# Builds the libFuzzer harnesses (fuzz/, clang with -fsanitize=fuzzer,address,undefined) and runs
# each for SECONDS (default 60) on a copy of its committed seed corpus; new inputs land in
# build/fuzz/corpus-out/<harness>. Any crash, hang (over 10 s per input), leak or sanitizer report
# fails. Exits 77 when clang or libFuzzer is missing (scripts/deps.sh installs them).
#   scripts/fuzz.sh [SECONDS] [HARNESS...]      e.g. scripts/fuzz.sh 600 star_server
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${GSHMEM_FUZZ_BUILD:-$root/build/fuzz}
seconds=${1:-60}
shift || true
harnesses=("$@")
[ ${#harnesses[@]} -gt 0 ] || harnesses=(star_decode star_server uid node_mesh amo_message env topology calibration)
cxx=$(command -v clang++-14 || command -v clang++ || true)
if [ -z "$cxx" ] || [ ! -f "$("$cxx" -print-file-name=libclang_rt.fuzzer-x86_64.a)" ]; then
  echo "fuzz: skipped: clang++ with libFuzzer not found (apt-get install clang-14 libclang-rt-14-dev)"
  exit 77
fi
gen=()
command -v ninja >/dev/null && gen=(-G Ninja)
# One configure and build at a time when ctest runs harnesses in parallel: the others wait on the
# lock, then find the build done. A build directory without a build file (a configure that was
# cut short) is configured again.
mkdir -p "$build"
exec 9>"$build/.lock"
flock 9
if [ ! -f "$build/build.ninja" ] && [ ! -f "$build/Makefile" ]; then
  rm -f "$build/CMakeCache.txt"
  cmake -S "$root/fuzz" -B "$build" "${gen[@]}" -DCMAKE_CXX_COMPILER="$cxx" >"$build/configure.log" 2>&1 ||
    { cat "$build/configure.log"; exit 1; }
fi
cmake --build "$build" -j "${GSHMEM_FUZZ_JOBS:-2}" >"$build/build.log" 2>&1 ||
  { tail -30 "$build/build.log"; exit 1; }
flock -u 9
for h in "${harnesses[@]}"; do
  out="$build/corpus-out/$h"
  mkdir -p "$out"
  extra=()
  # hwloc's XML plugin (dlopened, so unnamed in reports) leaks a little per load.
  [ "$h" = topology ] && extra=(-detect_leaks=0)
  log="$build/$h.log"
  if ! "$build/fuzz_$h" -max_total_time="$seconds" -timeout=10 -print_final_stats=1 \
      -artifact_prefix="$build/$h-" "${extra[@]}" "$out" "$root/fuzz/corpus/$h" >"$log" 2>&1; then
    tail -40 "$log"
    echo "fuzz_$h: FAILED (see $log; the input is $build/$h-*)"
    exit 1
  fi
  echo "fuzz_$h: ok, $(grep -o 'cov: [0-9]*' "$log" | tail -1 | cut -d' ' -f2) edges," \
       "$(grep -o 'average_exec_per_sec: *[0-9]*' "$log" | grep -o '[0-9]*$') exec/s"
done
