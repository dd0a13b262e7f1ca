"""Runs startup_app.py under one launcher, as a user would type it:
    launch.py gshmemrun|mpirun|torchrun BUILD_DIR NPES
torchrun gets a free --master_port. Debian's torchrun (torch 1.13 on Python 3.11) fails to parse
its own default of --redirects/--tee (an IntFlag change in Python 3.11), hence -r 1 -t 1 (stdout
to a log and to the console); newer torchrun needs neither."""
import os
import socket
import subprocess
import sys

launcher, build, npes = sys.argv[1], sys.argv[2], sys.argv[3]
app = os.path.join(os.path.dirname(os.path.abspath(__file__)), "startup_app.py")
py = "/usr/bin/python3" if os.path.exists("/usr/bin/python3") else sys.executable
env = dict(os.environ, PYTHONPATH=os.path.join(build, "python"))
if launcher == "gshmemrun":
    cmd = [os.path.join(build, "gshmemrun"), "-n", npes, "--timeout", "120", py, app]
elif launcher == "mpirun":
    cmd = ["mpirun", "-np", npes, "-x", "PYTHONPATH", py, app]
elif launcher == "torchrun":
    with socket.socket() as s:  # a free port (and the one above it, which rank 0 takes)
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    torchrun = "/usr/bin/torchrun" if os.path.exists("/usr/bin/torchrun") else "torchrun"
    cmd = [torchrun, "--nproc_per_node", npes, "--master_addr", "127.0.0.1", "--master_port",
           str(port), "-r", "1", "-t", "1", "--log_dir", os.path.join(build, "torchrun-logs"), app]
else:
    raise SystemExit(f"launch.py: unknown launcher {launcher}")
print(" ".join(cmd), flush=True)
r = subprocess.run(cmd, env=env, timeout=240, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                   text=True)
print(r.stdout, flush=True)
# finalize ran at exit on every PE and freed the tensor the app left.
warned = r.stdout.count("gshmem.finalize: freeing 1 symmetric tensor(s) still allocated")
if r.returncode == 0 and warned != int(npes):
    print(f"launch.py: {warned} of {npes} PEs warned about the tensor left to finalize")
    sys.exit(1)
sys.exit(r.returncode)
