"""gshmem for PyTorch: symmetric tensors, one-sided RMA, collectives and MoE dispatch/combine.

Every process is a PE. Start them with ``gshmemrun -n 4 python3 app.py``, ``mpirun -np 4 python3
app.py`` or ``torchrun --nproc-per-node 4 app.py``; then::

    import torch, gshmem
    gshmem.init()
    x = gshmem.zeros(1024)                      # a torch tensor on the symmetric heap
    gshmem.put(x, torch.ones(1024), pe=(gshmem.my_pe() + 1) % gshmem.n_pes())
    gshmem.barrier_all()
    gshmem.all_reduce(x)                        # any tensor, in place
    gshmem.free(x)

Tensors are torch tensors: CPU tensors with a host heap (CPU PEs), CUDA tensors with a GPU heap
(``gshmem.init(device="cuda")``), passed to the library without copies. Calls on CUDA tensors
are enqueued on ``torch.cuda.current_stream()``. A call with a bad argument raises (TypeError or
ValueError) naming the call and the argument, before anything is sent.
"""
import atexit
import os
import sys
import warnings

import torch
import torch.utils.dlpack

from . import _C
from ._C import CapacityError

__all__ = [
    "init", "finalize", "initialized", "my_pe", "n_pes", "device", "barrier_all", "sync_all",
    "Team", "TEAM_WORLD", "TEAM_SHARED", "TEAM_NODE", "TEAM_SAME_MYPE_NODE",
    "team_split_strided",
    "empty", "zeros", "free", "is_symmetric",
    "put", "put_nbi", "get", "get_nbi", "put_signal", "put_signal_nbi", "signal_op",
    "signal_wait_until", "atomic_add", "atomic_fetch_add", "quiet", "fence",
    "all_reduce", "reduce_scatter", "all_gather", "broadcast", "all_to_all",
    "CapacityError", "moe",
]

_HEAP_HOST, _HEAP_DEVICE = 1, 2
_allocations = {}  # data_ptr -> bytes of every live symmetric tensor's allocation
_finalize_registered = False


# ---- Argument checks -------------------------------------------------------------------------

def _require_init(call):
    if not _C.initialized():
        raise RuntimeError(f"{call}: gshmem is not initialised (call gshmem.init() first)")


def _tensor(t, name, call):
    if not isinstance(t, torch.Tensor):
        raise TypeError(f"{call}: {name} must be a torch.Tensor, not {type(t).__name__}")
    if not t.is_contiguous():
        raise ValueError(f"{call}: {name} must be contiguous (call .contiguous() on it first)")
    heap = device()
    if t.device.type != heap.type or (heap.type == "cuda" and t.device.index != heap.index):
        raise ValueError(f"{call}: {name} is on {t.device}, but this PE's symmetric heap is on "
                         f"{heap} (gshmem.init(device=...) picks the heap)")
    return t


def _symmetric(t, name, call):
    _tensor(t, name, call)
    if not is_symmetric(t):
        raise ValueError(f"{call}: {name} is not a symmetric tensor (make it with gshmem.empty or "
                         "gshmem.zeros; a view of one is fine)")
    return t


def _same(a, b, names, call):
    if a.dtype != b.dtype:
        raise TypeError(f"{call}: {names[0]} is {a.dtype} but {names[1]} is {b.dtype}")
    if a.numel() != b.numel():
        raise ValueError(f"{call}: {names[0]} has {a.numel()} elements but {names[1]} has "
                         f"{b.numel()}")


def _pe(pe, call, name="pe"):
    if isinstance(pe, bool) or not isinstance(pe, int):
        raise TypeError(f"{call}: {name} must be an int, not {type(pe).__name__}")
    if not 0 <= pe < n_pes():
        raise ValueError(f"{call}: {name}={pe} is out of range (0 .. {n_pes() - 1})")
    return pe


def _int(v, call, name):
    if isinstance(v, bool) or not isinstance(v, int):
        raise TypeError(f"{call}: {name} must be an int, not {type(v).__name__}")
    return v


def _on_gpu(t):
    return t.device.type == "cuda"


def _stream(t):
    return torch.cuda.current_stream(t.device).cuda_stream if _on_gpu(t) else 0


# ---- Set-up ----------------------------------------------------------------------------------

def init(device=None):
    """Starts this PE (collective). device: "cpu" (host heap), "cuda" (GPU heap), or None: the
    GSHMEM_HEAP variable when set, else "cuda" when torch sees a GPU, else "cpu". The bootstrap
    is found from the launcher: gshmemrun, PMIx (mpirun), torchrun's variables, or one PE alone.
    A second call does nothing. finalize() runs at interpreter exit if not called before."""
    global _finalize_registered
    if _C.initialized():
        return
    if device is None and "GSHMEM_HEAP" not in os.environ:
        device = "cuda" if torch.cuda.is_available() else "cpu"
    if device is not None:
        kind = str(torch.device(device).type)
        if kind not in ("cpu", "cuda"):
            raise ValueError(f"gshmem.init: device={device!r} must be 'cpu' or 'cuda'")
        os.environ["GSHMEM_HEAP"] = "host" if kind == "cpu" else "device"
        if kind == "cuda" and "LOCAL_RANK" in os.environ and torch.cuda.is_available():
            torch.cuda.set_device(int(os.environ["LOCAL_RANK"]) % torch.cuda.device_count())
    _C.init()
    if not _finalize_registered:
        atexit.register(_finalize_at_exit)
        _finalize_registered = True


def finalize():
    """Ends this PE (collective). Symmetric tensors still allocated are freed (with a warning
    saying how many); they must not be used afterwards."""
    if not _C.initialized():
        return
    if _allocations:
        total = sum(_allocations.values())
        warnings.warn(f"gshmem.finalize: freeing {len(_allocations)} symmetric tensor(s) still "
                      f"allocated ({total} bytes); free them with gshmem.free", RuntimeWarning,
                      stacklevel=2)
        for ptr in sorted(_allocations):
            _C.free(ptr)
        _allocations.clear()
    _C.finalize()


def _finalize_at_exit():
    # An exception that ends the interpreter on one PE must not leave the others waiting in a
    # collective finalize: end the job instead.
    if _C.initialized() and getattr(sys, "last_value", None) is not None:
        _C.global_exit(1)
    finalize()


def initialized():
    return _C.initialized()


def my_pe():
    _require_init("gshmem.my_pe")
    return _C.my_pe()


def n_pes():
    _require_init("gshmem.n_pes")
    return _C.n_pes()


def device():
    """The torch.device of this PE's symmetric heap."""
    _require_init("gshmem.device")
    if _C.heap_kind() == _HEAP_DEVICE:
        return torch.device("cuda", _C.cuda_device())
    return torch.device("cpu")


def _gpu_heap():
    return _C.heap_kind() == _HEAP_DEVICE


def _current_stream():
    return torch.cuda.current_stream(device()).cuda_stream if _gpu_heap() else 0


def barrier_all():
    """Waits for every PE, after completing this PE's puts (on the current stream for a GPU
    heap)."""
    _require_init("gshmem.barrier_all")
    if _gpu_heap():
        _C.barrier_all_on_stream(_current_stream())
    else:
        _C.barrier_all()


def sync_all():
    """Waits for every PE, without completing outstanding puts."""
    _require_init("gshmem.sync_all")
    _C.sync_all()


# ---- Teams -----------------------------------------------------------------------------------

class Team:
    """A team of PEs (a gshmem_team_t). TEAM_WORLD, TEAM_SHARED (PEs whose heaps this PE maps),
    TEAM_NODE (PEs on this node) and TEAM_SAME_MYPE_NODE (one PE per node: those with this PE's
    index on their node) always exist; team_split_strided makes more."""

    def __init__(self, handle, name=None):
        self.handle = int(handle)
        self.name = name

    def my_pe(self):
        return _C.team_my_pe(self.handle)

    def n_pes(self):
        return _C.team_n_pes(self.handle)

    def translate_pe(self, pe, dest_team):
        """This team's PE index `pe` as an index of dest_team (-1 if it is not a member)."""
        return _C.team_translate_pe(self.handle, pe, _team(dest_team, "team.translate_pe"))

    def split_strided(self, start, stride, size):
        return team_split_strided(self, start, stride, size)

    def sync(self):
        _C.team_sync(self.handle)

    def destroy(self):
        if self.handle > 3:  # the predefined teams live until finalize
            _C.team_destroy(self.handle)
        self.handle = -1

    def __eq__(self, other):
        return isinstance(other, Team) and other.handle == self.handle

    def __hash__(self):
        return hash(self.handle)

    def __repr__(self):
        return f"gshmem.Team({self.name or self.handle})"


TEAM_WORLD = Team(0, "TEAM_WORLD")
TEAM_SHARED = Team(1, "TEAM_SHARED")
TEAM_NODE = Team(2, "TEAM_NODE")
TEAM_SAME_MYPE_NODE = Team(3, "TEAM_SAME_MYPE_NODE")


def _team(team, call):
    if not isinstance(team, Team):
        raise TypeError(f"{call}: team must be a gshmem.Team, not {type(team).__name__}")
    if team.handle < 0:
        raise ValueError(f"{call}: team {team!r} was destroyed")
    return team.handle


def team_split_strided(parent, start, stride, size):
    """Collective over parent: the members start, start+stride, ... (size of them) form a new
    team. Returns the Team on its members and None on the other PEs."""
    call = "gshmem.team_split_strided"
    h = _team(parent, call)
    for name, v in (("start", start), ("stride", stride), ("size", size)):
        _int(v, call, name)
    handle = _C.team_split_strided(h, start, stride, size)
    return Team(handle) if handle >= 0 else None


# ---- Symmetric tensors -----------------------------------------------------------------------

def _shape(shape, call):
    if isinstance(shape, int):
        shape = (shape,)
    shape = tuple(shape)
    for s in shape:
        if isinstance(s, bool) or not isinstance(s, int) or s < 0:
            raise ValueError(f"{call}: shape={shape} must be non-negative ints")
    return shape


def empty(*shape, dtype=torch.float32):
    """Collective: a tensor of `shape` on the symmetric heap, the same object on every PE (every PE
    calls with the same shape and dtype). Uninitialised. Free it with gshmem.free."""
    call = "gshmem.empty"
    _require_init(call)
    if len(shape) == 1 and not isinstance(shape[0], int):
        shape = shape[0]
    shape = _shape(shape, call)
    if not isinstance(dtype, torch.dtype):
        raise TypeError(f"{call}: dtype must be a torch.dtype, not {type(dtype).__name__}")
    elem = torch.empty((), dtype=dtype).element_size()
    count = 1
    for s in shape:
        count *= s
    nbytes = count * elem
    ptr = _C.malloc(max(nbytes, 1), 64)
    _allocations[ptr] = max(nbytes, 1)
    dev = device()
    raw = torch.utils.dlpack.from_dlpack(
        _C.view_bytes(ptr, nbytes, 2 if dev.type == "cuda" else 1, dev.index or 0))
    return raw.view(dtype).view(shape)


def zeros(*shape, dtype=torch.float32):
    """Collective: as empty, filled with zeros on every PE before any PE returns (so peers may
    write into it at once)."""
    t = empty(*shape, dtype=dtype)
    t.zero_()
    if _gpu_heap():
        torch.cuda.current_stream(t.device).synchronize()
    _C.barrier_all()
    return t


def is_symmetric(t):
    """Whether the tensor's elements all lie in one symmetric allocation of this PE."""
    if not isinstance(t, torch.Tensor) or not _allocations:
        return False
    start = t.data_ptr()
    end = start + t.numel() * t.element_size()
    for base, nbytes in _allocations.items():
        if base <= start and end <= base + nbytes:
            return True
    return False


def free(t):
    """Collective: frees a tensor that gshmem.empty or gshmem.zeros returned. The tensor becomes
    empty; other views of it must not be used afterwards."""
    call = "gshmem.free"
    _require_init(call)
    if not isinstance(t, torch.Tensor):
        raise TypeError(f"{call}: t must be a torch.Tensor, not {type(t).__name__}")
    ptr = t.data_ptr()
    if ptr not in _allocations:
        raise ValueError(f"{call}: t is not a tensor that gshmem.empty or gshmem.zeros returned "
                         "(or it was freed already)")
    if _gpu_heap():
        torch.cuda.current_stream(t.device).synchronize()
    del _allocations[ptr]
    t.set_()
    _C.free(ptr)


# ---- RMA -------------------------------------------------------------------------------------

def _rma(call, dst, src, pe, remote):
    """Checks a put (remote='dst') or get (remote='src'); returns the byte count."""
    _require_init(call)
    if remote == "dst":
        _symmetric(dst, "dst", call)
        _tensor(src, "src", call)
    else:
        _tensor(dst, "dst", call)
        _symmetric(src, "src", call)
    _same(dst, src, ("dst", "src"), call)
    _pe(pe, call)
    return src.numel() * src.element_size()


def _copy(call, dst, src, pe, remote, nbi):
    """A put (remote='dst') or get (remote='src'); on the current stream for CUDA tensors."""
    n = _rma(call, dst, src, pe, remote)
    if _on_gpu(dst):
        on_stream = _C.putmem_on_stream if remote == "dst" else _C.getmem_on_stream
        on_stream(dst.data_ptr(), src.data_ptr(), n, pe, _stream(dst))
    else:
        (_C.putmem if remote == "dst" else _C.getmem)(dst.data_ptr(), src.data_ptr(), n, pe, nbi)


def put(dst, src, pe):
    """Copies src (this PE) into dst (symmetric) on PE pe; src may be reused on return."""
    _copy("gshmem.put", dst, src, pe, "dst", False)


def put_nbi(dst, src, pe):
    """As put, returning at once: src may be reused after quiet()."""
    _copy("gshmem.put_nbi", dst, src, pe, "dst", True)


def get(dst, src, pe):
    """Copies src (symmetric) of PE pe into dst (this PE)."""
    _copy("gshmem.get", dst, src, pe, "src", False)


def get_nbi(dst, src, pe):
    """As get, returning at once: dst holds the data after quiet()."""
    _copy("gshmem.get_nbi", dst, src, pe, "src", True)


_SIGNAL_OPS = {"set": 0, "add": 1}
_CMPS = {"eq": 0, "ne": 1, "gt": 2, "le": 3, "lt": 4, "ge": 5,
         "==": 0, "!=": 1, ">": 2, "<=": 3, "<": 4, ">=": 5}


def _signal(sig, call):
    _symmetric(sig, "sig", call)
    if sig.dtype not in (torch.int64, getattr(torch, "uint64", torch.int64)) or sig.numel() != 1:
        raise TypeError(f"{call}: sig must be one 64-bit integer element (a 1-element int64 "
                        f"tensor), not {sig.numel()} element(s) of {sig.dtype}")
    return sig.data_ptr()


def _u64(value, call, name="value"):
    _int(value, call, name)
    if not -(1 << 63) <= value < (1 << 64):
        raise ValueError(f"{call}: {name}={value} does not fit in 64 bits")
    return value & ((1 << 64) - 1)


def _choice(table, v, call, name):
    if v not in table:
        raise ValueError(f"{call}: {name}={v!r} must be one of {sorted(set(table))}")
    return table[v]


def _put_signal(call, dst, src, sig, value, pe, op, nbi):
    n = _rma(call, dst, src, pe, "dst")
    s = _signal(sig, call)
    v = _u64(value, call)
    o = _choice(_SIGNAL_OPS, op, call, "op")
    if _on_gpu(dst):
        _C.putmem_signal_on_stream(dst.data_ptr(), src.data_ptr(), n, s, v, o, pe, _stream(dst))
    else:
        _C.putmem_signal(dst.data_ptr(), src.data_ptr(), n, s, v, o, pe, nbi)


def put_signal(dst, src, sig, value, pe, op="set"):
    """put, then updates sig on PE pe (op "set" or "add") once the data is there."""
    _put_signal("gshmem.put_signal", dst, src, sig, value, pe, op, False)


def put_signal_nbi(dst, src, sig, value, pe, op="set"):
    _put_signal("gshmem.put_signal_nbi", dst, src, sig, value, pe, op, True)


def signal_op(sig, value, pe, op="set"):
    """Updates the signal sig on PE pe."""
    call = "gshmem.signal_op"
    _require_init(call)
    s = _signal(sig, call)
    _pe(pe, call)
    _C.signal_op(s, _u64(value, call), _choice(_SIGNAL_OPS, op, call, "op"), pe)


def signal_wait_until(sig, cmp, value):
    """Waits until this PE's sig compares to value (cmp: "eq", "ne", "gt", "ge", "lt", "le" or
    the operator itself). Returns the signal's value (on a GPU heap: enqueues the wait on the
    current stream and returns None)."""
    call = "gshmem.signal_wait_until"
    _require_init(call)
    s = _signal(sig, call)
    c = _choice(_CMPS, cmp, call, "cmp")
    v = _u64(value, call)
    if _on_gpu(sig):
        _C.signal_wait_until_on_stream(s, c, v, _stream(sig))
        return None
    return _C.signal_wait_until(s, c, v)


def _atomic(call, t, value, pe, fetch):
    _require_init(call)
    _symmetric(t, "dst", call)
    if t.dtype not in (torch.int32, torch.int64) or t.numel() != 1:
        raise TypeError(f"{call}: dst must be one int32 or int64 element (index the tensor: "
                        f"t[i:i+1]), not {t.numel()} element(s) of {t.dtype}")
    _pe(pe, call)
    _int(value, call, "value")
    if _on_gpu(t):
        torch.cuda.current_stream(t.device).synchronize()
    return _C.atomic_fetch_add(t.data_ptr(), value, pe, 8 * t.element_size(), fetch)


def atomic_add(dst, value, pe):
    """Atomically adds value to the one-element int32/int64 symmetric tensor dst on PE pe."""
    _atomic("gshmem.atomic_add", dst, value, pe, False)


def atomic_fetch_add(dst, value, pe):
    """As atomic_add, returning the value before the addition."""
    return _atomic("gshmem.atomic_fetch_add", dst, value, pe, True)


def quiet():
    """Completes every put, get and atomic this PE issued (on a GPU heap: on the current stream)."""
    _require_init("gshmem.quiet")
    if _gpu_heap():
        _C.quiet_on_stream(_current_stream())
    else:
        _C.quiet()


def fence():
    """Orders this PE's puts to each PE: those before land before those after."""
    _require_init("gshmem.fence")
    _C.fence()


# ---- Collectives on any tensor ---------------------------------------------------------------

_DTYPES = {
    torch.float32: 0, torch.float64: 1, torch.float16: 2, torch.bfloat16: 3,
    torch.int8: 4, torch.uint8: 5, torch.int16: 6, torch.int32: 8, torch.int64: 10,
    torch.complex64: 13, torch.complex128: 14,
}
_OPS = {"sum": 0, "prod": 1, "min": 2, "max": 3, "avg": 4, "band": 5, "bor": 6, "bxor": 7,
        "product": 1}


def _dtype(t, call, name):
    if t.dtype not in _DTYPES:
        raise TypeError(f"{call}: {name} has dtype {t.dtype}, which gshmem's collectives do not "
                        f"support (supported: {', '.join(str(d) for d in _DTYPES)})")
    return _DTYPES[t.dtype]


def _op(op, call):
    """op: a name ("sum", ...) or torch.distributed.ReduceOp.SUM and the like."""
    if isinstance(op, str):
        key = op.lower()
    else:
        key = getattr(getattr(op, "op", op), "name", str(op)).lower()
    return _choice(_OPS, key, call, "op")


def _collective(call, team, tensors):
    _require_init(call)
    h = _team(team, call)
    for name, t in tensors:
        _tensor(t, name, call)
    first = tensors[0][1]
    for name, t in tensors[1:]:
        if t.dtype != first.dtype:
            raise TypeError(f"{call}: {name} is {t.dtype} but {tensors[0][0]} is {first.dtype}")
    return h, _dtype(first, call, tensors[0][0]), _stream(first), _C.team_n_pes(h)


def all_reduce(t, op="sum", team=TEAM_WORLD):
    """In place: t becomes the reduction (op) of every member's t."""
    call = "gshmem.all_reduce"
    h, dt, s, _ = _collective(call, team, [("t", t)])
    _C.allreduce(h, t.data_ptr(), t.data_ptr(), t.numel(), dt, _op(op, call), s)
    return t


def all_gather(out, inp, team=TEAM_WORLD):
    """out (n_pes x inp.numel() elements) gets every member's inp, in team order."""
    call = "gshmem.all_gather"
    h, dt, s, n = _collective(call, team, [("out", out), ("inp", inp)])
    if out.numel() != n * inp.numel():
        raise ValueError(f"{call}: out has {out.numel()} elements; it needs team size ({n}) x "
                         f"inp's {inp.numel()}")
    _C.allgather(h, out.data_ptr(), inp.data_ptr(), inp.numel(), dt, s)
    return out


def reduce_scatter(out, inp, op="sum", team=TEAM_WORLD):
    """Member i's out gets the reduction of block i (out.numel() elements) of every member's inp."""
    call = "gshmem.reduce_scatter"
    h, dt, s, n = _collective(call, team, [("out", out), ("inp", inp)])
    if inp.numel() != n * out.numel():
        raise ValueError(f"{call}: inp has {inp.numel()} elements; it needs team size ({n}) x "
                         f"out's {out.numel()}")
    _C.reducescatter(h, out.data_ptr(), inp.data_ptr(), out.numel(), dt, _op(op, call), s)
    return out


def broadcast(t, root, team=TEAM_WORLD):
    """In place: every member's t becomes root's (root is an index in the team)."""
    call = "gshmem.broadcast"
    h, dt, s, n = _collective(call, team, [("t", t)])
    _int(root, call, "root")
    if not 0 <= root < n:
        raise ValueError(f"{call}: root={root} is out of range (0 .. {n - 1})")
    _C.broadcast(h, t.data_ptr(), t.data_ptr(), t.numel(), dt, root, s)
    return t


def all_to_all(out, inp, team=TEAM_WORLD):
    """Block j of member i's inp lands as block i of member j's out (blocks of numel / n_pes)."""
    call = "gshmem.all_to_all"
    h, dt, s, n = _collective(call, team, [("out", out), ("inp", inp)])
    if out.numel() != inp.numel() or inp.numel() % n:
        raise ValueError(f"{call}: out and inp need the same number of elements, a multiple of "
                         f"the team size ({n}); got {out.numel()} and {inp.numel()}")
    _C.alltoall(h, out.data_ptr(), inp.data_ptr(), inp.numel() // n, dt, s)
    return out


from . import moe  # noqa: E402  (moe uses the names above)
