#!/usr/bin/env bash
# Does the collectives planner, calibrated on this machine, choose the fastest algorithm? For each
# PE count and layout: `gshmem-info --calibrate` jobs measure every candidate (algorithm +
# protocol) and write a calibration file; then gshmem_planner_check jobs, new jobs that plan with
# that file, measure every candidate again, and `gshmem_planner_check --judge` compares the time of
# the candidate the planner chooses with the best one at every size, each candidate's time the
# mean over the check jobs. The same rows show what the model's constants would have chosen, and
# the calls with nothing forced ("live": the plan, and for long calls the live choices that follow
# the machine, collectives/adapt.hpp), timed among the candidates. Where PE 0 and PE 1 share a
# node, each check job also times a cache line's handoff between them before and after its sweep:
# the host moves the vCPUs (30-60 ns as siblings of one core, 160-240 ns placed apart,
# changing within seconds), and algorithms that read what a peer has just written run 2-3x slower
# in the second state, so the summary lists it beside each job's ratios.
#
#   perftest/planner_check.sh BUILD_DIR [options]
#     -p "2 4"            PE counts (default "2 4")
#     -l "node vnodes"    layouts: one node, and two virtual nodes (--ppn n/2, the network
#                         transport between them; --ppn 1 at 2 PEs)
#     -o "OPS"            collectives (default: allreduce allgather reducescatter broadcast;
#                         also reduce, alltoall)
#     -s 8-64M            sizes (default 8-64M: coll_compare.sh's latency and bandwidth sweeps)
#     -R 3                repeats of every measurement in a job (best of)
#     -J 3                calibration jobs, each a run of the table: the planner chooses the
#                         candidate whose mean loss against each run's fastest is least (the
#                         least expected slowdown; a run's loss counted at most 3x), not the one
#                         that won a single job
#     -K 3                check jobs: on a shared machine the faster of two close candidates
#                         changes from job to job (10-20% here), so one job is one sample; the
#                         verdict compares each candidate's mean over the K jobs
#     --tolerance 1.10    the target: chosen time / best time at every size
#     --cache             write this host's real calibration file (the one later jobs use);
#                         by default a temporary one
#     --keep DIR          copy each layout's calibration file (not with --cache: the host's
#                         file) and check records to DIR, to see what the jobs measured
#
# Exit status: 0 every choice within the tolerance, 1 a choice missed it, 2 something did not run.
set -uo pipefail

usage() {
  sed -n '2,35p' "$0" >&2
  exit 2
}
[[ $# -ge 1 ]] || usage
build=$(cd "$1" 2>/dev/null && pwd) || usage
shift
pes="2 4"
layouts="node vnodes"
ops="allreduce allgather reducescatter broadcast"
sizes=8-64M
repeats=3
jobs=3
checks=3
tolerance=1.10
cache=0
keep=
while [[ $# -gt 0 ]]; do
  case $1 in
    -p) pes=$2; shift 2 ;;
    -l) layouts=$2; shift 2 ;;
    -o) ops=$2; shift 2 ;;
    -s) sizes=$2; shift 2 ;;
    -R) repeats=$2; shift 2 ;;
    -J) jobs=$2; shift 2 ;;
    -K) checks=$2; shift 2 ;;
    --tolerance) tolerance=$2; shift 2 ;;
    --cache) cache=1; shift ;;
    --keep) keep=$2; shift 2 ;;
    *) usage ;;
  esac
done
gshmemrun=$build/gshmemrun
info=$build/gshmem-info
check=$build/perftest/coll/gshmem_planner_check
for prog in "$gshmemrun" "$info" "$check"; do
  [[ -x $prog ]] || { echo "$0: $prog is not built" >&2; exit 2; }
done
spec="sizes=$sizes,reps=$repeats"
for op in $ops; do spec+=",op=$op"; done
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
((cache)) || export GSHMEM_CALIBRATION_FILE=$out/calibration.txt

echo "# $0 $*"
echo "# $(uname -n), $(nproc) cores; $spec; tolerance $tolerance"
status=0
summary=()
jobs_worst=
jobs_handoff=
seen_handoff=0
for n in $pes; do
  for layout in $layouts; do
    case $layout in
      node) launch=(-n "$n") ;;
      vnodes) launch=(-n "$n" --ppn $((n > 2 ? n / 2 : 1))) ;;
      *) echo "$0: unknown layout '$layout' (node, vnodes)" >&2; exit 2 ;;
    esac
    echo
    calibrated=1
    for ((j = 1; j <= jobs; ++j)); do
      fresh=$((j == 1))
      echo "## $n PEs, $layout: gshmemrun ${launch[*]} gshmem-info --calibrate $spec,fresh=$fresh"
      if ! timeout 1800 "$gshmemrun" "${launch[@]}" "$info" --calibrate "$spec,fresh=$fresh"; then
        echo "## calibration failed"
        calibrated=0
        break
      fi
    done
    if ((!calibrated)); then
      status=2
      continue
    fi
    record=$out/check-$n-$layout.txt
    rm -f "$record" "$record.live"
    rc=0
    for ((k = 1; k <= checks; ++k)); do
      echo "## $n PEs, $layout: gshmemrun ${launch[*]} gshmem_planner_check $spec --record (check job $k of $checks)"
      timeout 1800 "$gshmemrun" "${launch[@]}" "$check" "$spec" --tolerance "$tolerance" \
        --record "$record" | tee "$out/check.txt"
      job_rc=${PIPESTATUS[0]}
      ((job_rc > 1)) && rc=2
      worst=$(sed -nE 's/^# worst ratio: ([0-9.]+) with the planner as run.*/\1/p' "$out/check.txt")
      jobs_worst+="${jobs_worst:+ }${worst:-?}"
      handoff=$(sed -nE \
        's/^# cache-line handoff [^:]*: ([0-9]+|-) ns before the sweep, ([0-9]+|-) ns after/\1\/\2/p' \
        "$out/check.txt")
      [[ -n $handoff ]] && seen_handoff=1
      jobs_handoff+="${jobs_handoff:+ }${handoff:-?}"
    done
    if ((rc < 2)); then
      echo "## $n PEs, $layout: gshmem_planner_check --judge (each candidate's mean over the $checks check jobs)"
      "$check" --judge "$record" --tolerance "$tolerance" | tee "$out/check.txt"
      rc=${PIPESTATUS[0]}
    fi
    if [[ -n $keep ]]; then  # (with --cache the calibration stays the host's file)
      mkdir -p "$keep" || echo "## cannot make $keep" >&2
      [[ -n ${GSHMEM_CALIBRATION_FILE:-} ]] &&
        { cp "$GSHMEM_CALIBRATION_FILE" "$keep/calibration-$n-$layout.txt" ||
          echo "## could not copy the calibration to $keep" >&2; }
      cp "$record" "$record.live" "$keep/" 2>/dev/null || echo "## no check records to keep" >&2
    fi
    worst=$(sed -nE 's/^# worst ratio: ([0-9.]+) with the planner as run, ([0-9.]+) .*/\1 \2/p' \
      "$out/check.txt")
    live=$(sed -nE 's/^# worst live ratio: ([0-9.]+) .*/\1/p' "$out/check.txt")
    summary+=("$(printf '%3s PEs %-7s worst chosen/best: %-5s (live calls: %s; the constants alone: %s; each check job alone: %s)%s' \
      "$n" "$layout" "${worst% *}" "${live:-?}" "${worst#* }" "$jobs_worst" "$( ((rc == 1)) && echo '  MISSED')")")
    ((seen_handoff)) &&
      summary+=("            cache-line handoff PE 0 <-> PE 1 (ns, before/after): $jobs_handoff")
    jobs_worst=
    jobs_handoff=
    seen_handoff=0
    if ((rc == 1 && status == 0)); then status=1; fi
    if ((rc > 1)); then status=2; fi
  done
done
echo
echo "# Summary (target: chosen/best <= $tolerance at every size, times the mean of $checks check jobs)"
printf '%s\n' ${summary[@]+"${summary[@]}"}
exit $status
