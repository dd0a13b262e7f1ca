#!/usr/bin/env bash
# Builds and runs gshmem's GPU tests and device perftests on one machine with a GPU, in under
# 9 minutes, and writes logs and a short summary to OUTDIR.
#
#   tests/gpu/run_all.sh OUTDIR
#
# Needs no network and no package registry: it uses what is installed (cmake, a C++ compiler,
# the CUDA toolkit, libfabric, GoogleTest) and says in the summary what is missing and what could
# not be built because of it. Configures for the H200 (CMAKE_CUDA_ARCHITECTURES=90) into
# OUTDIR/build (reused when it exists), builds only gshmemrun, the GPU tests, the device
# perftests and the example, runs the tests and perftests with 2 PEs on the one GPU.
# Without a GPU every test and perftest records SKIPPED.
#
# Environment: GSHMEM_RUN_ALL_MPS=1 starts a private CUDA MPS daemon for the run (kernels of
# different PE processes then run concurrently instead of time-slicing; the latency rows of the
# ping-pong and barrier tests depend on it), and stops it at the end.
#
#   tests/gpu/run_all.sh --configure-only BUILDDIR
# configures BUILDDIR exactly as a run does (generator choice and options) and dry-runs the
# build of the targets it would build, so a build file the generator rejects shows without a
# GPU (ctest's run_all_configure).
#
#   tests/gpu/run_all.sh --prebuilt BUNDLE OUTDIR
# runs what scripts/gpu_bundle.sh packed into BUNDLE on another machine (no configure, no build;
# BUNDLE/lib holds the libraries this machine may lack), for a GPU machine without libfabric,
# hwloc or GoogleTest installed. --list-targets prints the targets a run builds.
set -u
PERF_TARGETS="gshmem_dev_put_bw gshmem_dev_get_bw gshmem_dev_p_latency gshmem_dev_put_signal_ping_pong gshmem_dev_barrier_latency"
ALL_TEST_TARGETS="gpu_rma gpu_signal gpu_amo gpu_sync gpu_cxx gpu_graph gpu_coll gpu_team_coll gpu_moe gpu_module gpu_badinput_test gpu_badinput_child"
if [ "${1:-}" = "--list-targets" ]; then
  echo gshmemrun gshmem-info gshmem_device_ring gshmem_moe_a2a_perf $PERF_TARGETS $ALL_TEST_TARGETS
  exit 0
fi
CONFIGURE_ONLY=0
PREBUILT=""
if [ "${1:-}" = "--configure-only" ]; then
  CONFIGURE_ONLY=1
  shift
elif [ "${1:-}" = "--prebuilt" ]; then
  PREBUILT=$(cd "${2:?usage: run_all.sh --prebuilt BUNDLE OUTDIR}" && pwd)
  shift 2
fi
OUT=${1:?usage: run_all.sh OUTDIR}
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
SRC=$(cd "$(dirname "$0")/../.." && pwd)
BUILD=${GSHMEM_RUN_ALL_BUILD:-$OUT/build}
if [ -n "$PREBUILT" ]; then
  BUILD=$PREBUILT
  export LD_LIBRARY_PATH=$PREBUILT/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
fi
SUMMARY=$OUT/summary.txt
START=$(date +%s)
JOBS=$(nproc 2>/dev/null || echo 4)
: >"$SUMMARY"

say() { echo "$*" | tee -a "$SUMMARY"; }
elapsed() { echo $(($(date +%s) - START)); }
DEADLINE=${GSHMEM_RUN_ALL_SECONDS:-510}  # the whole run, summary included, stays under 9 minutes
WANT_MPS=${GSHMEM_RUN_ALL_MPS:-0}
# This script's own settings are no gshmem variables: the PEs would warn about them.
unset GSHMEM_RUN_ALL_SECONDS GSHMEM_RUN_ALL_MPS GSHMEM_RUN_ALL_BUILD
# step NAME LIMIT_S CMD...: runs CMD with a time limit (never past the deadline), log in
# OUT/NAME.log; returns its status (125 when no time was left to start it).
step() {
  local name=$1 limit=$2
  shift 2
  local left=$((DEADLINE - $(elapsed)))
  if [ $left -lt 15 ]; then
    say "step $name: SKIPPED (time box: ${left}s left of ${DEADLINE}s)"
    return 125
  fi
  [ $limit -gt $left ] && limit=$left
  if [ $limit -lt 15 ]; then
    say "step $name: SKIPPED (time box: only ${limit}s could be given to it)"
    return 125
  fi
  local t0=$(date +%s)
  timeout --kill-after=10 "$limit" "$@" >"$OUT/$name.log" 2>&1
  local rc=$?
  local how="ok"
  [ $rc -ne 0 ] && how="FAILED (status $rc)"
  [ $rc -eq 124 ] || [ $rc -eq 137 ] && how="TIMED OUT after ${limit}s"
  say "step $name: $how in $(($(date +%s) - t0))s (log: $name.log)"
  return $rc
}

say "# gshmem GPU run: $(date -u '+%Y-%m-%d %H:%M:%S UTC') on $(hostname)"
say "source: $SRC ($(git -C "$SRC" log --oneline -1 2>/dev/null || echo 'not a git checkout'))"

# ---- What this machine has -------------------------------------------------------------------
have() { command -v "$1" >/dev/null 2>&1; }
NVCC=${CUDACXX:-}
[ -z "$NVCC" ] && have nvcc && NVCC=$(command -v nvcc)
[ -z "$NVCC" ] && [ -x /usr/local/cuda/bin/nvcc ] && NVCC=/usr/local/cuda/bin/nvcc
say "tools: cmake=$(have cmake && cmake --version | head -1 | awk '{print $3}' || echo MISSING)" \
  "c++=$(have c++ && echo yes || (have g++ && echo yes) || echo MISSING)" \
  "nvcc=${NVCC:-MISSING}" "ninja=$(have ninja && echo yes || echo no)" \
  "make=$(have make && echo yes || echo no)"
GPU="no"
COMPUTE_MODE=""
if have nvidia-smi && nvidia-smi -L >"$OUT/nvidia-smi.log" 2>&1; then
  GPU="yes"
  nvidia-smi >>"$OUT/nvidia-smi.log" 2>&1
  say "gpu: $(head -1 "$OUT/nvidia-smi.log")"
  # The driver, the CUDA version it supports, and the compute mode (read only: never changed).
  COMPUTE_MODE=$(nvidia-smi --query-gpu=compute_mode --format=csv,noheader 2>/dev/null | head -1)
  say "driver: $(nvidia-smi --query-gpu=driver_version --format=csv,noheader 2>/dev/null | head -1)" \
    "(supports CUDA $(grep -m1 -o 'CUDA Version: [0-9.]*' "$OUT/nvidia-smi.log" | awk '{print $3}'))," \
    "compute mode: ${COMPUTE_MODE:-unknown}"
else
  say "gpu: none found by nvidia-smi (tests and perftests will report SKIPPED)"
fi
[ -n "$NVCC" ] && say "toolkit (runtime gshmem builds with): $("$NVCC" --version | grep -o 'release [0-9.]*' | head -1)"
FABRIC="no"
have pkg-config && pkg-config --exists libfabric && FABRIC="yes ($(pkg-config --modversion libfabric))"
GTEST="no"
for d in /usr/lib/x86_64-linux-gnu/cmake/GTest /usr/lib/cmake/GTest /usr/local/lib/cmake/GTest \
  /usr/lib64/cmake/GTest /usr/lib/aarch64-linux-gnu/cmake/GTest; do
  [ -d "$d" ] && GTEST="yes"
done
say "libraries: libfabric=$FABRIC gtest=$GTEST"

# Several PE processes share the one GPU: a compute mode that allows one context makes the second
# PE's fail. Exclusive_Process works through MPS (one server context for all PEs), Prohibited not.
case "$COMPUTE_MODE" in
  Exclusive_Process)
    if have nvidia-cuda-mps-control; then
      say "compute mode Exclusive_Process: the PEs need MPS; starting a private daemon"
      WANT_MPS=1
    else
      say "RESULT: cannot run: compute mode Exclusive_Process lets one process create a context" \
        "and nvidia-cuda-mps-control is not installed; the second PE of every test would fail"
      exit 1
    fi
    ;;
  Prohibited)
    say "RESULT: cannot run: compute mode Prohibited allows no CUDA context"
    exit 1
    ;;
esac
MPS_STARTED=0
if [ "$WANT_MPS" = 1 ] && [ "$GPU" = yes ] && have nvidia-cuda-mps-control; then
  export CUDA_MPS_PIPE_DIRECTORY=$OUT/mps/pipe CUDA_MPS_LOG_DIRECTORY=$OUT/mps/log
  mkdir -p "$CUDA_MPS_PIPE_DIRECTORY" "$CUDA_MPS_LOG_DIRECTORY"
  if nvidia-cuda-mps-control -d >"$OUT/mps.log" 2>&1; then
    MPS_STARTED=1
    say "mps: started a private daemon ($CUDA_MPS_PIPE_DIRECTORY)"
  else
    say "mps: could not start (see mps.log); kernels of the PEs time-slice"
  fi
else
  say "mps: off (kernels of the 2 PE processes time-slice the GPU; ping-pong and barrier" \
    "latencies then measure the time slice, not gshmem)"
fi
stop_mps() { [ $MPS_STARTED = 1 ] && echo quit | nvidia-cuda-mps-control >/dev/null 2>&1; }
trap stop_mps EXIT

# ---- Configure and build (not with --prebuilt: that bundle was built elsewhere) ----------------
build_here() {
  if ! have cmake || [ -z "$NVCC" ]; then
    say "RESULT: cannot build: $(have cmake || echo 'cmake is missing ')$([ -z "$NVCC" ] && echo 'nvcc is missing')"
    return 1
  fi
  if [ "$FABRIC" = "no" ]; then
    say "RESULT: cannot build: libgshmem needs libfabric headers and library (libfabric-dev)"
    return 1
  fi

  GEN=()
  have ninja && [ ! -f "$BUILD/Makefile" ] && GEN=(-G Ninja)
  TESTS_ON=ON
  [ "$GTEST" = no ] && TESTS_ON=OFF
  CONFIGURE=(cmake -S "$SRC" -B "$BUILD" "${GEN[@]}" -DCMAKE_BUILD_TYPE=RelWithDebInfo
    -DCMAKE_CUDA_ARCHITECTURES=90 -DCMAKE_CUDA_COMPILER="$NVCC" -DGSHMEM_BUILD_TESTS=$TESTS_ON
    -DGSHMEM_BUILD_PERFTEST=ON)
  TEST_TARGETS=""
  [ "$TESTS_ON" = ON ] && TEST_TARGETS=$ALL_TEST_TARGETS
  if [ $CONFIGURE_ONLY = 1 ]; then
    "${CONFIGURE[@]}" && cmake --build "$BUILD" --target gshmemrun gshmem_device_ring $PERF_TARGETS \
      $TEST_TARGETS -- -n >/dev/null && say "configure-only: ${GEN[*]:-Unix Makefiles} configures and dry-runs"
    return $?
  fi
  step configure 90 "${CONFIGURE[@]}"
  if [ $? -ne 0 ]; then
    say "RESULT: configure failed (configure.log)"
    return 1
  fi
  [ "$TESTS_ON" = OFF ] && say "note: GoogleTest not found: the GPU tests are not built; perftests only"

  # What is small first, so a build cut short by the time limit still leaves something to run.
  # Keep going past a target that fails, so one broken program does not cost the others.
  KEEP=(-- -k)
  [ -f "$BUILD/build.ninja" ] && KEEP=(-- -k 0)
  step build_perftests 180 cmake --build "$BUILD" -j "$JOBS" --target gshmemrun gshmem_device_ring $PERF_TARGETS "${KEEP[@]}"
  # Leave about 3 minutes for running what was built.
  [ -n "$TEST_TARGETS" ] && step build_tests $((DEADLINE - 190 - $(elapsed))) \
    cmake --build "$BUILD" -j "$JOBS" --target $TEST_TARGETS "${KEEP[@]}"
  return 0  # a target that failed to build shows as NOT BUILT below
}
if [ -n "$PREBUILT" ]; then
  TESTS_ON=OFF
  [ -x "$BUILD/tests/gpu/gpu_rma" ] && TESTS_ON=ON
  say "prebuilt: $BUILD ($(ls "$BUILD/lib" | wc -l) libraries carried in lib/)"
elif ! build_here; then
  exit 1
elif [ $CONFIGURE_ONLY = 1 ]; then
  exit 0
fi

# ---- GPU tests ---------------------------------------------------------------------------------
# Run directly under gshmemrun (not through ctest) so each job's own time limit ends its PEs
# cleanly: a PE left spinning on the GPU would spoil every later step. GSHMEM_TIMEOUT makes a
# device wait that cannot finish trap with a message instead of hanging.
RUN=$BUILD/gshmemrun
export GSHMEMRUN=$RUN  # gpu_badinput_test's launcher, wherever the build tree now lies
export GSHMEM_TIMEOUT=30
# A test log's verdict: PASSED, FAILED or SKIPPED (why).
verdict_of() {
  local log=$1 v="FAILED"
  grep -q "gshmem gpu tests: SKIPPED" "$log" && v="$(grep -m1 -o 'SKIPPED (.*' "$log")"
  grep -q "no libfabric RDM provider offers FI_HMEM" "$log" &&
    v="SKIPPED (no libfabric provider here registers GPU memory: FI_HMEM)"
  grep -q "^\[  PASSED  \] [1-9]" "$log" && ! grep -q "^\[  FAILED  \]" "$log" && v="PASSED"
  echo "$v"
}
if [ "$TESTS_ON" = ON ]; then
  say "## tests (2 PEs on the one GPU; logs test_*.log)"
  for t in gpu_rma gpu_signal gpu_amo gpu_sync gpu_cxx gpu_graph gpu_coll gpu_team_coll gpu_moe gpu_module gpu_badinput_test; do
    exe=$BUILD/tests/gpu/$t
    if [ ! -x "$exe" ]; then
      say "test $t: NOT BUILT"
      continue
    fi
    if [ $t = gpu_badinput_test ]; then
      step "test_$t" 90 "$exe"
    elif [ $t = gpu_coll ]; then
      # A few hundred collectives whose PEs time-slice the GPU (without MPS): more time. Then
      # the LL protocol forced (every direct call by it, at every size; graph replays too).
      step "test_$t" 100 "$RUN" -n 2 --timeout 95 "$exe"
      step "test_${t}_ll" 60 env GSHMEM_PROTO=ll "$RUN" -n 2 --timeout 55 "$exe" \
        --gtest_filter=GpuColl.AlgorithmSweep:GpuColl.GraphReplay
      say "test ${t} (GSHMEM_PROTO=ll): $(verdict_of "$OUT/test_${t}_ll.log")"
    else
      step "test_$t" 50 "$RUN" -n 2 --timeout 45 "$exe"
    fi
    log=$OUT/test_$t.log
    [ -f "$log" ] || continue
    say "test $t: $(verdict_of "$log") $(grep -m1 -o '[0-9]* tests\? from [0-9]* test suites\? ran' "$log")" \
      "$(grep -m1 -o '^\[  SKIPPED \] [0-9]* tests\?' "$log")"
    grep -h "^\[  FAILED  \] [A-Z]" "$log" | sort -u | head -8 | sed 's/^/    /' | tee -a "$SUMMARY"
  done
  # Across two virtual nodes: every peer through the proxy and libfabric (tcp;ofi_rxm), the
  # kernels' commands picked up by the polling proxy thread.
  say "## tests across 2 virtual nodes (--ppn 1, tcp;ofi_rxm; logs net_*.log)"
  for t in gpu_rma gpu_signal gpu_amo gpu_sync gpu_moe; do
    exe=$BUILD/tests/gpu/$t
    [ -x "$exe" ] || { say "net test $t: NOT BUILT"; continue; }
    step "net_$t" 45 env GSHMEM_FABRIC_PROVIDER='tcp;ofi_rxm' "$RUN" -n 2 --ppn 1 --timeout 40 "$exe"
    log=$OUT/net_$t.log
    [ -f "$log" ] || continue
    say "net test $t: $(verdict_of "$log") $(grep -m1 -o '[0-9]* tests\? from [0-9]* test suites\? ran' "$log")"
    grep -h "^\[  FAILED  \] [A-Z]" "$log" | sort -u | head -8 | sed 's/^/    /' | tee -a "$SUMMARY"
  done
  grep -h -m1 "gpu tests: seed" "$OUT"/test_*.log 2>/dev/null | head -1 | tee -a "$SUMMARY"
fi

# ---- Device perftests -----------------------------------------------------------------------------
perf() {  # perf LOGNAME PROGRAM ARGS...
  local name=$1 prog=$2
  shift 2
  for dir in perftest/device perftest/moe device; do
    [ ! -x "$BUILD/$prog" ] && [ -x "$BUILD/$dir/$prog" ] && prog=$dir/$prog
  done
  if [ ! -x "$BUILD/$prog" ]; then
    say "step $name: NOT BUILT"
    return 1
  fi
  step "$name" 40 ${PERF_ENV:+env $PERF_ENV} "$RUN" -n 2 ${PERF_PPN:+--ppn $PERF_PPN} --timeout 35 "$BUILD/$prog" "$@"
  local rc=$?
  grep -q "no libfabric RDM provider offers FI_HMEM" "$OUT/$name.log" 2>/dev/null &&
    say "step $name: SKIPPED (no libfabric provider here registers GPU memory: FI_HMEM)"
  return $rc
}
perf example_device_ring gshmem_device_ring
perf dev_put_bw_block gshmem_dev_put_bw --scope block -b 8 -e 64M -n 20 -w 3
perf dev_put_bw_warp gshmem_dev_put_bw --scope warp -b 1K -e 64M -n 20 -w 3
perf dev_get_bw_block gshmem_dev_get_bw --scope block -b 1K -e 64M -n 20 -w 3
perf dev_p_latency gshmem_dev_p_latency -n 2000 -w 100
perf dev_put_signal_ping_pong gshmem_dev_put_signal_ping_pong --scope block -b 8 -e 64K -n 50 -w 5
# The first GPU run's block ping-pong was bimodal (2.2 us at some sizes, 77-93 us at others):
# the thread form and more iterations tell a cost of the block's fence from a scheduling effect.
perf dev_put_signal_ping_pong_thread gshmem_dev_put_signal_ping_pong --scope thread -b 8 -e 64K -n 500 -w 50
perf dev_barrier_latency_thread gshmem_dev_barrier_latency --scope thread -n 200 -w 10
perf dev_barrier_latency_block gshmem_dev_barrier_latency --scope block -n 200 -w 10
# The proxy's pick-up latency: put_signal ping-pong across two virtual nodes.
PERF_PPN=1 PERF_ENV="GSHMEM_FABRIC_PROVIDER=tcp;ofi_rxm" \
  perf dev_put_signal_ping_pong_net gshmem_dev_put_signal_ping_pong --scope thread -b 8 -e 4K -n 200 -w 10

# MoE dispatch/combine kernels (DeepSeek-V3 and V2-Lite decode shapes, 1 to 128 tokens per rank)
# beside the copy-bandwidth floor measured in the same run and the published figures.
# GSHMEM_HEAP=device: a program without kernels of its own gets a host heap by default.
PERF_ENV="GSHMEM_HEAP=device" perf moe_a2a_perf gshmem_moe_a2a_perf -b 1 -e 128 -f 2

# ---- The Python package on CUDA tensors (when this machine's torch has CUDA) ----------------
PY=/usr/bin/python3
[ -x "$PY" ] || PY=$(command -v python3)
if [ -n "$PREBUILT" ]; then
  say "python_cuda: SKIPPED (--prebuilt: the extension is built against the build machine's torch)"
elif "$PY" -c "import torch, sys; sys.exit(0 if torch.cuda.is_available() else 1)" 2>/dev/null; then
  if step build_python 120 cmake --build "$BUILD" -j "$JOBS" --target gshmem_python "${KEEP[@]}"; then
    step python_cuda 60 env PYTHONPATH="$BUILD/python" GSHMEM_TEST_DEVICE=cuda \
      PYTHONDONTWRITEBYTECODE=1 "$RUN" -n 2 --timeout 55 "$PY" -m pytest -q -p no:cacheprovider \
      "$SRC/tests/python"
    say "python_cuda: $(grep -h -E '[0-9]+ (passed|failed)' "$OUT/python_cuda.log" | tail -1)"
  fi
else
  say "python_cuda: SKIPPED (this python's torch has no CUDA)"
fi

say "## perftest key rows"
for f in dev_put_bw_block dev_put_bw_warp dev_get_bw_block; do
  [ -f "$OUT/$f.log" ] || continue
  grep -h -E "SKIPPED|FAILED" "$OUT/$f.log" | head -2 | sed "s/^/$f: /" | tee -a "$SUMMARY"
  grep -h -E "^(1048576|67108864) " "$OUT/$f.log" | sed "s/^/$f: /" | tee -a "$SUMMARY"
  grep -h -E "/memcpy at" "$OUT/$f.log" | sed "s/^/$f: /" | tee -a "$SUMMARY"
done
for f in dev_p_latency dev_put_signal_ping_pong dev_put_signal_ping_pong_thread dev_put_signal_ping_pong_net dev_barrier_latency_thread \
  dev_barrier_latency_block example_device_ring; do
  [ -f "$OUT/$f.log" ] || continue
  grep -h -E "SKIPPED|FAILED|OK" "$OUT/$f.log" | head -2 | sed "s/^/$f: /" | tee -a "$SUMMARY"
  grep -h -E "^(0|8|4096|65536) " "$OUT/$f.log" | sed "s/^/$f: /" | tee -a "$SUMMARY"
done
# The MoE tables whole: a row per token count.
[ -f "$OUT/moe_a2a_perf.log" ] && grep -v -E "^[{]" "$OUT/moe_a2a_perf.log" | tee -a "$SUMMARY"
say "total: $(elapsed)s"
