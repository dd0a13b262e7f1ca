"""MoE dispatch and combine on torch tensors, against a reference computed from every PE's
inputs (each PE can make any PE's inputs from its seed), and their gradients."""
import pytest
import torch

import gshmem

H = 16  # hidden


def routing(pe, tokens, experts, k, skew=False):
    """PE pe's top-k expert ids: distinct per token; skew sends most tokens to expert 0."""
    g = torch.Generator().manual_seed(7000 + pe)
    rows = []
    for t in range(tokens):
        ids = torch.randperm(experts, generator=g)[:k]
        if skew and t % 4 != 3 and 0 not in ids:
            ids[0] = 0
        rows.append(ids)
    return (torch.stack(rows) if rows else torch.empty(0, k, dtype=torch.long)).int()


def tokens_of(pe, tokens, dtype):
    g = torch.Generator().manual_seed(8000 + pe)
    if dtype == torch.uint8:
        return torch.randint(0, 256, (tokens, H), generator=g, dtype=torch.uint8)
    return (torch.randint(-64, 64, (tokens, H), generator=g).float() / 8).to(dtype)


def weights_of(pe, tokens, k):
    g = torch.Generator().manual_seed(9000 + pe)
    return torch.rand(tokens, k, generator=g)


def expected_batch(me, n, counts_of, experts, k, dtype, skew):
    """Rows of each local expert: by sending PE, then token, then slot."""
    L = experts // n
    rows = [[] for _ in range(L)]
    for src in range(n):
        idx, x = routing(src, counts_of(src), experts, k, skew), tokens_of(src, counts_of(src), dtype)
        for t in range(idx.shape[0]):
            for slot in range(k):
                e = int(idx[t, slot])
                if me * L <= e < (me + 1) * L:
                    rows[e - me * L].append(x[t])
    return rows


def expert_fn(ex, first_expert):
    """A stand-in expert: row * (global expert id + 1), in fp32."""
    scale = torch.arange(first_expert + 1, first_expert + 1 + ex.shape[0], dtype=torch.float32)
    return ex.float() * scale[:, None, None]


CASES = [(dt, ct, k) for dt, ct in [(torch.float32, torch.float32),
                                     (torch.bfloat16, torch.bfloat16),
                                     (torch.float16, torch.float16),
                                     (torch.bfloat16, torch.float32)]
         for k in (1, 2, 4)]


@pytest.mark.parametrize("dtype,ctype,k", CASES,
                         ids=[f"{a}-{b}-top{k}".replace("torch.", "") for a, b, k in CASES])
@pytest.mark.parametrize("skew", [False, True])
def test_dispatch_combine(me, n, dtype, ctype, k, skew):
    experts, max_tokens = 4 * n, 12
    counts_of = lambda pe: 0 if pe == 1 else max_tokens - pe  # PE 1 has no tokens
    k = min(k, experts)
    a2a = gshmem.moe.AllToAll(max_tokens, experts, k, H, dtype, ctype)
    T = counts_of(me)
    x, idx = tokens_of(me, T, dtype), routing(me, T, experts, k, skew)
    w = weights_of(me, T, k)
    for _ in range(2):  # back to back
        ex, counts = a2a.dispatch(x, idx)
        want = expected_batch(me, n, counts_of, experts, k, dtype, skew)
        assert counts.tolist() == [len(r) for r in want]
        for e, rows in enumerate(want):
            if rows:
                assert torch.equal(ex[e, :len(rows)], torch.stack(rows))
        y = expert_fn(ex, me * a2a.num_local_experts).to(ctype)
        out = a2a.combine(y, w)
        # The reference: the same fp32 sums in slot order, rounded once to the combine type.
        acc = torch.zeros(T, H)
        for slot in range(k):
            ys = (x.float() * (idx[:, slot:slot + 1].float() + 1)).to(ctype).float()
            acc = acc + w[:, slot:slot + 1] * ys
        assert out.shape == (T, H) and out.dtype == ctype
        torch.testing.assert_close(out, acc.to(ctype), rtol=0, atol=0)
    a2a.destroy()


def test_bytes_with_scales(me, n):
    """fp8-style byte payloads with per-block fp32 scales, and the split halves."""
    experts, k, T = 2 * n, 2, 9
    a2a = gshmem.moe.AllToAll(T, experts, k, H, torch.uint8, torch.bfloat16, scale_block=8)
    x, idx = tokens_of(me, T, torch.uint8), routing(me, T, experts, k)
    scales = torch.arange(T * 2, dtype=torch.float32).view(T, 2) + 100 * me
    a2a.dispatch_send(x, idx, scales=scales)
    ex, counts, sc = a2a.dispatch_recv()
    want = expected_batch(me, n, lambda pe: T, experts, k, torch.uint8, False)
    for e, rows in enumerate(want):
        assert counts[e] == len(rows)
        if rows:
            assert torch.equal(ex[e, :len(rows)], torch.stack(rows))
    # Each row's scales came with it: row r of expert e is the token whose bytes it holds.
    seen = {(s, tuple(tokens_of(s, T, torch.uint8)[t].tolist())): t for s in range(n)
            for t in range(T)}
    for e in range(ex.shape[0]):
        for r in range(int(counts[e])):
            matches = [(s, t) for (s, b), t in seen.items() if b == tuple(ex[e, r].tolist())]
            assert any(torch.equal(sc[e, r], torch.arange(2 * t, 2 * t + 2).float() + 100 * s)
                       for s, t in matches)
    y = torch.ones(ex.shape, dtype=torch.bfloat16)
    a2a.combine_send(y)
    out = a2a.combine_recv(torch.ones(T, k))
    assert torch.equal(out, torch.full((T, H), float(k), dtype=torch.bfloat16))
    a2a.destroy()


def test_num_tokens_and_unused_slots(me, n):
    experts, k, rows = 2 * n, 2, 8
    a2a = gshmem.moe.AllToAll(rows, experts, k, H, torch.float32, torch.float32)
    x, idx = tokens_of(me, rows, torch.float32), routing(me, rows, experts, k)
    idx[:, 1] = -1  # one expert per token
    live = 5
    ex, counts = a2a.dispatch(x, idx, num_tokens=live)
    total = torch.tensor([int(counts.sum())])
    gshmem.all_reduce(total)
    assert total.item() == live * n
    out = a2a.combine(torch.ones(ex.shape), torch.full((rows, k), 2.0))
    assert torch.equal(out[:live], torch.full((live, H), 2.0))
    assert torch.count_nonzero(out[live:]) == 0
    a2a.destroy()


def test_capacity_overflow_and_retry(me, n):
    if n < 2:
        pytest.skip("an overflow needs a skew across PEs")
    experts, k = 2 * n, 1
    T = 2 * experts  # a balanced routing fills every expert exactly
    a2a = gshmem.moe.AllToAll(T, experts, k, H, torch.float32, torch.float32,
                              capacity_factor=1.0)
    x = tokens_of(me, T, torch.float32)
    idx = torch.zeros(T, 1, dtype=torch.int32)  # every token to expert 0
    with pytest.raises(gshmem.CapacityError, match="capacity_factor >= ") as err:
        a2a.dispatch(x, idx)
    o = err.value.overflow
    assert o["kind"] == "expert" and o["expert"] == 0 and o["count"] == n * T
    assert a2a.last_overflow() == o
    # The same object still works for a call that fits...
    ok = torch.arange(T, dtype=torch.int32).view(T, 1) % experts
    ex, counts = a2a.dispatch(x, ok)
    a2a.combine(torch.zeros(ex.shape), torch.ones(T, 1))
    # ...and one with the factor it asked for takes the skewed call.
    big = gshmem.moe.AllToAll(T, experts, k, H, torch.float32, torch.float32,
                              capacity_factor=o["min_capacity_factor"])
    ex, counts = big.dispatch(x, idx)
    assert counts[0].item() == (n * T if me == 0 else 0)
    big.combine(ex, torch.ones(T, 1))
    big.destroy()
    a2a.destroy()


def test_call_order_is_checked(me, n):
    a2a = gshmem.moe.AllToAll(4, 2 * n, 1, H, torch.float32, torch.float32)
    with pytest.raises(RuntimeError, match="out of order: the next call must be dispatch_send"):
        a2a.combine_send(torch.zeros(a2a.num_local_experts, a2a.expert_capacity, H))
    a2a.destroy()


# ---- Gradients -------------------------------------------------------------------------------

def layer(a2a, idx, w_experts):
    """tokens -> dispatch -> tanh(x @ W_e) per expert -> combine with the router weights."""
    def f(x, w):
        ex, _ = a2a.dispatch(x, idx)
        return a2a.combine(torch.tanh(torch.bmm(ex, w_experts)), w)
    return f


@pytest.mark.parametrize("k", [1, 2, 3])
def test_gradcheck(me, n, k):
    """torch.autograd.gradcheck of dispatch -> experts -> combine in double precision. Each PE's
    output depends only on its own tokens and weights, so every PE checks its own Jacobian while
    all run the exchanges together. The exchange carries fp32, hence the tolerances."""
    experts, T, h = 2 * n * (2 if n < 2 else 1), 4, 6
    a2a = gshmem.moe.AllToAll(T, experts, k, h, torch.float32, torch.float32)
    g = torch.Generator().manual_seed(me)
    x = torch.randn(T, h, generator=g, dtype=torch.float64, requires_grad=True)
    w = torch.rand(T, k, generator=g, dtype=torch.float64, requires_grad=True)
    idx = routing(me, T, experts, k)
    W = torch.randn(a2a.num_local_experts, h, h, dtype=torch.float64,
                    generator=torch.Generator().manual_seed(50 + me))
    assert torch.autograd.gradcheck(layer(a2a, idx, W), (x, w), eps=1e-3, atol=2e-3, rtol=2e-3)
    a2a.destroy()


def test_gradients_match_a_dense_reference(me, n):
    """Gradients of tokens, router weights and expert parameters (whose rows come from every
    PE) against autograd through a single-process computation of the whole job."""
    experts, k, T = 2 * n, 2, 6
    L = experts // n
    gw = torch.Generator().manual_seed(42)
    W_all = torch.randn(experts, H, H, generator=gw) / 4
    xs = [tokens_of(p, T, torch.float32) for p in range(n)]
    ws = [weights_of(p, T, k) for p in range(n)]
    idxs = [routing(p, T, experts, k) for p in range(n)]
    targets = [torch.randn(T, H, generator=torch.Generator().manual_seed(300 + p))
               for p in range(n)]
    # Distributed.
    a2a = gshmem.moe.AllToAll(T, experts, k, H, torch.float32, torch.float32)
    x = xs[me].clone().requires_grad_()
    w = ws[me].clone().requires_grad_()
    W = W_all[me * L:(me + 1) * L].clone().requires_grad_()
    out = layer(a2a, idxs[me], W)(x, w)
    ((out - targets[me]) ** 2).sum().backward()
    # Dense: every PE's tokens, every expert, one process.
    X = [t.clone().requires_grad_() for t in xs]
    Wt = [t.clone().requires_grad_() for t in ws]
    Wd = W_all.clone().requires_grad_()
    loss = 0
    for p in range(n):
        y = torch.zeros(T, H)
        for slot in range(k):
            e = idxs[p][:, slot].long()
            y = y + Wt[p][:, slot:slot + 1] * torch.tanh(torch.bmm(X[p][:, None, :], Wd[e])[:, 0])
        loss = loss + ((y - targets[p]) ** 2).sum()
    loss.backward()
    torch.testing.assert_close(x.grad, X[me].grad, rtol=1e-4, atol=1e-5)
    torch.testing.assert_close(w.grad, Wt[me].grad, rtol=1e-4, atol=1e-5)
    torch.testing.assert_close(W.grad, Wd.grad[me * L:(me + 1) * L], rtol=1e-4, atol=1e-5)
    a2a.destroy()
