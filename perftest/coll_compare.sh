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
#     --private       gshmem uses malloc'd buffers, like the MPI program, instead of the
#                     symmetric heap
#     --quick         fewer iterations (a smoke run)
#
# Two sweeps per collective and PE count: bandwidth 1 MiB .. 64 MiB (busbw, out-of-place), and
# latency 8 B .. 4 KiB (time, out-of-place). For AllReduce it checks the targets of the
# collectives issue: busbw >= 1.2x Open MPI's from 1 to 64 MiB, and latency no worse than Open
# MPI's from 8 B to 4 KiB. Exit status: 0 targets met, 1 a target missed, 2 something did not run
# or a program reported wrong values.
set -uo pipefail

usage() {
  sed -n '2,20p' "$0" >&2
  exit 2
}
[[ $# -ge 1 ]] || usage
build=$(cd "$1" 2>/dev/null && pwd) || usage
shift
pes="2 4"
ops="allreduce"
repeats=3
private=()
quick=0
while [[ $# -gt 0 ]]; do
  case $1 in
    -p) pes=$2; shift 2 ;;
    -o) ops=$2; shift 2 ;;
    -R) repeats=$2; shift 2 ;;
    --private) private=(--private); shift ;;
    --quick) quick=1; shift ;;
    *) usage ;;
  esac
done

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

missed=0
summary=()
for op in $ops; do
  gprog=$build/perftest/coll/gshmem_${op}_perf
  [[ -x $gprog ]] || { echo "$0: $gprog is not built" >&2; exit 2; }
  for n in $pes; do
    for sweep in bw lat; do
      if [[ $sweep == bw ]]; then
        sizes=(-b 1M -e 64M -f 2 "${bw_iters[@]}")
      else
        sizes=(-b 8 -e 4K -f 2 "${lat_iters[@]}")
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
        echo "# $op, $n PEs: busbw (GB/s, out-of-place, best of $repeats), gshmem / Open MPI"
        printf '%12s %12s %12s %8s   %s\n' size gshmem "Open MPI" ratio "planner's choice"
      else
        echo "# $op, $n PEs: time (us, out-of-place, best of $repeats), Open MPI / gshmem"
        printf '%12s %12s %12s %8s   %s\n' size gshmem "Open MPI" ratio "planner's choice"
      fi
      for size in $(grep -s '^{' "$g" | sed -nE 's/.*"size":([0-9]+),.*/\1/p' | sort -n | uniq); do
        if [[ $sweep == bw ]]; then
          gv=$(best "$g" "$size" busbw 1) mv=$(best "$m" "$size" busbw 1)
          r=$(ratio "$gv" "$mv")
          target=1.2
        else
          gv=$(best "$g" "$size" time 0) mv=$(best "$m" "$size" time 0)
          r=$(ratio "$mv" "$gv")
          target=1.0
        fi
        printf '%12s %12s %12s %8s   %s\n' "$size" "$gv" "$mv" "$r" "$(algo "$g" "$size")"
        if [[ $op == allreduce && $r != - ]] &&
          ! awk -v r="$r" -v t="$target" 'BEGIN { exit !(r >= t) }'; then
          missed=1
          summary+=("$op $n PEs $size B: ratio $r < $target")
        fi
      done
    done
  done
done

echo
if ((${#summary[@]})); then
  echo "# targets missed (AllReduce: busbw >= 1.2x Open MPI 1-64 MiB, time <= Open MPI 8 B-4 KiB):"
  printf '#   %s\n' "${summary[@]}"
else
  echo "# AllReduce targets met (busbw >= 1.2x Open MPI 1-64 MiB, time <= Open MPI 8 B-4 KiB)"
fi
if ((broken)); then exit 2; fi
exit $missed
