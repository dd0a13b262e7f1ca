#!/usr/bin/env bash
# How a CPU PE's pushes (copies of 64 KiB or more that another PE reads next: a collective's steps,
# puts to peers) are best made on this machine: GSHMEM_PUSH_STREAM=plain (plain stores), auto (the
# default: plain, streamed for a while after two slow plain pushes in a row) and stream
# (non-temporal stores always), each running the same collective perftest, the modes alternating
# job by job. The machine may change under the run (a host that moves its vCPUs apart makes plain
# pushes several times slower for seconds to minutes), so the table gives each mode's median,
# mean and least time per size over the rounds, and each mode's mean against the first mode's.
#
#   perftest/push_compare.sh BUILD_DIR [options]
#     -p "2 4"            PE counts (default "2 4")
#     -o "allreduce"      collectives (default allreduce; gshmem_<op>_perf)
#     -a ring             algorithm forced (GSHMEM_ALGO; default ring: every step is a push)
#     -m "plain auto"     modes compared; the first is the reference (default "plain auto")
#     -R 6                rounds (default 6): one job per mode in each
#     -b 256K -e 16M      sizes (times 4 from -b to -e)
#
# Times are out-of-place and in-place calls alike (us per call, both halves of each job). Exit
# status: 0 every job ran and checked its values, 2 otherwise.
set -uo pipefail

usage() {
  sed -n '2,19p' "$0" >&2
  exit 2
}
[[ $# -ge 1 ]] || usage
build=$(cd "$1" 2>/dev/null && pwd) || usage
shift
pes="2 4"
ops="allreduce"
algo=ring
modes="plain auto"
rounds=6
lo=256K
hi=16M
while [[ $# -gt 0 ]]; do
  case $1 in
    -p) pes=$2; shift 2 ;;
    -o) ops=$2; shift 2 ;;
    -a) algo=$2; shift 2 ;;
    -m) modes=$2; shift 2 ;;
    -R) rounds=$2; shift 2 ;;
    -b) lo=$2; shift 2 ;;
    -e) hi=$2; shift 2 ;;
    *) usage ;;
  esac
done
py=${PYTHON:-/usr/bin/python3}
[[ -x $py ]] || py=python3
samples=$(mktemp)
trap 'rm -f "$samples"' EXIT
status=0
echo "# $0 $build -p \"$pes\" -o \"$ops\" -a $algo -m \"$modes\" -R $rounds -b $lo -e $hi"
echo "# $(hostname), $(nproc) CPUs, $(date -u '+%Y-%m-%d %H:%M UTC')"
for op in $ops; do
  prog=$build/perftest/coll/gshmem_${op}_perf
  [[ -x $prog ]] || { echo "$0: no $prog" >&2; exit 2; }
  for n in $pes; do
    for ((r = 1; r <= rounds; ++r)); do
      for mode in $modes; do
        if ! out=$(GSHMEM_PUSH_STREAM=$mode GSHMEM_ALGO=$algo "$build/gshmemrun" -n "$n" "$prog" \
              -b "$lo" -e "$hi" -f 4 -n 10 -w 2 --no-floor --json 2>&1); then
          echo "$0: $op at $n PEs, GSHMEM_PUSH_STREAM=$mode failed:" >&2
          echo "$out" | tail -5 >&2
          status=2
          continue
        fi
        # The perftest's --json rows (perftest/common/table.hpp), tagged with the mode.
        echo "$out" | grep '^{' | sed "s/^/$mode /" >>"$samples"
      done
    done
  done
done
"$py" - "$samples" "$modes" <<'PY' || status=2
import collections, json, statistics as st, sys
modes = sys.argv[2].split()
t = collections.defaultdict(list)
for line in open(sys.argv[1]):
    m, row = line.split(" ", 1)
    r = json.loads(row)
    if r["wrong"] or r["wrong_ip"]:
        print("wrong values reported"); sys.exit(1)
    for us in (r["time"], r["time_ip"]):
        t[(r["test"], r["npes"], r["size"], m)].append(us)
for op, n in sorted({(k[0], k[1]) for k in t}):
    print(f"\n# {op}, {n} PEs: us per call (median / mean / least); mean ratio = {modes[0]}'s mean / the mode's")
    print(f"{'size':>10}" + "".join(f"{m + ' med':>14}{'mean':>10}{'least':>10}" for m in modes)
          + "".join(f"{'ratio ' + m:>14}" for m in modes[1:]))
    for size in sorted({k[2] for k in t if k[:2] == (op, n)}):
        cells, means = "", []
        for m in modes:
            v = t.get((op, n, size, m), [])
            if not v:
                cells += f"{'-':>14}{'-':>10}{'-':>10}"; means.append(None); continue
            means.append(st.mean(v))
            cells += f"{st.median(v):14.1f}{st.mean(v):10.1f}{min(v):10.1f}"
        ratios = "".join(f"{means[0] / x:14.2f}" if means[0] and x else f"{'-':>14}" for x in means[1:])
        print(f"{size:>10}{cells}{ratios}")
PY
exit $status
