#!/usr/bin/env bash
# gshmem's collectives next to Open MPI's, in nccl-tests' format, with the ratio per size and the
# planner's choice: gshmem_<op>_perf under gshmemrun against gshmem_mpi_coll_perf under mpirun,
# the same sizes, iterations and checks.
#
#   perftest/coll_compare.sh BUILD_DIR [options]
#     -p "2 4"        PE counts (default "2 4")
#     -o "allreduce"  collectives (allreduce allgather reducescatter broadcast alltoall reduce)
#     -R 3            repeats: the runs alternate gshmem / MPI and each side keeps its best
#                     figure per size (the machine may be shared; best-of is the usual remedy)
#     -s "bw lat"     sweeps (default both)
#     --private       gshmem uses malloc'd buffers, like the MPI program, instead of the
#                     symmetric heap
#     --quick         fewer iterations (a smoke run)
#     --plot DIR      also write PNG charts (busbw and time against size, gshmem, Open MPI and
#                     the memory floor) and their data (charts.tsv) to DIR
#
# Two sweeps per collective and PE count: bandwidth 1 MiB .. 64 MiB (busbw, out-of-place), and
# latency 8 B .. 64 KiB (time, out-of-place). The bandwidth sweep also shows the fraction of the
# memory floor gshmem reached (best of the repeats; gshmem_<op>_perf measures the machine's
# memory bandwidth in the same run, see perftest/coll/floor.hpp). Targets: for AllReduce, those
# of the collectives issue: busbw >= 1.2x Open MPI's from 1 to 64 MiB; for AllReduce, AllGather,
# ReduceScatter and Broadcast, time no worse than Open MPI's from 8 B to 64 KiB (the aim is 0.7x
# its time, a ratio of 1.43); for AllReduce, AllGather and ReduceScatter at 2 and 4 PEs, at
# least 0.8 of the memory floor from 16 to 64 MiB. Exit status: 0 targets met, 1 a target
# missed, 2 something did not run or a program reported wrong values.
set -uo pipefail

usage() {
  sed -n '2,25p' "$0" >&2
  exit 2
}
command_line="$0$(printf ' %q' "$@")"
[[ $# -ge 1 ]] || usage
build=$(cd "$1" 2>/dev/null && pwd) || usage
shift
pes="2 4"
ops="allreduce"
sweeps="bw lat"
repeats=3
private=()
quick=0
plot=
while [[ $# -gt 0 ]]; do
  case $1 in
    -p) pes=$2; shift 2 ;;
    -o) ops=$2; shift 2 ;;
    -s) sweeps=$2; shift 2 ;;
    -R) repeats=$2; shift 2 ;;
    --private) private=(--private); shift ;;
    --quick) quick=1; shift ;;
    --plot) plot=${2:?--plot needs a directory}; shift 2 ;;
    *) usage ;;
  esac
done
for sweep in $sweeps; do
  [[ $sweep == bw || $sweep == lat ]] || { echo "$0: unknown sweep '$sweep' (bw, lat)" >&2; exit 2; }
done
# shellcheck source=perftest/common/plot.sh
source "$(cd "$(dirname "$0")" && pwd)/common/plot.sh"
plot_init "$plot" "$command_line" || exit 2

gshmemrun=$build/gshmemrun
mpi_bench=$build/perftest/coll/gshmem_mpi_coll_perf
ompi=(mpirun --allow-run-as-root --oversubscribe)
limit=600
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
broken=0

if ((quick)); then
  bw_iters=(-n 5 -w 1) lat_iters=(-n 200 -w 20)
else
  bw_iters=(-n 20 -w 5) lat_iters=(-n 2000 -w 200)
fi

# run FILE CMD...: appends CMD's stdout to FILE; shows its table (not the JSON lines) once.
run() {
  local file=$1
  shift
  timeout "$limit" "$@" >"$file.now" 2>"$file.err"
  local rc=$?
  cat "$file.now" >>"$file"
  if [[ ! -e $file.shown ]]; then
    echo "## $*"
    grep -v '^{' "$file.now"
    touch "$file.shown"
  fi
  if ((rc != 0)); then
    echo "## exit status $rc from: $*"
    grep -v '^\[' "$file.err" | tail -n 3
    broken=1
  fi
}

# best FILE SIZE KEY MAX: the best KEY over the JSON rows of SIZE (MAX=1: largest, else
# smallest), or "-".
best() {
  grep -s '^{' "$1" | grep -F "\"size\":$2," |
    sed -nE "s/.*\"$3\":(-?[0-9.eE+-]+).*/\1/p" |
    awk -v max="$4" 'NR == 1 || (max ? $1 > b : $1 < b) { b = $1 } END { if (NR) print b; else print "-" }'
}

# algo FILE SIZE: the planner's choice recorded in gshmem's JSON row.
algo() {
  grep -s '^{' "$1" | grep -F "\"size\":$2," | head -n 1 | sed -nE 's/.*"algo":"([^"]*)".*/\1/p'
}

ratio() {
  if [[ $1 == - || $2 == - ]]; then echo -; else awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", a / b }'; fi
}

# limit FILE SIZE: the busbw gshmem's row of SIZE would have at the memory floor (busbw * time /
# floor_us), best over the runs, or "-".
limit() {
  grep -s '^{' "$1" | grep -F "\"size\":$2," | awk '{
    t = $0; b = $0; f = $0
    if (!sub(/.*"time":/, "", t) || !sub(/.*"busbw":/, "", b) || !sub(/.*"floor_us":/, "", f)) next
    t += 0; b += 0; f += 0
    if (f > 0 && (best == "" || b * t / f > best)) best = b * t / f
  } END { if (best == "") print "-"; else printf "%.6g\n", best }'
}

# at_least V T: V >= T (false for "-").
at_least() {
  [[ $1 != - ]] && awk -v v="$1" -v t="$2" 'BEGIN { exit !(v >= t) }'
}

missed=0
summary=()
floor_summary=()
floor_checked=0
for op in $ops; do
  gprog=$build/perftest/coll/gshmem_${op}_perf
  [[ -x $gprog ]] || { echo "$0: $gprog is not built" >&2; exit 2; }
  for n in $pes; do
    bw_chart="$op, $n PEs: bus bandwidth (out-of-place)"
    time_chart="$op, $n PEs: time (out-of-place)"
    for sweep in $sweeps; do
      if [[ $sweep == bw ]]; then
        sizes=(-b 1M -e 64M -f 2 "${bw_iters[@]}")
      else
        sizes=(-b 8 -e 64K -f 2 "${lat_iters[@]}")
      fi
      g=$out/g_${op}_${n}_$sweep m=$out/m_${op}_${n}_$sweep
      for ((r = 0; r < repeats; ++r)); do
        run "$g" "$gshmemrun" -n "$n" "$gprog" "${sizes[@]}" "${private[@]}" --json
        if [[ -x $mpi_bench ]] && command -v mpirun >/dev/null; then
          run "$m" "${ompi[@]}" -np "$n" "$mpi_bench" "$op" "${sizes[@]}" --json
        fi
      done
      grep -qs '# Out of bounds values : [1-9]' "$g" "$m" && broken=1
      echo
      if [[ $sweep == bw ]]; then
        echo "# $op, $n PEs: busbw (GB/s, out-of-place, best of $repeats), gshmem / Open MPI;" \
          "floor: fraction of the memory floor gshmem reached (best of $repeats)"
        printf '%12s %12s %12s %8s %6s   %s\n' size gshmem "Open MPI" ratio floor "planner's choice"
      else
        echo "# $op, $n PEs: time (us, out-of-place, best of $repeats), Open MPI / gshmem"
        printf '%12s %12s %12s %8s   %s\n' size gshmem "Open MPI" ratio "planner's choice"
      fi
      for size in $(grep -s '^{' "$g" | sed -nE 's/.*"size":([0-9]+),.*/\1/p' | sort -n | uniq); do
        gt=$(best "$g" "$size" time 0) mt=$(best "$m" "$size" time 0)
        gb=$(best "$g" "$size" busbw 1) mb=$(best "$m" "$size" busbw 1)
        plot_point "$bw_chart" "message size (bytes)" "busbw (GB/s)" gshmem gshmem "$size" "$gb"
        plot_point "$bw_chart" "message size (bytes)" "busbw (GB/s)" "Open MPI" baseline "$size" "$mb"
        plot_point "$time_chart" "message size (bytes)" "time (us)" gshmem gshmem "$size" "$gt"
        plot_point "$time_chart" "message size (bytes)" "time (us)" "Open MPI" baseline "$size" "$mt"
        lb=$(limit "$g" "$size")
        if [[ $lb != - ]]; then
          plot_point "$bw_chart" "message size (bytes)" "busbw (GB/s)" "memory floor" limit "$size" "$lb"
          plot_point "$time_chart" "message size (bytes)" "time (us)" "memory floor" limit "$size" \
            "$(awk -v t="$gt" -v b="$gb" -v l="$lb" 'BEGIN { printf "%.6g", t * b / l }')"
        fi
        if [[ $sweep == bw ]]; then
          r=$(ratio "$gb" "$mb")
          target=1.2
          fl=$(best "$g" "$size" floor 1)
          [[ $fl == - ]] || fl=$(awk -v f="$fl" 'BEGIN { printf "%.2f", f }')
          printf '%12s %12s %12s %8s %6s   %s\n' "$size" "$gb" "$mb" "$r" "$fl" "$(algo "$g" "$size")"
          if [[ $op == allreduce || $op == allgather || $op == reducescatter ]] &&
            [[ $n == 2 || $n == 4 ]] && ((size >= 16 << 20 && size <= 64 << 20)); then
            floor_checked=1
            if ! at_least "$fl" 0.8; then
              missed=1
              floor_summary+=("$op $n PEs $size B: $fl of the floor")
            fi
          fi
        else
          r=$(ratio "$mt" "$gt")
          target=1.0
          printf '%12s %12s %12s %8s   %s\n' "$size" "$gt" "$mt" "$r" "$(algo "$g" "$size")"
        fi
        if [[ $r != - ]] && { [[ $op == allreduce ]] ||
          [[ $sweep == lat && $op =~ ^(allgather|reducescatter|broadcast)$ ]]; } &&
          ! at_least "$r" "$target"; then
          missed=1
          summary+=("$op $n PEs $size B: ratio $r < $target")
        fi
      done
    done
  done
done

echo
targets=
[[ " $sweeps " == *" bw "* ]] && targets="busbw >= 1.2x Open MPI 1-64 MiB"
[[ " $sweeps " == *" lat "* ]] && targets="${targets:+$targets, }time <= Open MPI 8 B-4 KiB"
if ((${#summary[@]})); then
  echo "# targets missed (AllReduce: $targets):"
  printf '#   %s\n' "${summary[@]}"
elif [[ " $ops " == *" allreduce "* ]]; then
  echo "# AllReduce targets met ($targets)"
fi
if ((${#floor_summary[@]})); then
  echo "# memory floor target missed (>= 0.8 of the floor, AllReduce, AllGather, ReduceScatter," \
    "16-64 MiB, 2 and 4 PEs):"
  printf '#   %s\n' "${floor_summary[@]}"
elif ((floor_checked)); then
  echo "# memory floor target met (>= 0.8 of the floor, AllReduce, AllGather, ReduceScatter," \
    "16-64 MiB, 2 and 4 PEs) where measured"
fi
plot_make || broken=1
if ((broken)); then exit 2; fi
exit $missed
