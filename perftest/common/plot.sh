# shellcheck shell=bash
# The compare scripts' side of --plot DIR (sourced): they hand their figures to plot_point as
# they print them, and plot_make draws DIR/*.png from them with perftest/common/plot.py (format
# and styles there). Without --plot every call is a no-op.
#
#   plot_init DIR "COMMAND LINE"      (DIR empty: no charts)
#   plot_point CHART XLABEL YLABEL SERIES KIND X Y   (KIND: gshmem, baseline or limit; "-" skipped)
#   plot_make                         (returns 2 when the charts could not be drawn)

plot_dir=
plot_command=
plot_data=

plot_init() {
  plot_dir=$1
  plot_command=$2
  [[ -n $plot_dir ]] || return 0
  mkdir -p "$plot_dir" || return 2
  plot_data=$plot_dir/charts.tsv
  printf '# chart\txlabel\tylabel\tseries\tkind\tx\ty\n' >"$plot_data"
}

plot_point() {
  [[ -n $plot_dir ]] || return 0
  [[ $6 == - || $7 == - || -z $6 || -z $7 ]] && return 0
  printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$@" >>"$plot_data"
}

plot_make() {
  [[ -n $plot_dir ]] || return 0
  local here py
  here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
  py=${PYTHON:-/usr/bin/python3}
  [[ -x $py ]] || py=python3
  echo "# charts ($plot_data):"
  "$py" "$here/plot.py" --out "$plot_dir" --command "$plot_command" "$plot_data" | sed 's/^/#   /'
  local rc=${PIPESTATUS[0]}
  ((rc == 0)) || { echo "# plot.py failed (exit status $rc)"; return 2; }
}
