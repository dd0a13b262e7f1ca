#!/usr/bin/env python3
"""Charts for the compare scripts (perftest/*_compare.sh, perftest/compare.sh --plot DIR).

    plot.py --out DIR [--command "CMD"] [--machine "TEXT"] DATA.tsv...

DATA.tsv: one point per line, tab-separated, lines starting with '#' ignored:

    chart  xlabel  ylabel  series  kind  x  y

Every chart becomes DIR/<chart as a file name>.png, with log-log axes and one line per series.
kind says how a series is drawn: "gshmem" (solid, filled markers), "baseline" (what the script
compares against: dashed, open markers) or "limit" (a measured bound such as the memory floor:
a thick grey line without markers). The title names the chart, the machine (hostname, cores,
CPU model) and the command line that produced the figures.

Exit status: 0 charts written, 1 bad input, 3 matplotlib is missing (Debian: python3-matplotlib,
installed by scripts/deps.sh).
"""

import argparse
import collections
import os
import re
import socket
import sys
import textwrap

STYLES = {
    "gshmem": dict(linestyle="-", marker="o", linewidth=1.8, markersize=4),
    "baseline": dict(linestyle="--", marker="s", linewidth=1.4, markersize=4, markerfacecolor="none"),
    "limit": dict(linestyle="-", linewidth=3.0, alpha=0.45),
}
COLORS = {
    "gshmem": ["tab:blue", "tab:green", "tab:purple", "tab:cyan"],
    "baseline": ["tab:orange", "tab:red", "tab:brown", "tab:pink"],
    "limit": ["dimgray", "black"],
}


def machine():
    model = "unknown CPU"
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    model = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    return "%s, %d cores, %s" % (socket.gethostname(), os.cpu_count() or 0, model)


def read(paths):
    """Charts in first-seen order: {chart: (xlabel, ylabel, {series: (kind, [(x, y)])})}."""
    charts = collections.OrderedDict()
    for path in paths:
        with open(path) as f:
            for no, line in enumerate(f, 1):
                line = line.rstrip("\n")
                if not line or line.startswith("#"):
                    continue
                cols = line.split("\t")
                if len(cols) != 7:
                    raise ValueError("%s:%d: %d columns, want 7" % (path, no, len(cols)))
                chart, xlabel, ylabel, series, kind, x, y = cols
                if kind not in STYLES:
                    raise ValueError("%s:%d: unknown kind %r" % (path, no, kind))
                try:
                    xv, yv = float(x), float(y)
                except ValueError:
                    continue  # "-": not measured
                if xv <= 0 or yv <= 0:
                    continue  # no place on a log axis
                c = charts.setdefault(chart, (xlabel, ylabel, collections.OrderedDict()))
                c[2].setdefault(series, (kind, []))[1].append((xv, yv))
    return charts


def file_name(chart):
    return re.sub(r"[^A-Za-z0-9]+", "_", chart).strip("_").lower() or "chart"


def size_label(v, _pos=None):
    for unit, scale in (("G", 1 << 30), ("M", 1 << 20), ("K", 1 << 10)):
        if v >= scale:
            return "%g%s" % (v / scale, unit)
    return "%g" % v


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", required=True, help="directory for the PNG files")
    ap.add_argument("--command", default="", help="the command line that produced the figures")
    ap.add_argument("--machine", default=None, help="machine description (default: this one)")
    ap.add_argument("data", nargs="+")
    args = ap.parse_args(argv)
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        from matplotlib.ticker import FuncFormatter, NullFormatter
    except ImportError:
        print("plot.py: matplotlib is missing (Debian: apt-get install python3-matplotlib)",
              file=sys.stderr)
        return 3
    try:
        charts = read(args.data)
    except (OSError, ValueError) as e:
        print("plot.py: %s" % e, file=sys.stderr)
        return 1
    if not charts:
        print("plot.py: no points in %s" % " ".join(args.data), file=sys.stderr)
        return 1
    os.makedirs(args.out, exist_ok=True)
    where = args.machine or machine()
    for chart, (xlabel, ylabel, series) in charts.items():
        fig, ax = plt.subplots(figsize=(9, 5.6), dpi=110)
        used = collections.Counter()
        for name, (kind, points) in series.items():
            points.sort()
            xs, ys = zip(*points)
            color = COLORS[kind][used[kind] % len(COLORS[kind])]
            used[kind] += 1
            ax.plot(xs, ys, label=name, color=color, **STYLES[kind])
        ax.set_xscale("log", base=2)
        ax.set_yscale("log")
        if "byte" in xlabel.lower() or "size" in xlabel.lower():
            ax.xaxis.set_major_formatter(FuncFormatter(size_label))
        # Plain numbers; the 2..9 ticks labelled too only when the axis spans little more than
        # a decade (otherwise they crowd).
        plain = FuncFormatter(lambda v, _pos=None: "%g" % v)
        lo, hi = ax.get_ylim()
        ax.yaxis.set_major_formatter(plain)
        ax.yaxis.set_minor_formatter(plain if hi / lo < 30 else NullFormatter())
        ax.set_xlabel(xlabel)
        ax.set_ylabel(ylabel)
        ax.grid(True, which="major", alpha=0.35)
        ax.grid(True, which="minor", alpha=0.12)
        ax.legend(loc="best", fontsize=9)
        title = chart + "\n" + where
        if args.command:
            title += "\n" + "\n".join(textwrap.wrap(args.command, 120))
        ax.set_title(title, fontsize=9, loc="left")
        fig.tight_layout()
        path = os.path.join(args.out, file_name(chart) + ".png")
        fig.savefig(path)
        plt.close(fig)
        print(path)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
