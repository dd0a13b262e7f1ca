"""The package on a GPU heap: CUDA symmetric tensors, RMA and collectives on
torch.cuda.current_stream(). Runs when the suite is started with GSHMEM_TEST_DEVICE=cuda (as
tests/gpu/run_all.sh does on a GPU machine whose torch has CUDA); skipped otherwise."""
import pytest
import torch

import gshmem

pytestmark = pytest.mark.skipif(gshmem.device().type != "cuda",
                                reason="the symmetric heap is not on a GPU")


def test_cuda_symmetric_tensor(dev):
    t = gshmem.zeros(1024, dtype=torch.float32)
    assert t.device == dev and t.is_cuda and int(t.count_nonzero()) == 0
    gshmem.barrier_all()
    gshmem.free(t)


def test_cuda_put_get_on_stream(me, n, dev):
    right, left = (me + 1) % n, (me - 1) % n
    dst = gshmem.zeros(4096, dtype=torch.int32)
    src = torch.full((4096,), me, dtype=torch.int32, device=dev)
    s = torch.cuda.Stream(dev)
    with torch.cuda.stream(s):  # the calls go on the current stream
        gshmem.put(dst, src, right)
        gshmem.barrier_all()
    s.synchronize()
    assert torch.equal(dst.cpu(), torch.full((4096,), left, dtype=torch.int32))
    got = torch.empty_like(src)
    gshmem.get(got, dst, right)
    torch.cuda.current_stream(dev).synchronize()
    assert torch.equal(got.cpu(), torch.full((4096,), me, dtype=torch.int32))
    gshmem.barrier_all()
    gshmem.free(dst)


def test_cuda_signal(me, n, dev):
    rows = gshmem.zeros(n, 256, dtype=torch.float32)
    sig = gshmem.zeros(1, dtype=torch.int64)
    for pe in range(n):
        gshmem.put_signal(rows[me], torch.full((256,), float(me), device=dev), sig, 1, pe,
                          op="add")
    gshmem.signal_wait_until(sig, ">=", n)
    torch.cuda.current_stream(dev).synchronize()
    assert torch.equal(rows.cpu(), torch.arange(n, dtype=torch.float32)[:, None].expand(n, 256))
    gshmem.barrier_all()
    torch.cuda.current_stream(dev).synchronize()
    gshmem.free(sig)
    gshmem.free(rows)


@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16, torch.int64, torch.float16])
def test_cuda_collectives(me, n, dev, dtype):
    t = (torch.arange(1000, device=dev) % 7 + me).to(dtype)
    gshmem.all_reduce(t)
    expect = sum((torch.arange(1000) % 7 + p) for p in range(n)).to(dtype)
    out = torch.empty(n * 1000, dtype=dtype, device=dev)
    gshmem.all_gather(out, (torch.arange(1000, device=dev) + me).to(dtype))
    b = torch.full((33,), me, dtype=dtype, device=dev)
    gshmem.broadcast(b, 0)
    torch.cuda.current_stream(dev).synchronize()
    assert torch.equal(t.cpu(), expect)
    assert torch.equal(out.cpu(), torch.cat([(torch.arange(1000) + p).to(dtype) for p in range(n)]))
    assert torch.equal(b.cpu(), torch.zeros(33, dtype=dtype))
