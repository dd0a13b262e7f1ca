#!/usr/bin/env bash
# Side-by-side latencies of one OpenSHMEM program (perftest/baselines/shmem_latency.c) built four
# ways, to show what gshmem's OpenSHMEM layer costs and how it compares with Open MPI's:
#
#   layer   gshmem's shmem.h, built with gshmem's oshcc, run with gshmem's oshrun
#   C API   the same source against perftest/shmem/capi/shmem.h, which maps the few names it
#           uses straight onto the gshmem C API (no OpenSHMEM layer), run with gshmemrun
#   C++     gshmem's own perftests (gshmem_p_latency, ...), where BUILD_DIR has them
#   Open MPI  the same source built with Open MPI's oshcc, run with its oshrun (its 4.1.4 build
#           crashes in shmem_finalize after printing everything: tolerated)
#
#   perftest/shmem_compare.sh BUILD_DIR [-r REPEATS] [-n ITERS] [-p NPES] [--plot DIR]
#
# Every program runs REPEATS times (default 5), interleaved, and each figure is the best (lowest)
# of its runs: on a shared machine the other processes only ever add time. 2 PEs unless -p.
# --plot DIR: put and get run over 8 B .. 64 KiB instead of 8 B alone, and DIR gets PNG charts
# of their latency against the message size (each way of building the program, Open MPI beside
# them) and the charts' data (charts.tsv).
# Exit status: 0 when the layer is within TOL (default 0.10, i.e. 10%) of the C API and of Open
# MPI on the target rows (put and get of 8 B, p + quiet, fetch_add, barrier_all), 1 when one is
# missed, 2 when something did not build or run.
set -uo pipefail

usage() {
  echo "usage: $0 BUILD_DIR [-r REPEATS] [-n ITERS] [-p NPES] [--plot DIR]" >&2
  exit 2
}
command_line="$0$(printf ' %q' "$@")"
[[ $# -ge 1 ]] || usage
build=$(cd "$1" 2>/dev/null && pwd) || usage
shift
repeats=5
iters=20000
npes=2
plot=
while [[ $# -gt 0 ]]; do
  case $1 in
  -r) repeats=${2:?}; shift 2 ;;
  -n) iters=${2:?}; shift 2 ;;
  -p) npes=${2:?}; shift 2 ;;
  --plot) plot=${2:?}; shift 2 ;;
  *) usage ;;
  esac
done
tol=${TOL:-0.10}

here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=perftest/common/plot.sh
source "$here/common/plot.sh"
plot_init "$plot" "$command_line" || exit 2
src=$here/baselines/shmem_latency.c
osh=$build/host/shmem/build-tree
flags=(-O2 -Wall -Wextra -Wno-unused-parameter)
max_size=8
[[ -n $plot ]] && max_size=64K
args=(--json -b 8 -e "$max_size" -n "$iters" -w $((iters / 20)))
limit=300 # seconds for any one job

out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

# ---- Build -----------------------------------------------------------------------------------
[[ -x $osh/oshcc && -x $build/gshmemrun ]] || {
  echo "$0: $osh/oshcc or $build/gshmemrun is not built" >&2
  exit 2
}
"$osh/oshcc" "${flags[@]}" "$src" -o "$out/layer" || exit 2
${CC:-cc} "${flags[@]}" -I"$here/shmem/capi" -I"$here/../include" "$src" -o "$out/capi" \
  -L"$build" -Wl,-rpath,"$build" -lgshmem || exit 2
variants=(layer capi)
if command -v oshcc >/dev/null && [[ $(command -v oshcc) != "$osh/oshcc" ]] &&
  oshcc "${flags[@]}" "$src" -o "$out/ompi" 2>"$out/ompi.build"; then
  variants+=(ompi)
else
  echo "# Open MPI's oshcc not found or failed; its column stays empty"
fi
cxx=()
for prog in p_latency atomic_latency barrier_latency put_latency; do
  [[ -x $build/perftest/pt2pt/gshmem_$prog ]] && cxx+=("$prog")
done

# run NAME REPEAT CMD...: the command's JSON lines go to $out/NAME.REPEAT.
run() {
  local name=$1 r=$2
  shift 2
  timeout "$limit" "$@" 2>"$out/$name.$r.err" | grep '^{' >"$out/$name.$r"
}

for ((r = 1; r <= repeats; ++r)); do
  run layer "$r" "$osh/oshrun" -np "$npes" "$out/layer" "${args[@]}"
  run capi "$r" "$build/gshmemrun" -n "$npes" "$out/capi" "${args[@]}"
  if [[ " ${variants[*]} " == *" ompi "* ]]; then
    run ompi "$r" oshrun --allow-run-as-root --oversubscribe -np "$npes" "$out/ompi" "${args[@]}"
  fi
  for prog in "${cxx[@]}"; do
    run "cxx_$prog" "$r" "$build/gshmemrun" -n "$npes" "$build/perftest/pt2pt/gshmem_$prog" \
      --json -b 8 -e "$max_size" -n "$iters" -w $((iters / 20))
  done
done
for ((r = 1; r <= repeats; ++r)); do cat "$out"/cxx_*."$r" 2>/dev/null >"$out/cxx.$r"; done

# best NAME TEST [OP] [SIZE]: the lowest value of TEST (size SIZE, default 8 or 0, op OP) over
# NAME's runs, or "-".
best() {
  local name=$1 test=$2 op=${3:-} size=${4:-}
  cat "$out/$name".* 2>/dev/null | grep -F "\"test\":\"$test\"" |
    { if [[ -n $size ]]; then grep -F "\"size\":$size,"; else grep -E '"size":(8|0),'; fi; } |
    { if [[ -n $op ]]; then grep -F "\"op\":\"$op\""; else cat; fi; } |
    sed -nE 's/.*"value":(-?[0-9.eE+-]+).*/\1/p' | sort -g | head -n 1 | grep . || echo -
}
ratio() {
  if [[ $1 == - || $2 == - ]]; then echo -; else awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", a / b }'; fi
}
short() {
  if [[ $1 == - ]]; then echo -; else awk -v v="$1" 'BEGIN { printf "%.4g", v }'; fi
}

echo "# OpenSHMEM latencies, $npes PEs, best of $repeats runs, microseconds ($(nproc) cores," \
  "load average $(cut -d' ' -f1-3 /proc/loadavg))"
printf '%-26s %10s %10s %10s %10s %12s %12s\n' metric layer "C API" "C++ perf" "Open MPI" \
  "layer/C API" "layer/OMPI"
missed=0
row() {
  local label=$1 test=$2 op=$3 target=$4 l c x o
  l=$(best layer "$test" "$op")
  c=$(best capi "$test" "$op")
  x=$(best cxx "$test" "$op")
  o=$(best ompi "$test" "$op")
  local rc ro
  rc=$(ratio "$l" "$c")
  ro=$(ratio "$l" "$o")
  printf '%-26s %10s %10s %10s %10s %12s %12s' "$label" "$(short "$l")" "$(short "$c")" \
    "$(short "$x")" "$(short "$o")" "$rc" "$ro"
  if ((target)); then
    local verdict=ok
    for q in "$rc" "$ro"; do
      if [[ $q == - ]]; then
        [[ $l == - ]] && verdict=MISSING
      elif ! awk -v q="$q" -v t="$tol" 'BEGIN { exit !(q <= 1 + t) }'; then
        verdict=SLOWER
      fi
    done
    printf '  %s' "$verdict"
    [[ $verdict == ok ]] || missed=1
  fi
  echo
}
row "put 8 B + quiet" put_latency "" 1
row "get 8 B" get_latency "" 1
row "p + quiet" p_latency "" 1
row "p ping-pong (half RTT)" p_pingpong "" 0
row "fetch_add" atomic_latency fetch_add 1
row "add + quiet" atomic_latency add 0
row "compare_swap" atomic_latency compare_swap 0
row "swap" atomic_latency swap 0
row "fetch" atomic_latency fetch 0
row "barrier_all" barrier_latency barrier_all 1
row "sync_all" barrier_latency sync_all 0
echo "# rows marked ok/SLOWER are the targets: layer within ${tol} of the C API and of Open MPI"

if [[ -n $plot ]]; then
  for test in put_latency get_latency; do
    chart="${test%_latency} latency, $npes PEs, one OpenSHMEM program built four ways"
    for size in $(cat "$out"/*.[0-9]* 2>/dev/null | grep -F "\"test\":\"$test\"" |
      sed -nE 's/.*"size":([0-9]+),.*/\1/p' | sort -n | uniq); do
      for spec in "gshmem layer:gshmem:layer" "gshmem C API:gshmem:capi" \
        "gshmem C++ perftest:gshmem:cxx" "Open MPI:baseline:ompi"; do
        IFS=: read -r label kind name <<<"$spec"
        plot_point "$chart" "message size (bytes)" "latency (us)" "$label" "$kind" \
          "$size" "$(best "$name" "$test" "" "$size")"
      done
    done
  done
  plot_make || exit 2
fi
exit $missed
