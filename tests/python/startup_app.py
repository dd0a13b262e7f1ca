"""Start-up under a launcher: gshmemrun, mpirun (PMIx) or torchrun. Checks that this PE's rank
and the job size are the launcher's, that the PEs talk, and leaves finalize to interpreter exit.
Prints "startup ok: <bootstrap>, <n> PEs" on PE 0, and leaves one symmetric tensor for
finalize to free (with its warning)."""
import os

import torch

import gshmem

torch.set_num_threads(1)
gshmem.init()
me, n = gshmem.my_pe(), gshmem.n_pes()
for rank_var, size_var in (("RANK", "WORLD_SIZE"), ("OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE"),
                           ("GSHMEM_LAUNCHER_PE", "GSHMEM_LAUNCHER_NPES")):
    if rank_var in os.environ:
        assert me == int(os.environ[rank_var]), (me, rank_var, os.environ[rank_var])
        assert n == int(os.environ[size_var]), (n, size_var, os.environ[size_var])
        launcher = rank_var
        break
else:
    raise SystemExit("startup_app: no launcher variables found")
ring = gshmem.zeros(4, dtype=torch.int32)
gshmem.put(ring, torch.full((4,), me, dtype=torch.int32), (me + 1) % n)
gshmem.barrier_all()
assert ring.tolist() == [(me - 1) % n] * 4
total = gshmem.all_reduce(torch.tensor([me + 1.0]))
assert total.item() == n * (n + 1) / 2
gshmem.free(ring)
left_over = gshmem.empty(3)
if me == 0:
    print(f"startup ok: {launcher}, {n} PEs", flush=True)
