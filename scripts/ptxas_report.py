#!/usr/bin/env python3
"""ptxas's resource report for one CUDA source of the build, and a check on it.

Reruns the build's own compile command for SOURCE (from compile_commands.json) as a device-only
compile to a cubin for one architecture, with -Xptxas -v, and prints per function: registers,
stack frame, spill stores and loads, ptxas time. Exits 1 when a function spills more than
--max-spill bytes or has a stack frame above --max-stack bytes (the test coll_kernel_ptxas_sm*
runs it on collectives/coll_kernel.cu: a kernel that spills is slow in every collective, and it
comes back silently when the algorithm headers grow).

  ptxas_report.py --build build --source collectives/coll_kernel.cu --arch 90 [--max-stack 256]
      [--allow 'REGEX=SPILL:STACK' ...]
  ptxas_report.py --self-test

--allow lets the functions whose short name (as the report prints it) matches REGEX spill up to
SPILL bytes (stores and loads each) with a stack frame up to STACK bytes: known exceptions, named
in the test, so that any other function that starts to spill, or one of them that spills more,
fails.
"""
import argparse
import json
import os
import re
import shlex
import subprocess
import sys
import tempfile
import time

ENTRY = re.compile(r"Compiling entry function '(\S+)' for '(sm_\w+)'")
PROPS = re.compile(r"Function properties for (\S+)")
FRAME = re.compile(r"(\d+) bytes stack frame, (\d+) bytes spill stores, (\d+) bytes spill loads")
REGS = re.compile(r"Used (\d+) registers")
PTXAS_MS = re.compile(r"Compile time = ([\d.]+) ms")


def parse(text):
    """Functions of a ptxas -v report: {name: dict(entry, regs, stack, spill_st, spill_ld, ms)}."""
    funcs = {}
    lines = text.splitlines()
    entry = None
    for i, line in enumerate(lines):
        m = ENTRY.search(line)
        if m:
            entry = m.group(1)
            funcs.setdefault(entry, {"name": entry, "entry": True})
            continue
        m = PROPS.search(line)
        if m and i + 1 < len(lines):
            f = FRAME.search(lines[i + 1])
            if f:
                d = funcs.setdefault(m.group(1), {"name": m.group(1), "entry": False})
                d["stack"], d["spill_st"], d["spill_ld"] = (int(x) for x in f.groups())
            continue
        m = REGS.search(line)
        if m and entry:
            funcs[entry]["regs"] = int(m.group(1))
            continue
        m = PTXAS_MS.search(line)
        if m and entry:
            funcs[entry]["ms"] = float(m.group(1))
            entry = None
    return funcs


# The collective kernels' template arguments (gshmem/coll/workspace.cuh: Coll, Algo), by name.
COLLS = ["AllReduce", "Reduce", "AllGather", "ReduceScatter", "Broadcast", "AllToAll"]
ALGOS = ["Auto", "Direct", "Direct2", "Ring", "Tree", "RecDbl", "Hier", "Pairwise"]


def demangle(names):
    try:
        out = subprocess.run(["c++filt"], input="\n".join(names), capture_output=True, text=True,
                             check=True).stdout.splitlines()
    except (OSError, subprocess.CalledProcessError):
        return list(names)
    short = []
    for d in out:
        d = re.sub(r"_INTERNAL_\w+::", "", d)
        d = d.replace("gshmem::coll::", "").replace("(anonymous namespace)::", "")
        d = re.sub(r"\(Workspace, KernelReducer, CallArgs\)$", "", d)
        d = re.sub(r"\(Coll\)(\d)", lambda m: COLLS[int(m.group(1))], d)
        d = re.sub(r"\(Algo\)(\d)", lambda m: ALGOS[int(m.group(1))], d)
        short.append(d)
    return short


def parse_allow(specs):
    out = []
    for spec in specs or []:
        m = re.fullmatch(r"(.+)=(\d+):(\d+)", spec)
        if not m:
            sys.exit("ptxas_report: --allow wants REGEX=SPILL:STACK, not %r" % spec)
        out.append((re.compile(m.group(1)), int(m.group(2)), int(m.group(3))))
    return out


def offences(funcs, max_spill, max_stack, allow=()):
    bad = []
    names = sorted(funcs)
    for name, short in zip(names, demangle(names)):
        f = funcs[name]
        if "stack" not in f:
            bad.append((name, "no stack/spill line in the report"))
            continue
        spill, stack = max_spill, max_stack
        for rx, a_spill, a_stack in allow:
            if rx.search(short):
                spill, stack = max(spill, a_spill), max(stack, a_stack)
        if f["spill_st"] > spill or f["spill_ld"] > spill:
            bad.append((name, "spills %d B stores, %d B loads (%d B allowed)" %
                        (f["spill_st"], f["spill_ld"], spill)))
        if f["stack"] > stack:
            bad.append((name, "stack frame %d B > %d B" % (f["stack"], stack)))
    return bad


def table(funcs):
    names = sorted(funcs)
    rows = []
    for name, short in zip(names, demangle(names)):
        f = funcs[name]
        rows.append("%-58s %5s regs %6s B stack %6s B spill st %6s B spill ld %9s ms" % (
            short if f["entry"] else "(function) " + short, f.get("regs", "-"), f.get("stack", "?"),
            f.get("spill_st", "?"), f.get("spill_ld", "?"),
            "%.0f" % f["ms"] if "ms" in f else "-"))
    return "\n".join(rows)


def device_command(build, source, arch, out):
    """The build's compile command for source, as a device-only cubin compile for sm_<arch>."""
    db = os.path.join(build, "compile_commands.json")
    with open(db) as fh:
        entries = json.load(fh)
    want = os.path.realpath(source)
    for e in entries:
        path = e["file"] if os.path.isabs(e["file"]) else os.path.join(e["directory"], e["file"])
        if os.path.realpath(path) != want:
            continue
        argv = e["arguments"] if "arguments" in e else shlex.split(e["command"])
        while argv and not os.path.basename(argv[0]).startswith("nvcc"):
            argv = argv[1:]  # a compiler launcher (ccache)
        if not argv:
            sys.exit("ptxas_report: the command for %s is not an nvcc command" % source)
        cmd, skip = [argv[0]], 0
        for a in argv[1:]:
            if skip:
                skip -= 1
                continue
            if a in ("-MT", "-MF", "-o", "-gencode", "-arch", "--generate-code"):
                skip = 1
            elif a in ("-MD", "-c") or a.startswith(("--generate-code=", "-gencode=", "-arch=",
                                                      "--gpu-architecture=", "-code=")):
                pass
            else:
                cmd.append(a)
        cmd += ["-cubin", "-arch=sm_%s" % arch, "-Xptxas", "-v", "-o", out]
        return cmd, e["directory"]
    sys.exit("ptxas_report: %s is not in %s" % (source, db))


SAMPLE = """\
ptxas info    : Compiling entry function '_Z1kv' for 'sm_80'
ptxas info    : Function properties for _Z1kv
    160 bytes stack frame, 148 bytes spill stores, 244 bytes spill loads
ptxas info    : Used 128 registers, used 1 barriers, 160 bytes cumulative stack size
ptxas info    : Compile time = 22351.111 ms
ptxas info    : Function properties for _Z1fv
    0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
ptxas info    : Compiling entry function '_Z1gv' for 'sm_80'
ptxas info    : Function properties for _Z1gv
    16 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
ptxas info    : Used 40 registers, used 1 barriers, 16 bytes cumulative stack size
ptxas info    : Compile time = 1.5 ms
"""


def self_test():
    funcs = parse(SAMPLE)
    assert set(funcs) == {"_Z1kv", "_Z1fv", "_Z1gv"}, funcs
    assert funcs["_Z1kv"]["regs"] == 128 and funcs["_Z1kv"]["spill_ld"] == 244, funcs
    assert not funcs["_Z1fv"]["entry"] and funcs["_Z1gv"]["stack"] == 16, funcs
    bad = offences(funcs, 0, 64)
    assert [b[0] for b in bad] == ["_Z1kv", "_Z1kv"], bad
    assert [b[0] for b in offences(funcs, 0, 8)] == ["_Z1gv", "_Z1kv", "_Z1kv"]
    assert offences(funcs, 0, 64, parse_allow(["^k=244:160"])) == []
    assert [b[0] for b in offences(funcs, 0, 64, parse_allow(["^k=243:160"]))] == ["_Z1kv"]
    assert [b[0] for b in offences(funcs, 0, 64, parse_allow(["^g=244:160"]))] == ["_Z1kv"] * 2
    assert offences(parse(SAMPLE.replace("148 bytes spill stores, 244", "0 bytes spill stores, 0")
                          .replace("160 bytes stack", "8 bytes stack")), 0, 64) == []
    print("ptxas_report self-test: ok")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--build", help="build directory (holds compile_commands.json)")
    ap.add_argument("--source", help="the .cu file, as the build compiles it")
    ap.add_argument("--arch", action="append", help="SM architecture, e.g. 80 (repeatable)")
    ap.add_argument("--max-spill", type=int, default=0, help="bytes of spill allowed (0)")
    ap.add_argument("--max-stack", type=int, default=256, help="stack frame bytes allowed (256)")
    ap.add_argument("--allow", action="append", metavar="REGEX=SPILL:STACK",
                    help="a known exception (repeatable)")
    ap.add_argument("--report-only", action="store_true", help="print, never fail")
    ap.add_argument("--self-test", action="store_true")
    args = ap.parse_args()
    if args.self_test:
        return self_test()
    if not (args.build and args.source and args.arch):
        ap.error("--build, --source and --arch are needed")
    failed = False
    with tempfile.TemporaryDirectory() as tmp:
        for arch in args.arch:
            cmd, cwd = device_command(args.build, args.source, arch,
                                      os.path.join(tmp, "sm_%s.cubin" % arch))
            t0 = time.monotonic()
            p = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True)
            wall = time.monotonic() - t0
            if p.returncode != 0:
                sys.stderr.write(p.stdout + p.stderr)
                sys.exit("ptxas_report: compile failed (%s)" % " ".join(cmd))
            funcs = parse(p.stdout + p.stderr)
            if not any(f["entry"] for f in funcs.values()):
                sys.exit("ptxas_report: no kernel in ptxas's report for sm_%s" % arch)
            ptxas_s = sum(f.get("ms", 0) for f in funcs.values()) / 1000
            print("sm_%s: %s: %d kernels, %d other functions, compile %.1f s wall (ptxas %.1f s)"
                  % (arch, args.source, sum(f["entry"] for f in funcs.values()),
                     sum(not f["entry"] for f in funcs.values()), wall, ptxas_s))
            print(table(funcs))
            bad = offences(funcs, args.max_spill, args.max_stack, parse_allow(args.allow))
            for name, why in bad:
                print("sm_%s: FAIL %s: %s" % (arch, demangle([name])[0], why))
            failed |= bool(bad)
    if failed and not args.report_only:
        sys.exit(1)


if __name__ == "__main__":
    main()
