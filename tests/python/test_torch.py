"""The torch.distributed backend "tilecomm", every result compared with NumPy.

Run by every rank under a launcher (tcrun -n N python3 -m pytest tests/python/test_torch.py):
importing tilecomm.torch sets torchrun's environment from tilecomm's job.
"""
import numpy as np
import pytest
import torch
import torch.distributed as dist

import tilecomm
import tilecomm.torch as tct
from tilecomm import shmem

TYPES = [torch.float32, torch.float64, torch.float16, torch.bfloat16, torch.int8, torch.int16, torch.int32,
         torch.int64, torch.uint8]


@pytest.fixture(scope="module", autouse=True)
def group():
    dist.init_process_group("tilecomm")
    yield
    dist.destroy_process_group()


def me():
    return dist.get_rank()


def size():
    return dist.get_world_size()


def data(rank, shape, dtype, salt=0):
    n = int(np.prod(shape))
    return torch.from_numpy(((np.arange(n) * 5 + rank * 3 + salt) % 7).astype(np.float32).reshape(shape)).to(dtype)


def everyone(shape, dtype, salt=0):
    return [data(r, shape, dtype, salt) for r in range(size())]


def test_backend_and_environment():
    assert dist.get_backend() == "tilecomm"
    assert me() == shmem.my_pe() and size() == shmem.n_pes()


@pytest.mark.parametrize("dtype", TYPES)
@pytest.mark.parametrize("op", ["sum", "product", "min", "max"])
def test_all_reduce(dtype, op):
    xs = everyone((3, 5), dtype)
    t = xs[me()].clone()
    dist.all_reduce(t, op=getattr(dist.ReduceOp, op.upper()))
    stacked = torch.stack([x.double() for x in xs])
    expect = {"sum": stacked.sum(0), "product": stacked.prod(0), "min": stacked.min(0).values,
              "max": stacked.max(0).values}[op]
    if dtype.is_floating_point:
        assert torch.equal(t, expect.to(dtype))  # small integers: exact in every float type
    else:
        bits = np.iinfo(np.dtype(str(dtype).split(".")[1])).bits  # integer results wrap, as C's
        wrapped = np.array(expect.numpy().astype(np.int64)).astype(np.dtype(str(dtype).split(".")[1]))
        assert bits and np.array_equal(t.numpy(), wrapped)


def test_all_reduce_non_contiguous_and_async():
    xs = everyone((4, 6), torch.float32)
    t = xs[me()].clone().t()  # a transpose: not contiguous
    work = dist.all_reduce(t, async_op=True)
    assert work.wait()
    assert torch.equal(t, torch.stack(xs).sum(0).t())
    fut = dist.all_reduce(xs[me()].clone(), async_op=True).get_future()
    fut.wait()
    t = xs[me()].clone()
    dist.all_reduce(t, op=dist.ReduceOp.AVG)
    assert torch.equal(t, torch.stack(xs).sum(0) / size())


@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16, torch.int64])
def test_broadcast_reduce_gather_scatter(dtype):
    xs = everyone((5,), dtype)
    root = size() - 1
    t = xs[me()].clone()
    dist.broadcast(t, src=root)
    assert torch.equal(t, xs[root])
    t = xs[me()].clone()
    dist.reduce(t, dst=root, op=dist.ReduceOp.MAX)
    if me() == root:
        assert torch.equal(t, torch.stack(xs).max(0).values)
    gathered = [torch.empty(5, dtype=dtype) for _ in range(size())] if me() == root else None
    dist.gather(xs[me()], gather_list=gathered, dst=root)
    if me() == root:
        assert all(torch.equal(g, x) for g, x in zip(gathered, xs))
    out = torch.empty(5, dtype=dtype)
    dist.scatter(out, scatter_list=[data(r, (5,), dtype, salt=1) for r in range(size())] if me() == 0 else None,
                 src=0)
    assert torch.equal(out, data(me(), (5,), dtype, salt=1))


@pytest.mark.parametrize("dtype", [torch.float32, torch.float16, torch.uint8])
def test_all_gather(dtype):
    xs = everyone((2, 3), dtype)
    outs = [torch.empty(2, 3, dtype=dtype) for _ in range(size())]
    dist.all_gather(outs, xs[me()])
    assert all(torch.equal(o, x) for o, x in zip(outs, xs))
    single = torch.empty(size() * 2, 3, dtype=dtype)
    dist.all_gather_into_tensor(single, xs[me()])
    assert torch.equal(single, torch.cat(xs))


@pytest.mark.parametrize("dtype", [torch.float32, torch.int32])
def test_reduce_scatter(dtype):
    n = size()
    xs = everyone((n, 4), dtype)
    out = torch.empty(4, dtype=dtype)
    dist.reduce_scatter(out, list(xs[me()].unbind(0)))
    assert torch.equal(out, torch.stack(xs).sum(0)[me()])
    out = torch.empty(1, 4, dtype=dtype)
    dist.reduce_scatter_tensor(out, xs[me()], op=dist.ReduceOp.MIN)
    assert torch.equal(out[0], torch.stack(xs).min(0).values[me()])


def test_all_to_all():
    n = size()
    xs = everyone((n * 2, 3), torch.float64)
    out = torch.empty(n * 2, 3, dtype=torch.float64)
    dist.all_to_all_single(out, xs[me()])
    assert torch.equal(out, torch.cat([x[2 * me():2 * me() + 2] for x in xs]))
    # split sizes: rank s sends s + d + 1 rows to rank d
    send = [s_d for s_d in range(n)]
    inp = torch.cat([torch.full((me() + d + 1, 2), float(10 * me() + d)) for d in send])
    out = torch.empty(sum(s + me() + 1 for s in range(n)), 2)
    dist.all_to_all_single(out, inp, output_split_sizes=[s + me() + 1 for s in range(n)],
                           input_split_sizes=[me() + d + 1 for d in range(n)])
    assert torch.equal(out, torch.cat([torch.full((s + me() + 1, 2), float(10 * s + me())) for s in range(n)]))
    ins = [torch.full((d + 1,), float(me() * 100 + d)) for d in range(n)]
    outs = [torch.empty(me() + 1) for _ in range(n)]
    dist.all_to_all(outs, ins)
    assert all(torch.equal(o, torch.full((me() + 1,), float(s * 100 + me()))) for s, o in enumerate(outs))


def test_send_recv():
    n = size()
    if n == 1:
        pytest.skip("needs two ranks")
    right, left = (me() + 1) % n, (me() - 1) % n
    big = torch.arange(3 << 18, dtype=torch.float32) + me()  # 3 MiB: chunks of the mailbox
    got = torch.empty_like(big)
    sent = dist.isend(big, right, tag=7)  # every rank sends first: isend progresses on its own
    dist.recv(got, left, tag=7)
    sent.wait()
    assert torch.equal(got, torch.arange(3 << 18, dtype=torch.float32) + left)
    small = torch.tensor([me()], dtype=torch.int64)
    r = dist.irecv(got[:0].new_empty(1, dtype=torch.int64), left)
    dist.send(small, right)
    r.wait()
    dist.barrier()


def test_new_group():
    n = size()
    evens = list(range(0, n, 2))
    g = dist.new_group(evens)
    if me() in evens:
        t = torch.tensor([float(me())])
        dist.all_reduce(t, group=g)
        assert t.item() == float(sum(evens))
    h = dist.new_group(list(range(n)), backend="gloo")  # another backend passes through
    t = torch.tensor([1.0])
    dist.all_reduce(t, group=h)
    assert t.item() == n
    if n >= 3:
        with pytest.raises(ValueError, match="evenly spaced"):
            dist.new_group([0, 1, n - 1] if n > 3 else [0, 2, 3])


def test_symmetric_tensors():
    t = tct.zeros((4,), torch.bfloat16)
    t.fill_(me() + 1)
    shmem.barrier_all()
    peer = torch.zeros(4, dtype=torch.bfloat16)
    shmem.get(tilecomm.comm.as_array(peer, "peer")[0], tilecomm.comm.as_array(t, "t")[0], (me() + 1) % size())
    assert torch.equal(peer, torch.full((4,), float((me() + 1) % size() + 1), dtype=torch.bfloat16))
    shmem.barrier_all()
    tct.free(t)


def test_bad_input():
    with pytest.raises(ValueError, match="BAND"):
        dist.all_reduce(torch.ones(2, dtype=torch.int32), op=dist.ReduceOp.BAND)
    if torch.cuda.is_available():  # pragma: no cover (no accelerator here)
        with pytest.raises(TypeError, match="CPU"):
            dist.all_reduce(torch.ones(2, device="cuda"))


def test_mismatch_across_ranks_raises_on_every_rank():
    """Ranks that disagree on a call's shape or type: every rank raises (the operators' first-run check)."""
    from tilecomm.torch.staged import StagedComm
    if size() == 1 or isinstance(dist.distributed_c10d._get_default_group()._comm, StagedComm):
        pytest.skip("needs two ranks on one host (across hosts only TILECOMM_CHECK=1 checks the OpenSHMEM calls)")
    # Counts no earlier test used: a call whose plan every rank already ran is not compared again (only
    # TILECOMM_CHECK=1 compares every run).
    with pytest.raises(tilecomm.UsageError, match="AllReduce"):
        dist.all_reduce(torch.ones(1000 + 7 * me()))
    with pytest.raises(tilecomm.UsageError, match="AllReduce"):
        dist.all_reduce(torch.ones(1003, dtype=torch.float32 if me() == 0 else torch.float64))
    t = torch.ones(3)
    dist.all_reduce(t)  # the group is still usable
    assert torch.equal(t, torch.full((3,), float(size())))
