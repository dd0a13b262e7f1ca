"""MoE dispatch and combine on torch tensors (gshmem_moe_* of gshmem/moe.h).

    a2a = gshmem.moe.AllToAll(max_tokens=64, num_experts=8, experts_per_token=2, hidden=256,
                              dispatch_dtype=torch.float32, combine_dtype=torch.float32)
    expert_x, counts = a2a.dispatch(x, indices)        # [local experts, capacity, hidden]
    expert_y = run_experts(expert_x, counts)           # rows past counts[e] are ignored
    y = a2a.combine(expert_y, weights)                 # [tokens, hidden]: sum_k w * y(t, k)

Member r of the team owns experts r*L .. r*L+L-1 (L = num_experts / team size). Row j of local
expert e is ordered by sending member, then token, then top-k slot.

Autograd: when x, expert_y or weights require grad, dispatch and combine are autograd functions
whose backward runs the matching exchanges (on a second handle of the same shape plus 2 x top-k
values per row, made at the first backward): the gradient of dispatch is a combine of the
expert-side gradients with weight 1, the gradient of combine is a dispatch of the output's
gradient carrying each token's weights and expert ids, so that every expert row gets its weight
and the weights' gradients (one dot product per row) come back with one more combine. The
backward exchanges run in fp32. float64 tensors travel as fp32.

Under torch.no_grad(), and for byte payloads, dispatch returns views of the handle's receive
buffers (valid until the next combine), as the C API does; in grad mode it returns copies.
"""
import torch
import torch.utils.dlpack

import gshmem
from gshmem import _C, CapacityError

__all__ = ["AllToAll", "CapacityError"]

_PAYLOAD = {torch.float32: 0, torch.bfloat16: 1, torch.float16: 2, torch.uint8: 3, torch.int8: 3}
for _name in ("float8_e4m3fn", "float8_e5m2"):
    if hasattr(torch, _name):
        _PAYLOAD[getattr(torch, _name)] = 3
_COMBINE = {torch.float32: 0, torch.bfloat16: 1, torch.float16: 2}
_SCALE_BLOCK_AUTO = -1


def _view(ptr, shape, dtype, dev):
    count = 1
    for s in shape:
        count *= s
    nbytes = count * torch.empty((), dtype=dtype).element_size()
    cap = _C.view_bytes(ptr, nbytes, 2 if dev.type == "cuda" else 1, dev.index or 0)
    return torch.utils.dlpack.from_dlpack(cap).view(dtype).view(shape)


class AllToAll:
    """The MoE all-to-all over `team` (collective over the world to create: every PE passes the
    same sizes). capacity_factor 0 sizes the receive buffers for the worst case; > 0 for that
    factor of the average load, and a dispatch that would not fit raises gshmem.CapacityError
    on every member (nothing sent; the object stays usable; `last_overflow()` says by how much).
    scale_block: values per fp32 scale sent with each token (None: 128 for byte payloads, none
    otherwise; 0: none)."""

    def __init__(self, max_tokens, num_experts, experts_per_token, hidden,
                 dispatch_dtype=torch.bfloat16, combine_dtype=torch.bfloat16,
                 capacity_factor=0.0, team=None, scale_block=None):
        call = "gshmem.moe.AllToAll"
        gshmem._require_init(call)
        team = gshmem.TEAM_WORLD if team is None else team
        handle = gshmem._team(team, call)
        for name, v in (("max_tokens", max_tokens), ("num_experts", num_experts),
                        ("experts_per_token", experts_per_token), ("hidden", hidden)):
            gshmem._int(v, call, name)
        if dispatch_dtype not in _PAYLOAD:
            raise TypeError(f"{call}: dispatch_dtype={dispatch_dtype} must be one of "
                            f"{list(_PAYLOAD)}")
        if combine_dtype not in _COMBINE:
            raise TypeError(f"{call}: combine_dtype={combine_dtype} must be one of "
                            f"{list(_COMBINE)}")
        if not isinstance(capacity_factor, (int, float)) or capacity_factor < 0:
            raise ValueError(f"{call}: capacity_factor={capacity_factor!r} must be >= 0")
        sb = _SCALE_BLOCK_AUTO if scale_block is None else gshmem._int(scale_block, call,
                                                                         "scale_block")
        self.max_tokens, self.num_experts = max_tokens, num_experts
        self.experts_per_token, self.hidden = experts_per_token, hidden
        self.dispatch_dtype, self.combine_dtype = dispatch_dtype, combine_dtype
        self.capacity_factor, self.team, self._scale_block = float(capacity_factor), team, sb
        self._h = _C.moe_create(max_tokens, num_experts, experts_per_token, hidden,
                                _PAYLOAD[dispatch_dtype], _COMBINE[combine_dtype], sb, handle,
                                float(capacity_factor))
        info = _C.moe_info(self._h)
        self.num_local_experts = info["num_local_experts"]
        self.expert_capacity = info["expert_capacity"]
        self.info = info
        self._next = "dispatch_send"  # the call the handle expects next
        self._grad = None      # the backward's handle, made at the first backward
        self._rows = None      # rows of x of the last dispatch_send
        self._last_indices = self._last_num_tokens = None  # and its routing, for backward
        self._device = gshmem.device()

    # ---- life ----
    def destroy(self):
        """Collective over the world: frees the buffers (of the backward's handle too)."""
        for h in (self._h, self._grad._h if self._grad else 0):
            if h:
                _C.moe_destroy(h)
        self._h, self._grad = 0, None

    def last_overflow(self):
        """The overflow behind the last CapacityError: kind ('expert', 'landing' or 'none'),
        expert, dest, source, count, capacity, min_capacity_factor."""
        return _C.moe_last_overflow(self._live("last_overflow"))

    def _live(self, call):
        if not self._h:
            raise RuntimeError(f"gshmem.moe.AllToAll.{call}: the object was destroyed")
        return self._h

    _ORDER = ("dispatch_send", "dispatch_recv", "combine_send", "combine_recv")

    def _step(self, call):
        """Checks that `call` is the one the handle expects; returns the handle."""
        h = self._live(call)
        if call != self._next:
            raise RuntimeError(f"gshmem.moe.AllToAll.{call}: called out of order: the next call "
                               f"must be {self._next} (the order is dispatch_send, "
                               "dispatch_recv, combine_send, combine_recv)")
        return h

    def _done(self, call):
        self._next = self._ORDER[(self._ORDER.index(call) + 1) % 4]

    def _stream(self):
        return gshmem._current_stream()

    # ---- argument checks ----
    def _inputs(self, call, x, indices, num_tokens, scales):
        call = f"gshmem.moe.AllToAll.{call}"
        gshmem._tensor(x, "x", call)
        if x.dim() != 2 or x.shape[1] != self.hidden:
            raise ValueError(f"{call}: x must be [tokens, hidden={self.hidden}], not "
                             f"{list(x.shape)}")
        if x.shape[0] > self.max_tokens:
            raise ValueError(f"{call}: x has {x.shape[0]} tokens, above max_tokens="
                             f"{self.max_tokens}")
        if _PAYLOAD.get(x.dtype) != _PAYLOAD[self.dispatch_dtype]:
            raise TypeError(f"{call}: x is {x.dtype}, but the dispatch type is "
                            f"{self.dispatch_dtype}")
        if not isinstance(indices, torch.Tensor):
            raise TypeError(f"{call}: indices must be a torch.Tensor, not "
                            f"{type(indices).__name__}")
        if indices.dtype not in (torch.int32, torch.int64):
            raise TypeError(f"{call}: indices must be int32 or int64, not {indices.dtype}")
        if list(indices.shape) != [x.shape[0], self.experts_per_token]:
            raise ValueError(f"{call}: indices must be [tokens={x.shape[0]}, experts_per_token="
                             f"{self.experts_per_token}], not {list(indices.shape)}")
        if indices.device != x.device:
            raise ValueError(f"{call}: indices is on {indices.device}, x on {x.device}")
        indices = indices.to(torch.int32).contiguous()
        if num_tokens is None:
            num_tokens = x.shape[0]
        if isinstance(num_tokens, torch.Tensor):
            if num_tokens.dtype != torch.int32 or num_tokens.numel() != 1:
                raise TypeError(f"{call}: num_tokens must be an int or a 1-element int32 "
                                f"tensor, not {num_tokens.numel()} element(s) of "
                                f"{num_tokens.dtype}")
            gshmem._tensor(num_tokens, "num_tokens", call)
            nt = num_tokens
        else:
            gshmem._int(num_tokens, call, "num_tokens")
            if not 0 <= num_tokens <= x.shape[0]:
                raise ValueError(f"{call}: num_tokens={num_tokens} must be 0 .. x's "
                                 f"{x.shape[0]} rows")
            nt = torch.tensor([num_tokens], dtype=torch.int32, device=x.device)
        per_token = self.info_scales_per_token()
        if per_token:
            if scales is None:
                raise ValueError(f"{call}: scales is required: this AllToAll sends "
                                 f"{per_token} fp32 scales per token")
            gshmem._tensor(scales, "scales", call)
            if scales.dtype != torch.float32 or list(scales.shape) != [x.shape[0], per_token]:
                raise ValueError(f"{call}: scales must be float32 [tokens={x.shape[0]}, "
                                 f"{per_token}], not {scales.dtype} {list(scales.shape)}")
        elif scales is not None:
            raise ValueError(f"{call}: scales given, but this AllToAll sends none "
                             "(scale_block=0 or a non-byte dispatch type)")
        return indices, nt

    def info_scales_per_token(self):
        sb = self._scale_block
        if sb == _SCALE_BLOCK_AUTO:
            sb = 128 if _PAYLOAD[self.dispatch_dtype] == 3 else 0
        return 0 if sb == 0 else -(-self.hidden // sb)

    # ---- the split halves (no autograd) ----
    def dispatch_send(self, x, indices, num_tokens=None, scales=None):
        """Sends this PE's tokens to their experts. x: [tokens, hidden]; indices: [tokens, top-k]
        global expert ids (distinct within a token, -1 for an unused slot); num_tokens: the live
        token count (an int, or a 1-element int32 tensor that may live on the GPU), default all
        rows. The inputs may be reused on return."""
        h = self._step("dispatch_send")
        indices, nt = self._inputs("dispatch_send", x, indices, num_tokens, scales)
        try:
            _C.moe_dispatch_send(h, x.data_ptr(), scales.data_ptr() if scales is not None else 0,
                                 indices.data_ptr(), nt.data_ptr(), self._stream())
        except CapacityError:
            o = _C.moe_last_overflow(h)
            e = CapacityError(
                f"gshmem.moe.AllToAll.dispatch_send: {o['kind']} overflow: {o['count']} rows for "
                f"room for {o['capacity']} (expert {o['expert']}, receiving member {o['dest']}, "
                f"sending member {o['source']}); nothing was sent; an AllToAll with "
                f"capacity_factor >= {o['min_capacity_factor']:.4g} fits this call")
            e.overflow = o
            raise e from None
        self._rows = x.shape[0]
        self._last_indices, self._last_num_tokens = indices, num_tokens
        self._done("dispatch_send")

    def dispatch_recv(self):
        """Returns (expert_x [L, capacity, hidden], counts [L] int32), plus the scales
        [L, capacity, scales per token] when the tokens carry them: views of the handle's
        buffers, valid until the next combine."""
        try:
            b = _C.moe_dispatch_recv(self._step("dispatch_recv"), self._stream())
        except CapacityError:
            self._next = "dispatch_send"  # nothing was sent: the handle takes a new dispatch
            raise
        self._done("dispatch_recv")
        dev = self._device
        L, cap = b["num_local_experts"], b["expert_capacity"]
        x = _view(b["x"], (L, cap, self.hidden), self.dispatch_dtype, dev)
        counts = _view(b["counts"], (L,), torch.int32, dev)
        if b["scales"]:
            return x, counts, _view(b["scales"], (L, cap, b["scales_per_token"]), torch.float32,
                                    dev)
        return x, counts

    def combine_send(self, expert_y):
        """Sends the experts' outputs back. expert_y: [L, capacity, hidden] combine type (rows
        past counts[e] are not read). It may be reused on return."""
        call = "gshmem.moe.AllToAll.combine_send"
        h = self._step("combine_send")
        self._check_y(call, expert_y)
        _C.moe_combine_send(h, expert_y.data_ptr(), self._stream())
        self._done("combine_send")

    def combine_recv(self, weights):
        """Returns out [rows of the dispatched x, hidden]: out[t] = sum_k weights[t][k] *
        y(t, k), accumulated in fp32 (rows past num_tokens are zero)."""
        call = "gshmem.moe.AllToAll.combine_recv"
        h = self._step("combine_recv")
        w = self._check_weights(call, weights)
        out = torch.zeros((self._rows, self.hidden), dtype=self.combine_dtype,
                          device=self._device)
        _C.moe_combine_recv(h, out.data_ptr(), w.data_ptr(), self._stream())
        self._done("combine_recv")
        return out

    def _check_y(self, call, y):
        gshmem._tensor(y, "expert_y", call)
        shape = [self.num_local_experts, self.expert_capacity, self.hidden]
        if list(y.shape) != shape:
            raise ValueError(f"{call}: expert_y must be {shape}, not {list(y.shape)}")
        if y.dtype != self.combine_dtype:
            raise TypeError(f"{call}: expert_y is {y.dtype}, but the combine type is "
                            f"{self.combine_dtype}")

    def _check_weights(self, call, w):
        if not isinstance(w, torch.Tensor):
            raise TypeError(f"{call}: weights must be a torch.Tensor, not {type(w).__name__}")
        shape = [self._rows, self.experts_per_token]
        if list(w.shape) != shape:
            raise ValueError(f"{call}: weights must be {shape}, not {list(w.shape)}")
        if not w.is_floating_point():
            raise TypeError(f"{call}: weights must be floating point, not {w.dtype}")
        return gshmem._tensor(w.detach().to(torch.float32).contiguous(), "weights", call)

    # ---- the whole calls (autograd-aware) ----
    def dispatch(self, x, indices, num_tokens=None, scales=None):
        """dispatch_send then dispatch_recv. In grad mode: differentiable in x, and the expert
        batch is a copy whose rows past each expert's count are zero (so they add nothing to
        the experts' parameter gradients); under torch.no_grad(): views of the receive buffers,
        valid until the next combine."""
        if torch.is_grad_enabled() and x.requires_grad and scales is not None:
            raise ValueError("gshmem.moe.AllToAll.dispatch: payloads with scales have no "
                             "gradient; dispatch x.detach()")
        if torch.is_grad_enabled() and x.is_floating_point() and scales is None:
            xs = x.to(self.dispatch_dtype) if x.dtype == torch.float64 else x
            ex, counts = _Dispatch.apply(self, xs, indices, num_tokens)
            return (ex.to(x.dtype) if x.dtype == torch.float64 else ex), counts
        x = x.to(self.dispatch_dtype) if x.dtype == torch.float64 else x
        self.dispatch_send(x, indices, num_tokens, scales)
        return self.dispatch_recv()

    def combine(self, expert_y, weights):
        """combine_send then combine_recv. Differentiable in expert_y and weights."""
        if torch.is_grad_enabled() and (expert_y.requires_grad or weights.requires_grad):
            y = expert_y.to(self.combine_dtype) if expert_y.dtype == torch.float64 else expert_y
            out = _Combine.apply(self, y, weights)
            return out.to(torch.float64) if expert_y.dtype == torch.float64 else out
        y = expert_y.to(self.combine_dtype) if expert_y.dtype == torch.float64 else expert_y
        out = self._combine_plain(y, weights)
        return out.to(torch.float64) if expert_y.dtype == torch.float64 else out

    def _combine_plain(self, y, weights):
        self.combine_send(y.contiguous())
        return self.combine_recv(weights)

    # ---- backward ----
    def _grad_handle(self):
        if self._grad is None:
            K = self.experts_per_token
            self._grad = AllToAll(self.max_tokens, self.num_experts, K, self.hidden + 2 * K,
                                  torch.float32, torch.float32, self.capacity_factor, self.team,
                                  scale_block=0)
        return self._grad

    def _expert_ids(self):
        L = self.num_local_experts
        first = self.team.my_pe() * L
        return torch.arange(first, first + L, device=self._device, dtype=torch.float32)


class _Dispatch(torch.autograd.Function):
    @staticmethod
    def forward(ctx, a2a, x, indices, num_tokens):
        a2a.dispatch_send(x, indices, num_tokens)
        ex, counts = a2a.dispatch_recv()
        ctx.a2a = a2a
        ctx.rows, ctx.dtype = x.shape[0], x.dtype
        ctx.save_for_backward(indices.to(torch.int32).contiguous())
        ctx.num_tokens = num_tokens
        ctx.mark_non_differentiable(counts)
        # Rows past each expert's count hold stale data; zeros keep NaNs out of the experts'
        # parameter gradients.
        return _keep(ex, _valid_rows(counts, ex.shape[1])), counts.clone()

    @staticmethod
    def backward(ctx, grad_ex, _grad_counts):
        # grad x[t] = sum_k grad_ex(t, k): a combine with weight 1 on the same routing (after a
        # dispatch that sets the routing up again on the backward's handle).
        a2a, (indices,) = ctx.a2a, ctx.saved_tensors
        g = a2a._grad_handle()
        H, K = a2a.hidden, a2a.experts_per_token
        dev = a2a._device
        g.dispatch_send(torch.zeros((ctx.rows, H + 2 * K), device=dev), indices, ctx.num_tokens)
        _, counts = g.dispatch_recv()
        z = torch.zeros((g.num_local_experts, g.expert_capacity, H + 2 * K), device=dev)
        z[..., :H] = _keep(grad_ex.float(), _valid_rows(counts, g.expert_capacity))
        out = g._combine_plain(z, (indices >= 0).float())
        return None, out[:, :H].to(ctx.dtype), None, None


class _Combine(torch.autograd.Function):
    @staticmethod
    def forward(ctx, a2a, expert_y, weights):
        indices = a2a._last_indices
        out = a2a._combine_plain(expert_y, weights)
        ctx.a2a = a2a
        ctx.y_dtype, ctx.w_dtype = expert_y.dtype, weights.dtype
        ctx.num_tokens = a2a._last_num_tokens
        ctx.save_for_backward(expert_y, weights, indices)
        return out

    @staticmethod
    def backward(ctx, grad_out):
        # Expert rows need grad_y(t, k) = w[t][k] * g[t]; tokens need grad_w[t][k] =
        # <g[t], y(t, k)>. Dispatch [g | w | expert ids] so that each row finds its own weight
        # (the slot whose id is this expert), then return the dot products in that slot's
        # column with one combine.
        a2a = ctx.a2a
        y, w, indices = ctx.saved_tensors
        g = a2a._grad_handle()
        H, K = a2a.hidden, a2a.experts_per_token
        rows = grad_out.shape[0]
        payload = torch.cat([grad_out.float(), w.detach().float(), indices.float()], dim=1)
        g.dispatch_send(payload.contiguous(), indices, ctx.num_tokens)
        batch, counts = g.dispatch_recv()
        valid = _valid_rows(counts, g.expert_capacity)
        batch = _keep(batch, valid)
        G, wk, ids = batch[..., :H], batch[..., H:H + K], batch[..., H + K:]
        slot = (ids == a2a._expert_ids()[:, None, None]).float() * valid[..., None].float()
        w_row = (wk * slot).sum(-1)
        grad_y = (w_row[..., None] * G).to(ctx.y_dtype)
        dots = (G * _keep(y.float(), valid)).sum(-1)
        z = torch.zeros_like(batch)
        z[..., :K] = slot * dots[..., None]
        back = g._combine_plain(z, (indices >= 0).float())
        grad_w = back[:rows, :K] * (indices >= 0)
        return None, grad_y, grad_w.to(ctx.w_dtype)


def _valid_rows(counts, capacity):
    """[L, capacity] mask of the rows each local expert received."""
    return torch.arange(capacity, device=counts.device)[None, :] < counts[:, None].long()


def _keep(t, valid):
    """t ([L, capacity, ...]) with the rows past each expert's count set to 0: they hold whatever
    the buffer held (NaN included), which a multiplication by 0 would keep."""
    return torch.where(valid[..., None], t, torch.zeros((), dtype=t.dtype, device=t.device))
