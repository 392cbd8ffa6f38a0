"""The communicator and its operators, on NumPy arrays and CPU tensors.

    comm = tilecomm.Comm()                      # every PE; Comm(team=t) for a team's
    y = comm.all_reduce(x)                      # a new array; out= writes into one
    r = comm.all_gather(x, async_op=True)       # starts it on the communicator's worker thread
    y = r.wait()
    y = comm.all_gather_matmul(x1, x2)          # seed 002's fused operators

Every operator is collective over the communicator's ranks, in the same
order on every rank (docs in <tilecomm/ops.hpp>). Inputs and outputs are any
C-contiguous arrays or CPU tensors of one type: int8-int64, uint8-uint64,
float16, bfloat16 (tensors), float32, float64. A repeated call of the same
signature pays its planning once. Communicators are destroyed collectively:
destroy(), the end of a ``with`` block, or finalize(); never by the garbage
collector (which may run at another point on every rank).
"""
import enum

import numpy as _np

from . import _tilecomm


class DataType(enum.IntEnum):
    """tilecomm::ops::DataType."""
    INT8 = 0
    INT16 = 1
    INT32 = 2
    INT64 = 3
    FLOAT16 = 4
    BFLOAT16 = 5
    FLOAT32 = 6
    FLOAT64 = 7
    UINT8 = 8
    UINT16 = 9
    UINT32 = 10
    UINT64 = 11


class ReduceOp(enum.IntEnum):
    """tilecomm::ops::ReduceOp; the operators also take the lower-case names ("sum", ...)."""
    SUM = 0
    PROD = 1
    MAX = 2
    MIN = 3
    AVG = 4


_MOVES = {"auto": 0, "shards": 1, "weights": 2, "products": 3, "operands": 4}


_OP_BY_NAME = {op.name.lower(): int(op) for op in ReduceOp} | {int(op): int(op) for op in ReduceOp}


def _op(op):
    try:
        return _OP_BY_NAME[op.lower() if isinstance(op, str) else op]
    except (KeyError, TypeError):
        raise ValueError(f"argument 'op' ({op!r}) is not one of {', '.join(_OP_BY_NAME)}") from None


def _torch():
    import sys
    return sys.modules.get("torch")


def as_array(x, arg):
    """(a NumPy view of x, the DataType said for it or -1): x is an array or a contiguous CPU tensor."""
    if type(x) is _np.ndarray or isinstance(x, _np.ndarray):
        return x, -1
    torch = _torch()
    if torch is not None and isinstance(x, torch.Tensor):
        if x.device.type != "cpu":
            raise TypeError(f"argument '{arg}' is a tensor on {x.device}; tilecomm works on CPU tensors")
        if not x.is_contiguous():
            raise ValueError(f"argument '{arg}' is not contiguous; pass x.contiguous()")
        x = x.detach()
        if x.dtype == torch.bfloat16:
            return x.view(torch.int16).numpy(), DataType.BFLOAT16
        return x.numpy(), -1
    raise TypeError(f"argument '{arg}' must be a numpy.ndarray or a CPU torch.Tensor, not {type(x).__name__}")


def _like(x, shape):
    """A new array (or tensor, for a tensor) of x's type."""
    if isinstance(x, _np.ndarray):
        return _np.empty(shape, dtype=x.dtype)
    return _torch().empty(shape, dtype=x.dtype)


class Request:
    """A call started with async_op=True: wait() returns its result."""

    def __init__(self, request, result):
        self._request, self._result = request, result

    def test(self):
        return self._request.test()

    def wait(self):
        self._request.wait()
        return self._result


class Comm:
    def __init__(self, team=None, window_bytes=0, flag_bytes=0):
        """Collective over the team's PEs (TEAM_WORLD by default); window sizes as CommOptions (0: default)."""
        self._c = _tilecomm.Comm(team, window_bytes, flag_bytes)

    rank = property(lambda self: self._c.rank)
    size = property(lambda self: self._c.size)
    local_rank = property(lambda self: self._c.local_rank)
    local_size = property(lambda self: self._c.local_size)

    def destroy(self):
        """Collective: releases the windows; later calls raise."""
        self._c.destroy()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.destroy()

    def _run(self, name, result, async_op, *args, said=-1):
        r = getattr(self._c, name)(*args, said, async_op)  # positional: pybind11's keywords cost more
        return Request(r, result) if async_op else result

    def _out(self, x, out, shape):
        return _like(x, shape) if out is None else out

    def all_gather(self, x, out=None, async_op=False):
        """out[r] = x of rank r; out has shape (size, *x.shape)."""
        a, said = as_array(x, "x")
        out = self._out(x, out, (self.size,) + tuple(x.shape))
        return self._run("all_gather", out, async_op, a, as_array(out, "out")[0], said=said)

    def reduce_scatter(self, x, op="sum", out=None, async_op=False):
        """out = rows rank*n/size.. of op over the ranks' x (x.shape[0] a multiple of size)."""
        a, said = as_array(x, "x")
        if out is None:
            if len(x.shape) == 0 or x.shape[0] % self.size:
                raise ValueError(f"reduce_scatter: x's first dimension ({tuple(x.shape)}) is not a multiple of the "
                                 f"{self.size} ranks")
            out = _like(x, (x.shape[0] // self.size,) + tuple(x.shape[1:]))
        return self._run("reduce_scatter", out, async_op, a, as_array(out, "out")[0], _op(op), said=said)

    def all_reduce(self, x, op="sum", out=None, async_op=False):
        """out = op over the ranks' x (out=x: in place)."""
        a, said = as_array(x, "x")
        out = self._out(x, out, x.shape)
        return self._run("all_reduce", out, async_op, a, as_array(out, "out")[0], _op(op), said=said)

    def reduce(self, x, root=0, op="sum", out=None, async_op=False):
        """op over the ranks' x, on rank root (returned there; None elsewhere)."""
        a, said = as_array(x, "x")
        if out is None and self.rank == root:
            out = _like(x, x.shape)
        o = None if out is None else as_array(out, "out")[0]
        return self._run("reduce", out, async_op, a, o, _op(op), root, said=said)

    def broadcast(self, x, root=0, out=None, async_op=False):
        """root's x on every rank: into x itself, or into out."""
        out = x if out is None else out
        a, said = as_array(out, "out")
        return self._run("broadcast", out, async_op, as_array(x, "x")[0], a, root, said=said)

    def all_to_all(self, x, out=None, async_op=False):
        """Block r of x (x.shape[0] / size rows) goes to rank r; out's block r came from rank r."""
        a, said = as_array(x, "x")
        out = self._out(x, out, x.shape)
        return self._run("all_to_all", out, async_op, a, as_array(out, "out")[0], said=said)

    def all_to_all_v(self, x, counts, out=None, async_op=False):
        """counts[s][d] elements from rank s to rank d (a size x size matrix, alike on every rank)."""
        a, said = as_array(x, "x")
        counts = _np.ascontiguousarray(counts, dtype=_np.uint64)
        if out is None:
            out = _like(x, (int(counts.reshape(self.size, self.size)[:, self.rank].sum()),))
        return self._run("all_to_all_v", out, async_op, a, as_array(out, "out")[0], counts, said=said)

    def all_gather_add(self, a, b, out=None, async_op=False):
        """out = all_gather(a) + b, b of shape (size, *a.shape)."""
        x, said = as_array(a, "a")
        out = self._out(b, out, b.shape)
        return self._run("all_gather_add", out, async_op, x, as_array(b, "b")[0], as_array(out, "out")[0],
                         said=said)

    def _matmul(self, which, x1, x2, bias, out, gather_out, rows, tiles, moves, async_op):
        as_array(x1, "x1"), as_array(x2, "x2")
        if len(x1.shape) != 2 or len(x2.shape) != 2 or x1.shape[1] != x2.shape[0]:
            raise ValueError(f"{which}: x1 {tuple(x1.shape)} and x2 {tuple(x2.shape)} are not m x k and k x n")
        (m, k), n = x1.shape, x2.shape[1]
        out = self._out(x1, out, (rows(m), n))
        a, said = as_array(x1, "x1")
        arrays = [as_array(v, name)[0] if v is not None else None
                  for v, name in ((x2, "x2"), (bias, "bias"), (out, "out"), (gather_out, "gather_out"))]
        return self._run("matmul_op", out, async_op, which, a, *arrays, m, k, n, tiles, _MOVES[moves], said=said)

    def all_gather_matmul(self, x1, x2, bias=None, out=None, gather_out=None, tiles=0, moves="auto",
                          async_op=False):
        """out = all_gather(x1) @ x2 + bias: x1 m x k, x2 k x n, out size*m x n; gather_out gets all_gather(x1)."""
        return self._matmul("all_gather_matmul", x1, x2, bias, out, gather_out, lambda m: self.size * m, tiles,
                            moves, async_op)

    def matmul_reduce_scatter(self, x1, x2, bias=None, out=None, tiles=0, moves="auto", async_op=False):
        """out = rows rank*m/size.. of the sum over ranks of x1 @ x2, + bias."""
        return self._matmul("matmul_reduce_scatter", x1, x2, bias, out, None, lambda m: m // self.size, tiles,
                            moves, async_op)

    def matmul_all_reduce(self, x1, x2, bias=None, out=None, tiles=0, moves="auto", async_op=False):
        """out = the sum over ranks of x1 @ x2, + bias."""
        return self._matmul("matmul_all_reduce", x1, x2, bias, out, None, lambda m: m, tiles, moves, async_op)
