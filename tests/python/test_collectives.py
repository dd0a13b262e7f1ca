"""Collectives on ordinary torch tensors, against torch's own result of every PE's input."""
import pytest
import torch

import gshmem

FLOATS = [torch.float32, torch.float64, torch.float16, torch.bfloat16]
INTS = [torch.int8, torch.uint8, torch.int16, torch.int32, torch.int64]
COMPLEX = [torch.complex64, torch.complex128]


def inputs(pe, count, dtype, op="sum"):
    """PE pe's input, computable on every PE. Small integers, so that sums and products are exact
    in every type and in any order."""
    g = torch.Generator().manual_seed(1000 + pe)
    if op == "prod":
        v = torch.randint(1, 3, (count,), generator=g)
    elif dtype == torch.uint8 or op in ("band", "bor", "bxor"):
        v = torch.randint(0, 16, (count,), generator=g)
    else:
        v = torch.randint(-8, 9, (count,), generator=g)
    if dtype.is_complex:
        return torch.complex(v.double(), (v % 3).double()).to(dtype)
    return v.to(dtype)


def reference(stack, op):
    """torch's reduction, in a wide type (the values are small: exact), in stack's type."""
    wide = (torch.complex128 if stack.dtype.is_complex else
            torch.float64 if stack.dtype.is_floating_point else torch.int64)
    s = stack.to(wide)
    if op == "sum":
        return s.sum(0).to(stack.dtype)
    if op == "prod":
        return s.prod(0).to(stack.dtype)
    if op == "min":
        return s.min(0).values.to(stack.dtype)
    if op == "max":
        return s.max(0).values.to(stack.dtype)
    if op == "avg":
        return (s.sum(0) / stack.shape[0]).to(stack.dtype)
    out = stack[0].clone()
    for row in stack[1:]:
        out = {"band": torch.bitwise_and, "bor": torch.bitwise_or,
               "bxor": torch.bitwise_xor}[op](out, row)
    return out


def ops_of(dtype):
    if dtype.is_complex:
        return ["sum", "prod"]
    if dtype.is_floating_point:
        return ["sum", "prod", "min", "max", "avg"]
    return ["sum", "prod", "min", "max", "band", "bor", "bxor"]


CASES = [(d, o) for d in FLOATS + INTS + COMPLEX for o in ops_of(d)]


@pytest.mark.parametrize("dtype,op", CASES, ids=[f"{d}-{o}".replace("torch.", "")
                                                  for d, o in CASES])
@pytest.mark.parametrize("count", [1, 1000])
def test_all_reduce(me, n, dtype, op, count):
    t = inputs(me, count, dtype, op)
    gshmem.all_reduce(t, op=op)
    expect = reference(torch.stack([inputs(p, count, dtype, op) for p in range(n)]), op)
    if op == "avg":
        torch.testing.assert_close(t, expect, rtol=1e-2, atol=1e-2)
    else:
        assert torch.equal(t, expect), (t, expect)


@pytest.mark.parametrize("dtype", FLOATS + INTS + COMPLEX, ids=str)
def test_reduce_scatter(me, n, dtype):
    count = 300
    inp = inputs(me, n * count, dtype)
    out = torch.empty(count, dtype=dtype)
    gshmem.reduce_scatter(out, inp, op="sum")
    full = reference(torch.stack([inputs(p, n * count, dtype) for p in range(n)]), "sum")
    assert torch.equal(out, full[me * count:(me + 1) * count])


@pytest.mark.parametrize("dtype", FLOATS + INTS + COMPLEX, ids=str)
def test_all_gather(me, n, dtype):
    inp = inputs(me, 257, dtype).view(257)
    out = torch.empty(n, 257, dtype=dtype)
    gshmem.all_gather(out, inp)
    assert torch.equal(out, torch.stack([inputs(p, 257, dtype) for p in range(n)]))


@pytest.mark.parametrize("dtype", FLOATS + INTS + COMPLEX, ids=str)
def test_broadcast(me, n, dtype):
    root = n - 1
    t = inputs(me, 513, dtype)
    gshmem.broadcast(t, root)
    assert torch.equal(t, inputs(root, 513, dtype))


@pytest.mark.parametrize("dtype", FLOATS + INTS + COMPLEX, ids=str)
def test_all_to_all(me, n, dtype):
    block = 65
    inp = inputs(me, n * block, dtype)
    out = torch.empty_like(inp)
    gshmem.all_to_all(out, inp)
    expect = torch.cat([inputs(p, n * block, dtype)[me * block:(me + 1) * block]
                        for p in range(n)])
    assert torch.equal(out, expect)


def test_symmetric_and_shaped_tensors(me, n):
    """Symmetric tensors and multi-dimensional shapes work the same."""
    t = gshmem.zeros(4, 8)
    t += me
    gshmem.all_reduce(t, op="max")
    assert torch.equal(t, torch.full((4, 8), float(n - 1)))
    gshmem.barrier_all()
    gshmem.free(t)


def test_reduce_op_names(me, n):
    """torch.distributed's ReduceOp names are accepted."""
    import torch.distributed as dist
    t = torch.tensor([float(me + 1)])
    gshmem.all_reduce(t, op=dist.ReduceOp.PRODUCT)
    assert t.item() == float(torch.arange(1, n + 1).prod())
