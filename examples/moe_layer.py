#!/usr/bin/env python3
"""An expert-parallel MoE layer trained with gshmem's dispatch and combine.

    gshmemrun -n 4 python3 examples/moe_layer.py [--steps 10]
    (from the build tree: PYTHONPATH=build/python; installed: PYTHONPATH=<prefix>/lib/python3/dist-packages)

Every PE holds its own batch of tokens, a replica of the router (a linear layer whose top-k
logits pick the experts, softmax-weighted) and num_experts / n_pes of the experts (two-layer
MLPs). A step: route, dispatch the tokens to their experts' PEs, run the local experts, combine
the outputs back with the router weights, a squared-error loss, backward (through the
exchanges: the experts' gradients come from every PE's tokens, the router's through combine's
weights), the router's gradients summed over the PEs, an Adam step.

Then PE 0 trains the same layer from the same seed in one process, with every expert local and
every PE's tokens in one batch, and checks that the losses agree to 1e-5 relative.
"""
import argparse
import sys

import torch

import gshmem


def parse():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--steps", type=int, default=10)
    p.add_argument("--tokens", type=int, default=32, help="tokens per PE")
    p.add_argument("--hidden", type=int, default=32)
    p.add_argument("--ffn", type=int, default=64)
    p.add_argument("--experts-per-pe", type=int, default=2)
    p.add_argument("--top-k", type=int, default=2)
    p.add_argument("--lr", type=float, default=1e-2)
    p.add_argument("--seed", type=int, default=0)
    return p.parse_args()


class Layer(torch.nn.Module):
    """The router and experts first..first+count-1 of num_experts (all of them in one process)."""

    def __init__(self, a, num_experts, first, count):
        super().__init__()
        torch.manual_seed(a.seed)  # the same parameters on every PE and in the reference
        self.router = torch.nn.Linear(a.hidden, num_experts)
        w1 = torch.randn(num_experts, a.hidden, a.ffn) / a.hidden ** 0.5
        w2 = torch.randn(num_experts, a.ffn, a.hidden) / a.ffn ** 0.5
        self.w1 = torch.nn.Parameter(w1[first:first + count].clone())
        self.w2 = torch.nn.Parameter(w2[first:first + count].clone())
        self.top_k = a.top_k

    def route(self, x):
        logits, experts = self.router(x).topk(self.top_k, dim=-1)
        return experts, torch.softmax(logits, dim=-1)

    def experts(self, rows, which=None):
        """rows [experts, rows, hidden] through each expert's MLP (which: per-row expert ids)."""
        w1 = self.w1 if which is None else self.w1[which]
        w2 = self.w2 if which is None else self.w2[which]
        return torch.bmm(torch.relu(torch.bmm(rows, w1)), w2)


def data(a, pe):
    """PE pe's tokens and targets (a fixed nonlinear map of the tokens)."""
    g = torch.Generator().manual_seed(1000 * (a.seed + 1) + pe)
    x = torch.randn(a.tokens, a.hidden, generator=g)
    mix = torch.randn(a.hidden, a.hidden, generator=torch.Generator().manual_seed(a.seed))
    return x, torch.sin(x @ mix)


def train_distributed(a, me, n):
    E = a.experts_per_pe * n
    layer = Layer(a, E, me * a.experts_per_pe, a.experts_per_pe)
    opt = torch.optim.Adam(layer.parameters(), lr=a.lr)
    a2a = gshmem.moe.AllToAll(a.tokens, E, a.top_k, a.hidden, torch.float32, torch.float32)
    x, target = data(a, me)
    scale = 1.0 / (n * a.tokens * a.hidden)  # the mean over every PE's tokens
    losses = []
    for _ in range(a.steps):
        opt.zero_grad()
        experts, weights = layer.route(x)
        rows, counts = a2a.dispatch(x, experts)
        y = a2a.combine(layer.experts(rows), weights)
        loss = ((y - target) ** 2).sum() * scale
        loss.backward()
        for p in layer.router.parameters():  # data-parallel replicas: sum their gradients
            gshmem.all_reduce(p.grad)
        opt.step()
        losses.append(gshmem.all_reduce(loss.detach().clone()).item())
    a2a.destroy()
    return losses


def train_one_process(a, n):
    E = a.experts_per_pe * n
    layer = Layer(a, E, 0, E)
    opt = torch.optim.Adam(layer.parameters(), lr=a.lr)
    batches = [data(a, pe) for pe in range(n)]
    x = torch.cat([b[0] for b in batches])
    target = torch.cat([b[1] for b in batches])
    losses = []
    for _ in range(a.steps):
        opt.zero_grad()
        experts, weights = layer.route(x)
        y = torch.zeros_like(x)
        for k in range(a.top_k):  # slot order, as combine sums
            out = layer.experts(x[:, None, :], experts[:, k])[:, 0]
            y = y + weights[:, k:k + 1] * out
        loss = ((y - target) ** 2).sum() / (n * a.tokens * a.hidden)
        loss.backward()
        opt.step()
        losses.append(loss.item())
    return losses


def main():
    a = parse()
    torch.set_num_threads(1)
    gshmem.init(device="cpu")
    me, n = gshmem.my_pe(), gshmem.n_pes()
    losses = train_distributed(a, me, n)
    ok = True
    if me == 0:
        ref = train_one_process(a, n)
        print(f"MoE layer: {n} PEs x {a.experts_per_pe} experts, top-{a.top_k}, "
              f"{a.tokens} tokens per PE, hidden {a.hidden}, ffn {a.ffn}, Adam lr {a.lr}")
        print(f"{'step':>4}  {'loss (gshmem, %d PEs)' % n:>22}  {'loss (1 process)':>18}  "
              f"{'rel. diff':>9}")
        worst = 0.0
        for step, (got, want) in enumerate(zip(losses, ref)):
            rel = abs(got - want) / max(abs(want), 1e-30)
            worst = max(worst, rel)
            print(f"{step:>4}  {got:>22.8f}  {want:>18.8f}  {rel:>9.2e}")
        ok = worst <= 1e-5 and losses[-1] < losses[0]
        if ok:
            print(f"losses match (max relative difference {worst:.2e} <= 1e-5) and fall "
                  f"({losses[0]:.5f} -> {losses[-1]:.5f})")
        else:
            print(f"MISMATCH or no progress: max relative difference {worst:.2e}, losses "
                  f"{losses[0]:.5f} -> {losses[-1]:.5f}")
    flag = torch.tensor([0 if ok else 1], dtype=torch.int32)
    gshmem.broadcast(flag, 0)
    gshmem.finalize()
    sys.exit(int(flag.item()))


if __name__ == "__main__":
    main()
