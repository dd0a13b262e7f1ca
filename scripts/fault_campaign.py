#!/usr/bin/python3
"""The fault campaign: faults aimed at each phase of a gshmem job, over many seeds.

For each phase x fault cell and each seed it runs tests/fault/fault_pe under gshmemrun (4 PEs on
2 virtual nodes by default, so the network path is in every phase) and
  kill    SIGKILLs one PE (chosen by the seed) at a random delay after its phase marker,
  stop    SIGSTOPs it likewise,
  error   runs with GSHMEM_FABRIC_INJECT=error=RATE: transmit completions become error ones,
  eagain  runs with GSHMEM_FABRIC_INJECT=eagain=RATE,storm=MS: posts meet -FI_EAGAIN storms.
A run ended correctly when
  - no PE printed WRONG RESULT, and
  - the job ended by itself within GSHMEM_TIMEOUT plus a few seconds of the fault, and
  - a fault that landed made it end non-zero with a message naming the PE and what happened
    (kill: the PE and its signal; stop: the PE; error: the PE, the fabric call and its peer;
    eagain: the PE, the call and -FI_EAGAIN), except that an EAGAIN storm may also be recovered
    from: exit 0 with every PE's result checked (FAULT-DONE), as must a fault that missed;
and it left nothing behind: no process of the job, nothing in its private TMPDIR (sockets,
files), no new /dev/shm entry, no new gshmem file in /tmp naming one of its pids.

It prints a table (phase x fault: runs, ended correctly, faults that landed, time to end
max/median, leftovers) and the failed runs with their output; exits 1 if any run failed.

  scripts/fault_campaign.py --gshmemrun build/gshmemrun --workload build/tests/fault/fault_pe \\
      --seeds 3 [--phases rma,coll] [--faults kill,stop] [--timeout 10]
"""

import argparse
import os
import random
import re
import shutil
import signal
import statistics
import subprocess
import sys
import threading
import time
import zlib

PHASES = ["startup", "heap", "rma", "atomics", "coll", "moe", "net", "finalize"]
FAULTS = ["kill", "stop", "error", "eagain"]
# How long after its marker a PE may be hit: about the phase's length on a loaded 2-core
# machine (the campaign records whether the fault landed before the PE left the phase).
WINDOW = {"startup": 0.4, "finalize": 0.05}
DEFAULT_WINDOW = 0.8
SLACK = 5.0  # seconds past GSHMEM_TIMEOUT a job may take to end after a fault


def stable_rng(*parts):
    return random.Random(zlib.crc32(" ".join(str(p) for p in parts).encode()))


def alive(pid, run_id):
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as f:
            return run_id.encode() in f.read()
    except OSError:
        return False


def job_processes(run_id):
    me = os.getpid()
    found = []
    for d in os.listdir("/proc"):
        if d.isdigit() and int(d) != me and alive(int(d), run_id):
            try:
                with open(f"/proc/{d}/stat") as f:
                    state = f.read().rsplit(")", 1)[1].split()[0]
            except OSError:
                continue
            if state != "Z":
                found.append(int(d))
    return found


def listdir(path):
    try:
        return set(os.listdir(path))
    except OSError:
        return set()


def tmp_gshmem(entries):
    return {e for e in entries if re.search(r"gshmem|ofi|fabric", e) and not e.startswith("gfc-")}


def ours(entry, pids):
    # Other jobs on the machine make gshmem files in /tmp too: only names carrying a pid of this
    # job count (gshmem's own files go to the job's TMPDIR, which is checked whole).
    return any(re.search(rf"(^|\D){p}(\D|$)", entry) for p in pids)


class Run:
    def __init__(self, args, phase, fault, seed, index):
        self.args, self.phase, self.fault, self.seed = args, phase, fault, seed
        self.run_id = f"gfc-{os.getpid()}-{index}"
        rng = stable_rng(seed, phase, fault)
        self.target = rng.randrange(args.npes)
        self.delay = rng.uniform(0, WINDOW.get(phase, DEFAULT_WINDOW))
        self.lines = []  # (time, stream, text)
        self.lock = threading.Lock()
        self.pids = {}
        self.marked = threading.Event()
        self.left_phase = set()
        self.fault_time = None
        self.landed = False
        self.in_phase = False
        self.problems = []
        self.leftovers = []

    def env(self):
        env = dict(os.environ)
        env["GSHMEM_TIMEOUT"] = str(self.args.timeout)
        env["GSHMEM_FABRIC_PROVIDER"] = self.args.provider
        env["TMPDIR"] = self.tmpdir
        inject = []
        if self.fault == "error":
            inject = [f"error={self.args.error_rate}", f"seed={self.seed}"]
        elif self.fault == "eagain":
            inject = [f"eagain={self.args.eagain_rate}", f"storm={self.args.storm_ms}",
                      f"seed={self.seed}"]
        if inject:
            env["GSHMEM_FABRIC_INJECT"] = ",".join(inject)
        else:
            env.pop("GSHMEM_FABRIC_INJECT", None)
        return env

    def reader(self, stream, name):
        for raw in iter(stream.readline, b""):
            text = raw.decode(errors="replace").rstrip("\n")
            now = time.monotonic()
            with self.lock:
                self.lines.append((now, name, text))
                m = re.match(r"FAULT-PHASE \S+ pe=(\d+) pid=(\d+)", text)
                if m:
                    self.pids[int(m.group(1))] = int(m.group(2))
                    if int(m.group(1)) == self.target:
                        self.marked.set()
                m = re.match(r"FAULT-(END|DONE) \S+ pe=(\d+)", text)
                if m:
                    self.left_phase.add(int(m.group(2)))
        stream.close()

    def aim(self, proc):
        sig = signal.SIGKILL if self.fault == "kill" else signal.SIGSTOP
        while not self.marked.wait(0.05):
            if proc.poll() is not None:
                return
        time.sleep(self.delay)
        with self.lock:
            pid = self.pids.get(self.target)
            in_phase = self.target not in self.left_phase
        if pid is None or not alive(pid, self.run_id):
            return
        try:
            os.kill(pid, sig)
        except ProcessLookupError:
            return
        self.fault_time = time.monotonic()
        self.landed = True
        self.in_phase = in_phase

    def execute(self):
        a = self.args
        self.tmpdir = f"/tmp/{self.run_id}"
        os.makedirs(self.tmpdir, mode=0o700)
        shm_before = listdir("/dev/shm")
        tmp_before = tmp_gshmem(listdir("/tmp"))
        cmd = [a.gshmemrun, "-n", str(a.npes), "--ppn", str(a.ppn),
               "--timeout", str(a.timeout * 3 + 30), a.workload, "--phase", self.phase,
               "--seed", str(self.seed), "--run-id", self.run_id]
        self.start = time.monotonic()
        proc = subprocess.Popen(cmd, env=self.env(), stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, start_new_session=True)
        self.launcher_pid = proc.pid
        readers = [threading.Thread(target=self.reader, args=(proc.stdout, "out")),
                   threading.Thread(target=self.reader, args=(proc.stderr, "err"))]
        for t in readers:
            t.start()
        aimer = None
        if self.fault in ("kill", "stop"):
            aimer = threading.Thread(target=self.aim, args=(proc,))
            aimer.start()
        # The campaign's own backstop: a job still running this long has hung.
        hard = a.timeout * 2 + 60
        try:
            self.status = proc.wait(timeout=hard)
        except subprocess.TimeoutExpired:
            self.problems.append(f"still running after {hard} s: killed by the campaign")
            os.killpg(proc.pid, signal.SIGKILL)
            self.status = proc.wait()
        self.end = time.monotonic()
        if aimer:
            aimer.join()
        for t in readers:
            t.join(timeout=10)
        self.check_leftovers(shm_before, tmp_before)
        self.judge()

    def check_leftovers(self, shm_before, tmp_before):
        deadline = time.monotonic() + 1.0
        procs = job_processes(self.run_id)
        while procs and time.monotonic() < deadline:
            time.sleep(0.1)
            procs = job_processes(self.run_id)
        for pid in procs:
            self.leftovers.append(f"process {pid} still alive")
            try:
                os.kill(pid, signal.SIGKILL)
                os.kill(pid, signal.SIGCONT)
            except ProcessLookupError:
                pass
        for e in sorted(listdir(self.tmpdir)):
            self.leftovers.append(f"TMPDIR entry {e}")
        shutil.rmtree(self.tmpdir, ignore_errors=True)
        for e in sorted(listdir("/dev/shm") - shm_before):
            self.leftovers.append(f"/dev/shm/{e}")
        pids = list(self.pids.values()) + [self.launcher_pid]
        for e in sorted(tmp_gshmem(listdir("/tmp")) - tmp_before):
            if ours(e, pids):
                self.leftovers.append(f"/tmp/{e}")

    def judge(self):
        a = self.args
        out = "\n".join(t for _, _, t in self.lines)
        done = len(re.findall(r"^FAULT-DONE \S+ pe=\d+ ok", out, re.M))
        self.duration = self.end - self.start
        # The fault's first visible effect: the signal, else the first error a PE or the
        # launcher printed; a job must end within GSHMEM_TIMEOUT plus a few seconds of it.
        since = self.fault_time
        if since is None:
            errors = [t for t, s, x in self.lines if s == "err" and re.search(
                r"^gshmem: .*PE \d+: |^gshmemrun: ", x)]
            since = errors[0] if errors else None
        self.time_to_end = self.end - (since if since is not None else self.start)
        limit = a.timeout + SLACK
        if since is not None and self.time_to_end > limit:
            self.problems.append(f"ended {self.time_to_end:.1f} s after the fault's first effect "
                                 f"(> {limit} s)")
        if "WRONG RESULT" in out:
            self.problems.append("a PE printed WRONG RESULT")
        pe = rf"PE {self.target}\b"
        if self.fault in ("kill", "stop"):
            if self.landed:
                if self.status == 0:
                    self.problems.append("exit status 0 after the fault landed")
                what = r"signal 9|Killed" if self.fault == "kill" else r"stopped|timed out"
                if not re.search(pe, out) or not re.search(what, out):
                    self.problems.append(f"the output does not name PE {self.target} and "
                                         f"/{what}/")
        else:
            if self.fault == "error":
                self.landed = "injected error completion" in out
                if self.landed:
                    if self.status == 0:
                        self.problems.append("exit status 0 after an injected error completion")
                    if not re.search(r"PE \d+: .*fi_\w+[^:]* to PE \d+", out):
                        self.problems.append("no message names the PE, the fabric call and its "
                                             "peer")
            else:
                self.landed = "-FI_EAGAIN storm" in out
                if self.status != 0 and not re.search(r"PE \d+: .*fi_\w+.* to PE \d+.*FI_EAGAIN",
                                                      out):
                    self.problems.append("failed without a message naming the PE, the call, "
                                         "the peer and -FI_EAGAIN")
        recoverable = self.fault == "eagain" or not self.landed
        if recoverable and self.status == 0 and done != a.npes:
            self.problems.append(f"exit 0 but only {done} of {a.npes} PEs said FAULT-DONE")
        if not self.landed and self.status != 0:
            self.problems.append(f"exit status {self.status} though the fault missed")
        self.ok = not self.problems

    def report(self):
        head = (f"{self.phase} x {self.fault}, seed {self.seed}, target PE {self.target}, "
                f"delay {self.delay:.2f} s, landed {self.landed} (in phase {self.in_phase}), "
                f"exit {self.status}, {self.duration:.1f} s")
        lines = [head] + [f"  problem: {p}" for p in self.problems]
        lines += [f"  leftover: {x}" for x in self.leftovers]
        tail = [f"  | {s}: {t}" for _, s, t in self.lines if not t.startswith("FAULT-")][-25:]
        return "\n".join(lines + tail)


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--gshmemrun", default="build/gshmemrun")
    p.add_argument("--workload", default="build/tests/fault/fault_pe")
    p.add_argument("--seeds", type=int, default=3, help="seeds per cell (first-seed, ...)")
    p.add_argument("--first-seed", type=int, default=1)
    p.add_argument("--phases", default=",".join(PHASES))
    p.add_argument("--faults", default=",".join(FAULTS))
    p.add_argument("--cells", default="", help="phase:fault,... instead of phases x faults")
    p.add_argument("--timeout", type=float, default=10, help="GSHMEM_TIMEOUT of each job (s)")
    p.add_argument("--npes", type=int, default=4)
    p.add_argument("--ppn", type=int, default=2)
    p.add_argument("--provider", default="tcp;ofi_rxm")
    p.add_argument("--error-rate", default="0.002")
    p.add_argument("--eagain-rate", default="0.002")
    p.add_argument("--storm-ms", default="300")
    p.add_argument("--verbose", action="store_true", help="print every run as it ends")
    a = p.parse_args()
    if a.timeout == int(a.timeout):
        a.timeout = int(a.timeout)
    for tool in (a.gshmemrun, a.workload):
        if not os.access(tool, os.X_OK):
            sys.exit(f"fault_campaign: {tool} is not an executable (build it first)")
    if a.cells:
        cells = [tuple(c.split(":")) for c in a.cells.split(",") if c]
    else:
        cells = [(ph, f) for ph in a.phases.split(",") if ph for f in a.faults.split(",") if f]
    for ph, f in cells:
        if ph not in PHASES or f not in FAULTS:
            sys.exit(f"fault_campaign: unknown cell {ph}:{f} (phases {PHASES}, faults {FAULTS})")

    results = {}
    index = 0
    t0 = time.monotonic()
    for ph, f in cells:
        for seed in range(a.first_seed, a.first_seed + a.seeds):
            r = Run(a, ph, f, seed, index)
            index += 1
            r.execute()
            results.setdefault((ph, f), []).append(r)
            if not r.ok or r.leftovers:
                print("FAIL " + r.report(), flush=True)
            elif a.verbose:
                print("ok   " + r.report(), flush=True)

    print(f"\nfault campaign: {a.npes} PEs, --ppn {a.ppn}, {a.provider}, GSHMEM_TIMEOUT={a.timeout} s, "
          f"seeds {a.first_seed}..{a.first_seed + a.seeds - 1}, {time.monotonic() - t0:.0f} s")
    hdr = f"{'phase':<9} {'fault':<7} {'runs':>4} {'ended ok':>8} {'landed':>6} " \
          f"{'end max':>8} {'end med':>8} {'leftovers':>9}"
    print(hdr)
    print("-" * len(hdr))
    bad = 0
    for (ph, f), rs in results.items():
        times = [r.time_to_end for r in rs]
        ok = sum(r.ok for r in rs)
        left = sum(len(r.leftovers) for r in rs)
        bad += (len(rs) - ok) + left
        print(f"{ph:<9} {f:<7} {len(rs):>4} {ok:>8} {sum(r.landed for r in rs):>6} "
              f"{max(times):>7.1f}s {statistics.median(times):>7.1f}s {left:>9}")
    print("time to end: from the signal (kill, stop), else from the first error printed, else "
          "from the start; "
          "landed: the signal reached a live PE, an injected error completion was seen, or an "
          "EAGAIN storm was met (recovered or failed)")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
