#!/usr/bin/env bash
# gshmem's MoE dispatch/combine next to the usual MPI exchange: gshmem_moe_a2a_perf under
# gshmemrun against gshmem_mpi_moe_a2a under mpirun (MPI_Alltoall of the counts, then
# MPI_Alltoallv both ways), with the same shapes, token counts, iterations and checks, and the
# ratio per token count (MPI's dispatch + combine time over gshmem's).
#
#   perftest/moe_compare.sh BUILD_DIR [options] [-- PROGRAM_ARGS]
#     -p "2 4"       PE counts (default "2 4")
#     -s "SHAPES"    deepseek-v3 deepseek-v2-lite (default both)
#     -R 3           repeats: the runs alternate gshmem / MPI and each side keeps its best figure
#                    per point (the machine may be shared; best-of is the usual remedy)
#     --ppn K        gshmem across virtual nodes of K PEs (every batch through the network
#                    transport); MPI stays on its shared-memory path
#     --full         prefill token counts too (up to 4096 per rank)
#     --plot DIR     also write PNG charts (dispatch + combine time and each direction's GB/s
#                    against the bytes a rank dispatches, gshmem beside MPI) and their data
#                    (charts.tsv) to DIR
#     PROGRAM_ARGS   passed to both programs (e.g. -n 50 -w 5, or -e 32)
#
# Target (the MoE issue), within one node: for 1 to 128 tokens per rank, dispatch + combine at
# least 1.5x faster than MPI. Exit status: 0 met, 1 missed, 2 something did not run or a program
# reported wrong results.
set -uo pipefail

usage() {
  sed -n '2,23p' "$0" >&2
  exit 2
}
command_line="$0$(printf ' %q' "$@")"
[[ $# -ge 1 ]] || usage
build=$(cd "$1" 2>/dev/null && pwd) || usage
shift
pes="2 4"
shapes="deepseek-v3 deepseek-v2-lite"
repeats=3
ppn=()
full=()
extra=()
plot=
while [[ $# -gt 0 ]]; do
  case $1 in
    --plot) plot=${2:?--plot needs a directory}; shift 2 ;;
    -p) pes=$2; shift 2 ;;
    -s) shapes=$2; shift 2 ;;
    -R) repeats=$2; shift 2 ;;
    --ppn) ppn=(--ppn "$2"); shift 2 ;;
    --full) full=(--full); shift ;;
    --) shift; extra=("$@"); break ;;
    *) usage ;;
  esac
done

# shellcheck source=perftest/common/plot.sh
source "$(cd "$(dirname "$0")" && pwd)/common/plot.sh"
plot_init "$plot" "$command_line" || exit 2
gshmemrun=$build/gshmemrun
gprog=$build/perftest/moe/gshmem_moe_a2a_perf
mprog=$build/perftest/moe/gshmem_mpi_moe_a2a
ompi=(mpirun --allow-run-as-root --oversubscribe)
[[ -x $gprog ]] || { echo "$0: $gprog is not built" >&2; exit 2; }
have_mpi=0
[[ -x $mprog ]] && command -v mpirun >/dev/null && have_mpi=1
((have_mpi)) || echo "# MPI baseline not available: gshmem figures only"
limit=900
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
broken=0
load() { cut -d' ' -f1 /proc/loadavg 2>/dev/null || echo "?"; }
load_start=$(load)

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
    grep -v '^\[' "$file.err" | tail -n 5
    broken=1
  fi
}

# best FILE TOKENS KEY [MAX]: the smallest (MAX=1: largest) KEY over the JSON rows of TOKENS,
# or "-".
best() {
  grep -s '^{' "$1" | grep -F "\"tokens\":$2," |
    sed -nE "s/.*\"$3\":(-?[0-9.eE+-]+).*/\1/p" |
    awk -v max="${4:-0}" 'NR == 1 || (max ? $1 > b : $1 < b) { b = $1 } END { if (NR) print b; else print "-" }'
}

ratio() {
  if [[ $1 == - || $2 == - ]]; then echo -; else awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", a / b }'; fi
}

missed=0
summary=()
for n in $pes; do
  for shape in $shapes; do
    g=$out/g_${n}_$shape m=$out/m_${n}_$shape
    for ((r = 0; r < repeats; ++r)); do
      run "$g" "$gshmemrun" -n "$n" "${ppn[@]}" "$gprog" "$shape" "${full[@]}" "${extra[@]}" --json
      if ((have_mpi)); then
        run "$m" "${ompi[@]}" -np "$n" "$mprog" "$shape" "${full[@]}" "${extra[@]}" --json
      fi
    done
    grep -qs 'wrong results' "$g" "$m" && broken=1
    echo
    echo "# $shape, $n PEs${ppn:+ (gshmem ${ppn[*]})}: latency in us, best of $repeats;" \
      "ratio = MPI total / gshmem total"
    printf '%8s %11s %11s %11s %11s %11s %11s %7s\n' tokens g.disp g.comb g.total \
      mpi.disp mpi.comb mpi.total ratio
    for tokens in $(grep -s '^{' "$g" | sed -nE 's/.*"tokens":([0-9]+),.*/\1/p' | sort -n | uniq); do
      gd=$(best "$g" "$tokens" dispatch) gc=$(best "$g" "$tokens" combine)
      gt=$(best "$g" "$tokens" value)
      md=$(best "$m" "$tokens" dispatch) mc=$(best "$m" "$tokens" combine)
      mt=$(best "$m" "$tokens" value)
      r=$(ratio "$mt" "$gt")
      printf '%8s %11s %11s %11s %11s %11s %11s %7s\n' "$tokens" "$gd" "$gc" "$gt" "$md" "$mc" \
        "$mt" "$r"
      if [[ -n $plot ]]; then
        # x: the bytes a rank dispatches (the rows' size), the same for both programs.
        size=$(grep -s '^{' "$g" | grep -F "\"tokens\":$tokens," | head -n 1 |
          sed -nE 's/.*"size":([0-9]+),.*/\1/p')
        where="$shape, $n PEs${ppn:+ (gshmem ${ppn[*]})}"
        x="bytes a rank dispatches"
        plot_point "$where: dispatch + combine" "$x" "time (us)" gshmem gshmem "$size" "$gt"
        plot_point "$where: dispatch + combine" "$x" "time (us)" MPI baseline "$size" "$mt"
        for dir in dispatch combine; do
          plot_point "$where: bandwidth" "$x" "GB/s (a rank's bytes / time)" "gshmem $dir" gshmem \
            "$size" "$(best "$g" "$tokens" "${dir}_bw" 1)"
          plot_point "$where: bandwidth" "$x" "GB/s (a rank's bytes / time)" "MPI $dir" baseline \
            "$size" "$(best "$m" "$tokens" "${dir}_bw" 1)"
        done
      fi
      if ((${#ppn[@]} == 0 && tokens <= 128)) && [[ $r != - ]] &&
        ! awk -v r="$r" 'BEGIN { exit !(r >= 1.5) }'; then
        missed=1
        summary+=("$shape $n PEs $tokens tokens: ratio $r < 1.5")
      fi
    done
  done
done

echo
echo "# best of $repeats run(s) on $(nproc) cores; load average $load_start at start, $(load) at end."
if awk -v l="$load_start" -v c="$(nproc)" 'BEGIN { exit !(l > c / 2) }'; then
  echo "# WARNING: the machine was busy; the figures are unreliable."
fi
if ((${#ppn[@]})); then
  echo "# across virtual nodes: no target (MPI stays on shared memory)"
elif ((${#summary[@]})); then
  echo "# target missed (dispatch + combine >= 1.5x faster than MPI, 1-128 tokens per rank):"
  printf '#   %s\n' "${summary[@]}"
else
  echo "# target met: dispatch + combine >= 1.5x faster than MPI for 1-128 tokens per rank"
fi
plot_make || broken=1
if ((broken)); then exit 2; fi
exit $missed
