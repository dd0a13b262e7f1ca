"""Bad input raises a Python exception naming the call and the argument; nothing is sent, and
the job goes on (every PE makes the same bad call, so the next test's collectives still meet)."""
import pytest
import torch

import gshmem


@pytest.fixture
def sym():
    t = gshmem.zeros(16, dtype=torch.float32)
    yield t
    gshmem.barrier_all()
    gshmem.free(t)


def test_rma_arguments(me, n, sym):
    src = torch.ones(16)
    with pytest.raises(ValueError, match=r"gshmem.put: dst is not a symmetric tensor"):
        gshmem.put(torch.zeros(16), src, 0)
    with pytest.raises(ValueError, match=r"gshmem.get: src is not a symmetric tensor"):
        gshmem.get(torch.zeros(16), torch.zeros(16), 0)
    with pytest.raises(TypeError, match=r"gshmem.put: dst is torch.float32 but src is torch.int32"):
        gshmem.put(sym, torch.ones(16, dtype=torch.int32), 0)
    with pytest.raises(ValueError, match=r"gshmem.put: dst has 16 elements but src has 17"):
        gshmem.put(sym, torch.ones(17), 0)
    with pytest.raises(ValueError, match=r"gshmem.put: pe=%d is out of range" % n):
        gshmem.put(sym, src, n)
    with pytest.raises(ValueError, match=r"pe=-1 is out of range"):
        gshmem.put(sym, src, -1)
    with pytest.raises(TypeError, match=r"gshmem.put: pe must be an int"):
        gshmem.put(sym, src, 0.5)
    with pytest.raises(ValueError, match=r"gshmem.put: src must be contiguous"):
        gshmem.put(sym[:8], torch.ones(16)[::2], 0)
    with pytest.raises(TypeError, match=r"gshmem.put: src must be a torch.Tensor, not list"):
        gshmem.put(sym, [1.0] * 16, 0)
    with pytest.raises(ValueError, match=r"gshmem.put: dst is not a symmetric tensor"):
        gshmem.put(sym.new_zeros(16), src, 0)


def test_device_mismatch(sym):
    if not torch.cuda.is_available():
        meta = torch.empty(16, device="meta")
        with pytest.raises(ValueError, match=r"gshmem.put: src is on meta, but this PE's "
                                             r"symmetric heap is on cpu"):
            gshmem.put(sym, meta, 0)
    else:
        with pytest.raises(ValueError, match=r"src is on cuda"):
            gshmem.put(sym, torch.ones(16, device="cuda"), 0)


def test_signal_and_atomic_arguments(sym):
    with pytest.raises(TypeError, match=r"gshmem.signal_op: sig must be one 64-bit integer"):
        gshmem.signal_op(sym[:1], 1, 0)
    with pytest.raises(TypeError, match=r"gshmem.atomic_add: dst must be one int32 or int64"):
        gshmem.atomic_add(sym[:1], 1, 0)
    sig = gshmem.zeros(1, dtype=torch.int64)
    with pytest.raises(ValueError, match=r"gshmem.signal_wait_until: cmp='~' must be one of"):
        gshmem.signal_wait_until(sig, "~", 1)
    with pytest.raises(ValueError, match=r"gshmem.signal_op: op='mul' must be one of"):
        gshmem.signal_op(sig, 1, 0, op="mul")
    gshmem.barrier_all()
    gshmem.free(sig)


def test_heap_arguments(sym):
    with pytest.raises(ValueError, match=r"gshmem.free: t is not a tensor that gshmem.empty"):
        gshmem.free(torch.zeros(3))
    with pytest.raises(ValueError, match=r"gshmem.free: t is not a tensor"):
        gshmem.free(sym[1:])
    with pytest.raises(ValueError, match=r"gshmem.empty: shape=\(-1,\) must be non-negative"):
        gshmem.empty(-1)
    with pytest.raises(TypeError, match=r"gshmem.empty: dtype must be a torch.dtype"):
        gshmem.empty(4, dtype="float")


def test_collective_arguments(n):
    t = torch.zeros(8)
    with pytest.raises(ValueError, match=r"gshmem.all_reduce: op='concat' must be one of"):
        gshmem.all_reduce(t, op="concat")
    with pytest.raises(ValueError, match=r"gshmem.all_reduce: t must be contiguous"):
        gshmem.all_reduce(torch.zeros(8, 2).t())
    with pytest.raises(TypeError, match=r"gshmem.all_reduce: t has dtype torch.bool"):
        gshmem.all_reduce(torch.zeros(8, dtype=torch.bool))
    with pytest.raises(ValueError, match=r"gshmem.all_gather: out has 7 elements; it needs "
                                         r"team size \(%d\) x inp's 8" % n):
        gshmem.all_gather(torch.zeros(7), torch.zeros(8))
    with pytest.raises(TypeError, match=r"gshmem.all_gather: inp is torch.int32 but out is "
                                        r"torch.float32"):
        gshmem.all_gather(torch.zeros(8 * n), torch.zeros(8, dtype=torch.int32))
    with pytest.raises(ValueError, match=r"gshmem.broadcast: root=%d is out of range" % n):
        gshmem.broadcast(t, n)
    with pytest.raises(TypeError, match=r"gshmem.all_reduce: team must be a gshmem.Team"):
        gshmem.all_reduce(t, team=0)
    # Bitwise on floats: the library refuses, and its message is the exception's.
    with pytest.raises(ValueError, match=r"gshmem_allreduce: op=GSHMEM_BAND does not apply to "
                                         r"dtype=GSHMEM_FLOAT"):
        gshmem.all_reduce(torch.zeros(8), op="band")


def test_moe_arguments(n):
    A = gshmem.moe.AllToAll
    with pytest.raises(TypeError, match=r"AllToAll: dispatch_dtype=torch.float64 must be one of"):
        A(4, 2 * n, 1, 8, torch.float64, torch.float32)
    with pytest.raises(TypeError, match=r"AllToAll: combine_dtype=torch.uint8 must be one of"):
        A(4, 2 * n, 1, 8, torch.uint8, torch.uint8)
    with pytest.raises(ValueError, match=r"capacity_factor=-1 must be >= 0"):
        A(4, 2 * n, 1, 8, torch.float32, torch.float32, capacity_factor=-1)
    with pytest.raises(ValueError, match=r"gshmem_moe_create: num_experts=0"):
        A(4, 0, 1, 8, torch.float32, torch.float32)  # the library's check, on every PE
    if n > 1:
        with pytest.raises(ValueError, match=r"gshmem_moe_create: num_experts=%d" % (2 * n + 1)):
            A(4, 2 * n + 1, 1, 8, torch.float32, torch.float32)  # not a multiple of the team
    a2a = A(4, 2 * n, 2, 8, torch.float32, torch.float32)
    x, idx = torch.zeros(4, 8), torch.zeros(4, 2, dtype=torch.int32)
    idx[:, 1] = 1
    with pytest.raises(ValueError, match=r"dispatch_send: x must be \[tokens, hidden=8\]"):
        a2a.dispatch(torch.zeros(4, 7), idx)
    with pytest.raises(ValueError, match=r"x has 5 tokens, above max_tokens=4"):
        a2a.dispatch(torch.zeros(5, 8), torch.zeros(5, 2, dtype=torch.int32))
    with pytest.raises(TypeError, match=r"x is torch.float16, but the dispatch type is"):
        a2a.dispatch(x.half(), idx)
    with pytest.raises(TypeError, match=r"indices must be int32 or int64, not torch.float32"):
        a2a.dispatch(x, idx.float())
    with pytest.raises(ValueError, match=r"indices must be \[tokens=4, experts_per_token=2\]"):
        a2a.dispatch(x, idx[:, :1])
    with pytest.raises(ValueError, match=r"num_tokens=9 must be 0 .. x's 4 rows"):
        a2a.dispatch(x, idx, num_tokens=9)
    with pytest.raises(ValueError, match=r"scales given, but this AllToAll sends none"):
        a2a.dispatch(x, idx, scales=torch.zeros(4, 1))
    bad = idx.clone()
    bad[0, 0] = 2 * n  # out of range: found by the library on every member
    with pytest.raises(ValueError, match=r"gshmem_moe_dispatch_send"):
        a2a.dispatch(x, bad)
    ex, counts = a2a.dispatch(x, idx)  # still usable
    with pytest.raises(ValueError, match=r"combine_send: expert_y must be"):
        a2a.combine(torch.zeros(1, 1, 8), torch.ones(4, 2))
    with pytest.raises(ValueError, match=r"combine_recv: weights must be \[4, 2\]"):
        a2a.combine_send(torch.zeros(ex.shape))
        a2a.combine_recv(torch.ones(4, 3))
    a2a.combine_recv(torch.ones(4, 2))
    a2a.destroy()


def test_not_initialised_message():
    import subprocess, sys
    code = "import gshmem; gshmem.my_pe()"
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                       env={k: v for k, v in __import__('os').environ.items()
                            if not k.startswith(("GSHMEM_", "PMIX", "OMPI"))})
    assert r.returncode != 0
    assert "gshmem.my_pe: gshmem is not initialised (call gshmem.init() first)" in r.stderr
