"""An exception that ends the interpreter on one PE ends the job (the other PE waits in a
barrier): gshmem's exit hook calls gshmem_global_exit instead of a collective finalize."""
import torch  # noqa: F401

import gshmem

gshmem.init(device="cpu")
if gshmem.my_pe() == 1:
    raise RuntimeError("uncaught on PE 1")
gshmem.barrier_all()
