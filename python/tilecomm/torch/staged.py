"""Collectives of the torch backend for ranks on several hosts: OpenSHMEM team collectives through staging.

tilecomm's communicator operators need their ranks on one host (their windows are load/store memory), so a
process group whose ranks span hosts runs its calls on the OpenSHMEM collectives of its team instead, which
reach other hosts over UCX. Data go through two symmetric staging arrays (made once, collectively, by the
default group, and shared by the subgroups), in rounds of at most their size. The methods take and return
what tilecomm._tilecomm.Comm's do (NumPy views; `said` names bfloat16, whose bits arrive as int16).
float16 and bfloat16 reduce in float32 and round once, as the operators do; AVG is the float sum divided by
the ranks. reduce_scatter and reduce are an all_reduce of the whole input, of which each rank keeps its part.
"""
import numpy as np

from .. import shmem
from ..comm import DataType, ReduceOp

_OPS = {ReduceOp.SUM: "sum", ReduceOp.PROD: "prod", ReduceOp.MAX: "max", ReduceOp.MIN: "min", ReduceOp.AVG: "sum"}


def _to_f32(a, said):
    if said == DataType.BFLOAT16:
        return (a.view(np.uint16).astype(np.uint32) << 16).view(np.float32)
    return a.astype(np.float32)


def _from_f32(f, a, said):
    if said == DataType.BFLOAT16:  # round to nearest even
        bits = f.view(np.uint32)
        a.view(np.uint16)[...] = ((bits + 0x7FFF + ((bits >> 16) & 1)) >> 16).astype(np.uint16)
    else:
        a[...] = f


class Staging:
    """The two symmetric byte arrays the staged collectives go through (collective to make)."""

    def __init__(self, nbytes=4 << 20):
        self.src = shmem.empty(nbytes, np.uint8)
        self.dst = shmem.empty(nbytes, np.uint8)
        self.nbytes = nbytes


class StagedComm:
    def __init__(self, team, staging):
        self.team, self.s = team, staging
        self.rank, self.size = team.my_pe(), team.n_pes()

    def _views(self, dtype, count_src, count_dst):
        return self.s.src[:count_src * dtype.itemsize].view(dtype), self.s.dst[:count_dst * dtype.itemsize].view(dtype)

    def all_reduce(self, x, out, op, said=-1):
        op = ReduceOp(op)
        half = x.dtype == np.float16 or said == DataType.BFLOAT16
        xs = _to_f32(x.reshape(-1), said) if half else x.reshape(-1)
        res = np.empty_like(xs) if half or op == ReduceOp.AVG else out.reshape(-1)
        step = self.s.nbytes // xs.dtype.itemsize
        for at in range(0, xs.size, step):
            c = min(step, xs.size - at)
            src, dst = self._views(xs.dtype, c, c)
            src[...] = xs[at:at + c]
            shmem.reduce(dst, src, _OPS[op], c, self.team)
            res[at:at + c] = dst
        if op == ReduceOp.AVG:
            res = res / self.size
        if half:
            _from_f32(res.astype(np.float32), out.reshape(-1), said)
        elif res is not out.reshape(-1):
            out.reshape(-1)[...] = res

    def reduce(self, x, out, op, root, said=-1):
        whole = np.empty_like(x)
        self.all_reduce(x, whole, op, said)
        if self.rank == root:
            out[...] = whole

    def reduce_scatter(self, x, out, op, said=-1):
        whole = np.empty_like(x.reshape(-1))
        self.all_reduce(x, whole, op, said)
        out.reshape(-1)[...] = whole[self.rank * out.size:(self.rank + 1) * out.size]

    def broadcast(self, x, out, root, said=-1):
        xs, o = x.reshape(-1), out.reshape(-1)
        step = self.s.nbytes // xs.dtype.itemsize
        for at in range(0, o.size, step):
            c = min(step, o.size - at)
            src, dst = self._views(xs.dtype, c, c)
            if self.rank == root:
                src[...] = xs[at:at + c]
            shmem.broadcast(dst, src, root, c, self.team)
            o[at:at + c] = xs[at:at + c] if self.rank == root else dst

    def all_gather(self, x, out, said=-1):
        xs, o, n = x.reshape(-1), out.reshape(-1), self.size
        step = max(1, self.s.nbytes // (n * xs.dtype.itemsize))
        for at in range(0, xs.size, step):
            c = min(step, xs.size - at)
            src, dst = self._views(xs.dtype, c, n * c)
            src[...] = xs[at:at + c]
            shmem.fcollect(dst, src, c, self.team)
            o.reshape(n, xs.size)[:, at:at + c] = dst.reshape(n, c)

    def all_to_all(self, x, out, said=-1):
        n = self.size
        counts = np.full((n, n), x.size // n, dtype=np.uint64)
        self.all_to_all_v(x, out, counts, said)

    def all_to_all_v(self, x, out, counts, said=-1):
        """Blocks padded to the largest one, in rounds."""
        n, me = self.size, self.rank
        counts = np.asarray(counts, dtype=np.int64).reshape(n, n)
        xs, o = x.reshape(-1), out.reshape(-1)
        sends, recvs = counts[me], counts[:, me]
        send_at = np.concatenate(([0], np.cumsum(sends)))
        recv_at = np.concatenate(([0], np.cumsum(recvs)))
        longest = int(counts.max()) if counts.size else 0
        step = max(1, self.s.nbytes // (n * xs.dtype.itemsize))
        for at in range(0, longest, step):
            c = min(step, longest - at)
            src, dst = self._views(xs.dtype, n * c, n * c)
            for d in range(n):
                k = max(0, min(c, int(sends[d]) - at))
                src[d * c:d * c + k] = xs[send_at[d] + at:send_at[d] + at + k]
            shmem.alltoall(dst, src, c, self.team)
            for s in range(n):
                k = max(0, min(c, int(recvs[s]) - at))
                o[recv_at[s] + at:recv_at[s] + at + k] = dst[s * c:s * c + k]
