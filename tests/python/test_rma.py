"""One-sided operations on symmetric tensors."""
import pytest
import torch

import gshmem


def test_symmetric_tensors(me, n, dev):
    t = gshmem.zeros(3, 4, dtype=torch.float64)
    assert t.shape == (3, 4) and t.dtype == torch.float64 and t.device == dev
    assert gshmem.is_symmetric(t) and gshmem.is_symmetric(t[1])
    assert not gshmem.is_symmetric(torch.zeros(3))
    assert torch.count_nonzero(t) == 0
    e = gshmem.empty((5,), dtype=torch.int16)
    assert e.shape == (5,) and e.dtype == torch.int16
    gshmem.free(e)
    assert e.numel() == 0  # a freed tensor is emptied
    gshmem.free(t)


@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16, torch.int64, torch.uint8,
                                   torch.complex64])
@pytest.mark.parametrize("nbi", [False, True])
def test_put_get_ring(me, n, dtype, nbi):
    right, left = (me + 1) % n, (me - 1) % n
    dst = gshmem.zeros(1000, dtype=dtype)
    src = (torch.arange(1000) % 100 + me).to(dtype)
    (gshmem.put_nbi if nbi else gshmem.put)(dst, src, right)
    if nbi:
        gshmem.quiet()
    gshmem.barrier_all()
    assert torch.equal(dst, (torch.arange(1000) % 100 + left).to(dtype))
    got = torch.empty(1000, dtype=dtype)
    (gshmem.get_nbi if nbi else gshmem.get)(got, dst, right)  # right's dst came from me
    if nbi:
        gshmem.quiet()
    assert torch.equal(got, src)
    gshmem.barrier_all()
    gshmem.free(dst)


def test_put_into_a_view(me, n):
    dst = gshmem.zeros(n, 4, dtype=torch.int32)
    for pe in range(n):
        gshmem.put(dst[me], torch.full((4,), 10 * me + pe, dtype=torch.int32), pe)
    gshmem.barrier_all()
    expect = torch.tensor([[10 * s + me] * 4 for s in range(n)], dtype=torch.int32)
    assert torch.equal(dst, expect)
    gshmem.barrier_all()
    gshmem.free(dst)


def test_put_signal_exchange(me, n):
    """A one-sided exchange: each PE puts its row to every peer with a signal ADD; each waits
    until n rows are in."""
    rows = gshmem.zeros(n, 64, dtype=torch.float32)
    sig = gshmem.zeros(1, dtype=torch.int64)
    mine = torch.full((64,), float(me))
    for pe in range(n):
        gshmem.put_signal_nbi(rows[me], mine, sig, 1, pe, op="add")
    assert gshmem.signal_wait_until(sig, ">=", n) == n
    assert torch.equal(rows, torch.arange(n, dtype=torch.float32)[:, None].expand(n, 64))
    gshmem.barrier_all()
    gshmem.signal_op(sig, 7, me, op="set")
    assert gshmem.signal_wait_until(sig, "eq", 7) == 7
    gshmem.barrier_all()
    gshmem.free(sig)
    gshmem.free(rows)


@pytest.mark.parametrize("dtype", [torch.int32, torch.int64])
def test_atomics(me, n, dtype):
    c = gshmem.zeros(2, dtype=dtype)
    gshmem.atomic_add(c[0:1], me + 1, 0)
    old = gshmem.atomic_fetch_add(c[1:2], 1, 0)
    gshmem.barrier_all()
    if me == 0:
        assert c[0].item() == n * (n + 1) // 2
        assert c[1].item() == n
    assert 0 <= old < n
    gshmem.barrier_all()
    gshmem.free(c)


def test_fence_orders_puts(me, n):
    right, left = (me + 1) % n, (me - 1) % n
    data = gshmem.zeros(256, dtype=torch.int64)
    flag = gshmem.zeros(1, dtype=torch.int64)
    gshmem.put(data, torch.full((256,), me + 1, dtype=torch.int64), right)
    gshmem.fence()
    gshmem.signal_op(flag, 1, right)
    gshmem.signal_wait_until(flag, "eq", 1)
    assert torch.equal(data, torch.full((256,), left + 1, dtype=torch.int64))
    gshmem.barrier_all()
    gshmem.free(flag)
    gshmem.free(data)


def test_teams(me, n):
    assert gshmem.TEAM_WORLD.my_pe() == me and gshmem.TEAM_WORLD.n_pes() == n
    evens = gshmem.team_split_strided(gshmem.TEAM_WORLD, 0, 2, (n + 1) // 2)
    if me % 2 == 0:
        assert evens is not None and evens.my_pe() == me // 2
        assert evens.n_pes() == (n + 1) // 2
        assert evens.translate_pe(evens.my_pe(), gshmem.TEAM_WORLD) == me
        t = torch.tensor([float(me)])
        gshmem.all_reduce(t, team=evens)
        assert t.item() == sum(range(0, n, 2))
        evens.destroy()
    else:
        assert evens is None
    gshmem.barrier_all()
