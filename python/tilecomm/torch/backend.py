"""The torch.distributed backend "tilecomm".

NOTE [torch backend]: a ProcessGroup subclass (torch's Python process-group
interface; DDP and the rest of torch's C++ reach it through that interface's
trampoline). Each collective runs tilecomm's communicator operators on views of
the tensors (no copy in the binding; a non-contiguous tensor goes through a
contiguous copy), in the calling thread, so a call returns completed: its
work's wait() returns at once and its future is already set, async_op=True
included. gather and scatter are all_to_all_v calls in which only the root
receives (sends); all_to_all_single with split sizes first gathers every rank's
sizes. Point-to-point calls go through mailboxes of the symmetric heap (one per
peer, python/src/p2p.cpp) on two threads of the process group, so isend and
irecv progress while the caller computes, and a send returns once its data are
in the peer's mailbox.

Ranks on several hosts: the communicator's operators need one host, so a group
whose ranks span hosts runs the OpenSHMEM team collectives instead (staged.py).

Starting: under a tilecomm launcher (tcrun, or MPICH's or OpenMPI's mpirun)
tilecomm starts from the launcher's environment; under torchrun's environment
(MASTER_ADDR, MASTER_PORT, RANK, WORLD_SIZE) rank 0 makes a unique ID and hands
it to the others through torch's store. Importing tilecomm.torch under a
tilecomm launcher without torchrun's environment starts tilecomm and sets that
environment (rank 0's address and a free port), so init_process_group("tilecomm")
(or "gloo") works as under torchrun.

Subgroups: OpenSHMEM splits a team collectively over its parent, and torch
calls a backend only on a new group's members, so tilecomm.torch wraps
torch.distributed.new_group: every rank takes part in splitting the world team,
before torch makes the group. The ranks of a subgroup must be evenly spaced
(start + i * stride, as OpenSHMEM's strided teams are; any contiguous range or
every k-th rank).
"""
import datetime
import os
import socket
import threading

import numpy as np
import torch
import torch.distributed as dist
from torch._C._distributed_c10d import ProcessGroup, Work, _create_work_from_future

from .. import _tilecomm, shmem
from ..comm import ReduceOp, as_array
from .staged import StagedComm, Staging

_LAUNCHER_RANK = ("TILECOMM_RANK", "PMI_RANK", "PMIX_RANK")
_R = dist.ReduceOp.RedOpType
_OPS = {int(_R.SUM): int(ReduceOp.SUM), int(_R.PRODUCT): int(ReduceOp.PROD), int(_R.MIN): int(ReduceOp.MIN),
        int(_R.MAX): int(ReduceOp.MAX), int(_R.AVG): int(ReduceOp.AVG)}
_teams = {}  # ranks of a subgroup -> its team, split by new_group (NOTE [torch backend])
_state = {}  # "staging": the default group's staging arrays, where its ranks span hosts


def launched_by_tilecomm():
    """Whether a launcher tilecomm starts from (tcrun, hydra, PMIx) started this process."""
    return any(v in os.environ for v in _LAUNCHER_RANK)


def _start(thread_level=shmem.THREAD_MULTIPLE):
    """Starts tilecomm from the launcher's environment, if it is not running."""
    if not _tilecomm.initialized():
        shmem.init_thread(thread_level)


def _reachable_address():
    """An address of this host the other ranks reach: the one that routes to tilecomm's rendezvous."""
    uid = os.environ.get("TILECOMM_UNIQUEID", "")
    if uid.startswith("tcp://"):
        host, port = uid[len("tcp://"):].split("/")[0].rsplit(":", 1)
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
            s.connect((host, int(port)))
            return s.getsockname()[0]
    return socket.gethostbyname(socket.gethostname())


def _set_torchrun_environment():
    """Sets RANK, WORLD_SIZE, LOCAL_RANK, MASTER_ADDR and MASTER_PORT from tilecomm's job (NOTE [torch backend])."""
    _start()
    me = shmem.my_pe()
    source, line = shmem.zeros(64, np.uint8), shmem.zeros(64, np.uint8)
    if me == 0:
        with socket.socket() as s:  # a free port, for torch's store
            s.bind(("", 0))
            text = f"{_reachable_address()} {s.getsockname()[1]}".encode()
        source[:len(text)] = np.frombuffer(text, dtype=np.uint8)
        line[:] = source
    shmem.broadcast(line, source, 0)  # over OpenSHMEM: the ranks may be on several hosts
    addr, port = bytes(line).rstrip(b"\0").decode().split()
    shmem.free(line)
    shmem.free(source)
    os.environ.setdefault("MASTER_ADDR", addr)
    os.environ.setdefault("MASTER_PORT", port)
    os.environ.setdefault("RANK", str(me))
    os.environ.setdefault("WORLD_SIZE", str(shmem.n_pes()))
    os.environ.setdefault("LOCAL_RANK", str(shmem.TEAM_SHARED.my_pe()))


def _Done(result):
    """The work of a call that returned completed (every collective of this backend): a C++ work around a
    set future, so that callers in C++ (DDP's reducer) see it complete without the Python object."""
    f = torch.futures.Future()
    f.set_result(result)
    return _create_work_from_future(f)


class _Pending(Work):
    """A point-to-point call running on the process group's mailbox threads."""

    def __init__(self, request, keep, result=None):
        super().__init__()
        self._request, self._keep, self._result = request, keep, result

    def wait(self, timeout=None):
        self._request.wait()
        self._keep = None
        return True

    def is_completed(self):
        return self._request.test()

    def get_future(self):
        self.wait()
        f = torch.futures.Future()
        f.set_result(self._result)
        return f


def _view(t, arg="tensor"):
    """(a NumPy view, the DataType said) of a contiguous CPU tensor."""
    if t.is_cpu and not t.requires_grad and t.dtype is not torch.bfloat16:
        return t.numpy(), -1  # the common case, without as_array's checks (its callers made t contiguous)
    return as_array(t, arg)


def _op(opts):
    op = opts.reduceOp.op
    try:
        return _OPS[int(op)]
    except KeyError:
        raise ValueError(f"the tilecomm backend has no reduction {op.name}; it has SUM, PRODUCT, MIN, MAX and "
                         "AVG") from None


class _Contiguous:
    """Tensors as the operators need them: contiguous ones as they are, others through a copy written back."""

    def __init__(self):
        self.back = []

    def __call__(self, t, written=False):
        if t.device.type != "cpu":
            raise TypeError(f"the tilecomm backend works on CPU tensors; this one is on {t.device}")
        if t.is_contiguous():
            return t
        c = t.contiguous()
        if written:
            self.back.append((t, c))
        return c

    def done(self):
        for t, c in self.back:
            t.copy_(c)


def _flat(ts):
    return torch.cat([t.reshape(-1) for t in ts]) if len(ts) > 1 else ts[0].reshape(-1)


def _one_host(team):
    shared = shmem.TEAM_SHARED
    return all(team.translate_pe(i, shared) >= 0 for i in range(team.n_pes()))


class ProcessGroupTilecomm(ProcessGroup):
    def __init__(self, rank, size, team=None):
        super().__init__(rank, size)
        if team is None and "staging" not in _state and not _one_host(shmem.TEAM_WORLD):
            _state["staging"] = Staging()  # once, by the default group, which every rank makes: collective
        t = shmem.TEAM_WORLD if team is None else team
        # The communicator's operators on one host, the OpenSHMEM collectives across hosts (staged.py).
        self._comm = _tilecomm.Comm(team, 0, 0) if _one_host(t) else StagedComm(t, _state["staging"])
        self._p2p = _tilecomm.Mailboxes(team)
        self._threads = shmem.query_thread() == shmem.THREAD_MULTIPLE  # the mailboxes' threads call OpenSHMEM
        if self._comm.rank != rank or self._comm.size != size:
            raise RuntimeError(f"tilecomm backend: torch says rank {rank} of {size}, tilecomm's team has rank "
                               f"{self._comm.rank} of {self._comm.size}; start every rank through one launcher")

    def getBackendName(self):
        return "tilecomm"

    def _finish(self, fix, result):
        fix.done()
        return _Done(result)

    # ---- collectives ----
    def allreduce(self, tensors, opts=None):
        op = _op(opts) if opts is not None else int(ReduceOp.SUM)
        if len(tensors) == 1 and tensors[0].is_contiguous():  # the common case, without _Contiguous
            a, said = _view(tensors[0])
            self._comm.all_reduce(a, a, op, said)
            return _Done(tensors)
        fix = _Contiguous()
        for t in tensors:
            c = fix(t, written=True)
            a, said = _view(c)
            self._comm.all_reduce(a, a, op, said)
        return self._finish(fix, tensors)

    def allreduce_coalesced(self, tensors, opts=None):
        return self.allreduce(tensors, opts)

    def broadcast(self, tensors, opts):
        fix = _Contiguous()
        for t in tensors:
            a, said = _view(fix(t, written=True))
            self._comm.broadcast(a, a, opts.rootRank, said)
        return self._finish(fix, tensors)

    def reduce(self, tensors, opts):
        fix = _Contiguous()
        for t in tensors:
            a, said = _view(fix(t, written=True))
            self._comm.reduce(a, a if self.rank() == opts.rootRank else None, _op(opts), opts.rootRank, said)
        return self._finish(fix, tensors)

    def _allgather_base(self, output, input, opts=None):
        fix = _Contiguous()
        a, said = _view(fix(input))
        self._comm.all_gather(a, _view(fix(output, written=True), "output")[0], said)
        return self._finish(fix, [output])

    def allgather(self, output_lists, inputs, opts=None):
        for outs, t in zip(output_lists, inputs):
            gathered = torch.empty((self.size(),) + tuple(t.shape), dtype=t.dtype)
            self._allgather_base(gathered, t)
            for r, o in enumerate(outs):
                o.copy_(gathered[r])
        return _Done(output_lists)

    def allgather_coalesced(self, output_lists, inputs, opts=None):
        return self.allgather(output_lists, inputs, opts)

    def _reduce_scatter_base(self, output, input, opts=None):
        op = _op(opts) if opts is not None else int(ReduceOp.SUM)
        fix = _Contiguous()
        a, said = _view(fix(input))
        self._comm.reduce_scatter(a, _view(fix(output, written=True), "output")[0], op, said)
        return self._finish(fix, [output])

    def reduce_scatter(self, outputs, input_lists, opts):
        for o, ins in zip(outputs, input_lists):
            self._reduce_scatter_base(o, _flat(ins), opts)
        return _Done(outputs)

    def alltoall_base(self, output, input, output_split_sizes, input_split_sizes, opts=None):
        fix = _Contiguous()
        a, said = _view(fix(input))
        o = _view(fix(output, written=True), "output")[0]
        n = self.size()
        if not output_split_sizes and not input_split_sizes:
            self._comm.all_to_all(a, o, said)
            return self._finish(fix, [output])
        row = a.size // max(input.shape[0], 1) if input.dim() else 1  # elements per first-dimension slice
        sends = np.asarray(input_split_sizes or [input.shape[0] // n] * n, dtype=np.uint64) * row
        matrix = np.zeros((n, n), dtype=np.uint64)
        self._comm.all_gather(sends, matrix, -1)  # every rank's sizes: the count matrix
        self._comm.all_to_all_v(a, o, matrix, said)
        return self._finish(fix, [output])

    def alltoall(self, outputs, inputs, opts=None):
        sizes = [t.numel() for t in inputs]
        flat_out = torch.empty(sum(t.numel() for t in outputs), dtype=inputs[0].dtype)
        n = self.size()
        matrix = np.zeros((n, n), dtype=np.uint64)
        self._comm.all_gather(np.asarray(sizes, dtype=np.uint64), matrix, -1)
        a, said = _view(_flat(inputs).contiguous())
        self._comm.all_to_all_v(a, _view(flat_out)[0], matrix, said)
        at = 0
        for o in outputs:
            o.copy_(flat_out[at:at + o.numel()].view(o.shape))
            at += o.numel()
        return _Done(outputs)

    def _rooted(self, t, root, to_root):
        """gather (to_root) or scatter of t's element count per rank, as an all_to_all_v."""
        n, count = self.size(), t.numel()
        matrix = np.zeros((n, n), dtype=np.uint64)
        if to_root:
            matrix[:, root] = count
        else:
            matrix[root, :] = count
        return matrix

    def gather(self, outputs, inputs, opts):
        root, t = opts.rootRank, inputs[0]
        matrix = self._rooted(t, root, True)
        whole = torch.empty(t.numel() * self.size() if self.rank() == root else 0, dtype=t.dtype)
        a, said = _view(t.contiguous())
        self._comm.all_to_all_v(a, _view(whole)[0], matrix, said)
        if self.rank() == root:
            for r, o in enumerate(outputs[0]):
                o.copy_(whole[r * t.numel():(r + 1) * t.numel()].view(o.shape))
        return _Done(outputs[0] if outputs else [])

    def scatter(self, outputs, inputs, opts):
        root, out = opts.rootRank, outputs[0]
        matrix = self._rooted(out, root, False)
        whole = _flat(inputs[0]).contiguous() if self.rank() == root else torch.empty(0, dtype=out.dtype)
        fix = _Contiguous()
        a, said = _view(whole)
        self._comm.all_to_all_v(a, _view(fix(out, written=True), "output")[0], matrix, said)
        return self._finish(fix, [out])

    def barrier(self, opts=None):
        self._p2p.barrier()
        return _Done([])

    # ---- point to point ----
    def _need_threads(self):
        if not self._threads:
            raise RuntimeError("the tilecomm backend's send and recv run on threads of their own, so tilecomm must "
                               "run at THREAD_MULTIPLE: start it with shmem.init_thread(shmem.THREAD_MULTIPLE), or "
                               "let init_process_group start it")

    def send(self, tensors, dst, tag):
        self._need_threads()
        t = tensors[0].contiguous()
        a, _ = _view(t)
        return _Pending(self._p2p.send(a, dst, tag), t, [tensors[0]])

    def recv(self, tensors, src, tag):
        self._need_threads()
        t = tensors[0]
        c = t if t.is_contiguous() else torch.empty_like(t, memory_format=torch.contiguous_format)
        a, _ = _view(c)
        request = self._p2p.recv(a, src, tag)
        if c is not t:
            request.wait()
            t.copy_(c)
        return _Pending(request, c, [t])

    def recv_anysource(self, tensors, tag):
        raise RuntimeError("the tilecomm backend needs the source of a recv (src=None is not supported)")


def _create(opts, pg_options=None):
    if not _tilecomm.initialized():
        if launched_by_tilecomm():
            _start()
        else:  # torchrun's environment: rank 0's unique ID, through torch's store
            key = "tilecomm/unique_id"
            if opts.group_rank == 0:
                opts.store.set(key, _tilecomm.unique_id())
            _tilecomm.init_unique_id(opts.group_rank, opts.group_size, bytes(opts.store.get(key)),
                                     int(shmem.THREAD_MULTIPLE))
    ranks = list(opts.global_ranks_in_group)
    if not ranks or ranks == list(range(shmem.n_pes())):
        return ProcessGroupTilecomm(opts.group_rank, opts.group_size)
    team = _teams.pop(tuple(ranks), None)
    if team is None:
        raise RuntimeError(f"tilecomm backend: no team was split for the group of ranks {ranks}; make groups "
                           "with torch.distributed.new_group after importing tilecomm.torch")
    return ProcessGroupTilecomm(opts.group_rank, opts.group_size, team)


def _wrap_new_group(new_group):
    def tilecomm_new_group(ranks=None, timeout=None, backend=None, pg_options=None):
        uses_tilecomm = (backend or (dist.is_initialized() and dist.get_backend())) == "tilecomm"
        if uses_tilecomm and ranks is not None:
            r = sorted(int(x) for x in ranks)
            if r and r != list(range(shmem.n_pes())):
                stride = r[1] - r[0] if len(r) > 1 else 1
                if any(b - a != stride for a, b in zip(r, r[1:])):
                    raise ValueError(f"the tilecomm backend makes groups of evenly spaced ranks (start + i * stride, "
                                     f"OpenSHMEM's strided teams); {r} is not")
                team = shmem.TEAM_WORLD.split_strided(r[0], stride, len(r))
                if team is not None:
                    _teams[tuple(r)] = team
        kw = {} if timeout is None else {"timeout": timeout}
        return new_group(ranks, backend=backend, pg_options=pg_options, **kw)

    tilecomm_new_group.__doc__ = new_group.__doc__
    tilecomm_new_group.__wrapped__ = new_group
    return tilecomm_new_group


def register():
    """Registers the backend (once), wraps new_group, and sets torchrun's environment under a tilecomm launcher."""
    if "TILECOMM" in dist.Backend._plugins:
        return
    dist.Backend.register_backend("tilecomm", _create, extended_api=True)
    c10d = dist.distributed_c10d
    c10d.new_group = dist.new_group = _wrap_new_group(c10d.new_group)
    if launched_by_tilecomm() and "MASTER_ADDR" not in os.environ:
        _set_torchrun_environment()
