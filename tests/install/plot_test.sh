#!/usr/bin/env bash
# perftest/common/plot.py on tests/data/plot_sample.tsv: one PNG per chart of the input, each a
# real PNG (signature, an IHDR with a non-zero size); and input it must refuse (a line of the
# wrong width, an unknown kind) makes it fail. Exit 77 (skipped) when matplotlib is missing.
set -uo pipefail
src=$(cd "$(dirname "$0")/../.." && pwd)
py=${PYTHON:-/usr/bin/python3}
[[ -x $py ]] || py=python3
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
sample=$src/tests/data/plot_sample.tsv

"$py" "$src/perftest/common/plot.py" --out "$out/png" --command "plot_test.sh sample" "$sample"
rc=$?
if ((rc == 3)); then
  echo "SKIP: matplotlib is missing for $py (Debian: python3-matplotlib, see scripts/deps.sh)"
  exit 77
fi
((rc == 0)) || { echo "FAIL: plot.py exit status $rc"; exit 1; }

want=$(grep -v '^#' "$sample" | cut -f1 | sort -u | wc -l)
have=$(find "$out/png" -name '*.png' | wc -l)
((have == want)) || { echo "FAIL: $have PNG files for $want charts"; exit 1; }
for f in "$out"/png/*.png; do
  [[ -s $f ]] || { echo "FAIL: $f is empty"; exit 1; }
  sig=$(head -c 8 "$f" | od -An -tx1 | tr -d ' \n')
  [[ $sig == 89504e470d0a1a0a ]] || { echo "FAIL: $f: signature $sig is not PNG's"; exit 1; }
  # IHDR (bytes 12-15) with width and height (16-23, big-endian) above zero.
  [[ $(head -c 16 "$f" | tail -c 4) == IHDR ]] || { echo "FAIL: $f: no IHDR"; exit 1; }
  read -r w h < <(head -c 24 "$f" | tail -c 8 | od -An -tu1 |
    awk '{ print ($1 * 16777216 + $2 * 65536 + $3 * 256 + $4), ($5 * 16777216 + $6 * 65536 + $7 * 256 + $8) }')
  ((w > 0 && h > 0)) || { echo "FAIL: $f is ${w}x$h"; exit 1; }
  echo "$(basename "$f"): ${w}x$h, $(stat -c %s "$f") bytes"
done

printf 'chart\tx\ty\tgshmem\tgshmem\t8\n' >"$out/short.tsv"
printf 'chart\tx\ty\tgshmem\tnonsense\t8\t1\n' >"$out/kind.tsv"
for bad in short kind; do
  if "$py" "$src/perftest/common/plot.py" --out "$out/bad" "$out/$bad.tsv" 2>/dev/null; then
    echo "FAIL: plot.py accepted $bad.tsv"
    exit 1
  fi
done
echo "plot test: OK ($have charts)"
