"""tilecomm.Comm's operators on NumPy arrays and CPU tensors, every result compared with NumPy.

Run by every rank under a launcher: tcrun -n N python3 -m pytest tests/python/test_comm.py
"""
import numpy as np
import pytest
import torch

import tilecomm
from tilecomm import shmem

TYPES = ["int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64", "float16", "float32", "float64"]


@pytest.fixture(scope="module")
def comm():
    shmem.init()
    c = tilecomm.Comm(window_bytes=1 << 16)  # small: large calls go in rounds
    yield c
    c.destroy()
    shmem.finalize()


def data(rank, shape, dtype, salt=0):
    """Rank r's input: small values, exact in every type."""
    n = int(np.prod(shape))
    return ((np.arange(n) * 3 + rank * 7 + salt) % 11).astype(dtype).reshape(shape)


def everyone(comm, shape, dtype, salt=0):
    return [data(r, shape, dtype, salt) for r in range(comm.size)]


REDUCE = {"sum": np.sum, "prod": np.prod, "max": np.max, "min": np.min}


@pytest.mark.parametrize("dtype", TYPES)
@pytest.mark.parametrize("op", list(REDUCE))
def test_all_reduce(comm, dtype, op):
    xs = everyone(comm, (37,), dtype)
    expect = REDUCE[op](np.stack(xs), axis=0).astype(dtype)  # integer sums and products wrap, as NumPy's
    got = comm.all_reduce(xs[comm.rank], op=op)
    np.testing.assert_array_equal(got, expect)


def test_all_reduce_avg_and_in_place(comm):
    xs = everyone(comm, (5, 3), "float64")
    x = xs[comm.rank].copy()
    assert comm.all_reduce(x, op="avg", out=x) is x
    np.testing.assert_allclose(x, np.mean(np.stack(xs), axis=0), rtol=1e-15)


@pytest.mark.parametrize("dtype", ["int32", "float16", "float64"])
def test_all_gather_broadcast_reduce(comm, dtype):
    xs = everyone(comm, (4, 5), dtype)
    np.testing.assert_array_equal(comm.all_gather(xs[comm.rank]), np.stack(xs))
    root = comm.size - 1
    y = xs[comm.rank].copy()
    comm.broadcast(y, root=root)
    np.testing.assert_array_equal(y, xs[root])
    r = comm.reduce(xs[comm.rank], root=root, op="max")
    if comm.rank == root:
        np.testing.assert_array_equal(r, np.max(np.stack(xs), axis=0))
    else:
        assert r is None


@pytest.mark.parametrize("dtype", ["int64", "float32"])
def test_reduce_scatter_and_all_to_all(comm, dtype):
    n = comm.size
    xs = everyone(comm, (2 * n, 3), dtype)
    got = comm.reduce_scatter(xs[comm.rank], op="sum")
    np.testing.assert_array_equal(got, np.sum(np.stack(xs), axis=0).astype(dtype)[2 * comm.rank:2 * comm.rank + 2])
    got = comm.all_to_all(xs[comm.rank])
    expect = np.concatenate([xs[r][2 * comm.rank:2 * comm.rank + 2] for r in range(n)])
    np.testing.assert_array_equal(got, expect)


def test_all_to_all_v(comm):
    n, me = comm.size, comm.rank
    counts = np.array([[(s + 2 * d) % 3 for d in range(n)] for s in range(n)], dtype=np.uint64)
    sends = [np.concatenate([np.full(int(counts[s, d]), 100 * s + d, np.int32) for d in range(n)]) for s in range(n)]
    got = comm.all_to_all_v(sends[me], counts)
    expect = np.concatenate([np.full(int(counts[s, me]), 100 * s + me, np.int32) for s in range(n)])
    np.testing.assert_array_equal(got, expect)


def test_large_calls_go_in_rounds(comm):
    xs = everyone(comm, (50_000,), "float32")  # 200 KB: rounds of the 64 KiB window
    np.testing.assert_array_equal(comm.all_reduce(xs[comm.rank], op="max"), np.max(np.stack(xs), axis=0))


def test_async(comm):
    xs = everyone(comm, (9,), "int32")
    r1 = comm.all_reduce(xs[comm.rank], async_op=True)
    r2 = comm.all_gather(xs[comm.rank], async_op=True)
    np.testing.assert_array_equal(r2.wait(), np.stack(xs))
    np.testing.assert_array_equal(r1.wait(), np.sum(np.stack(xs), axis=0))
    assert r1.test()


@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16, torch.float16, torch.int64, torch.uint8])
def test_tensors(comm, dtype):
    xs = [torch.from_numpy(data(r, (6,), "float32")).to(dtype) for r in range(comm.size)]
    got = comm.all_reduce(xs[comm.rank], op="max")
    assert got.dtype == dtype
    assert torch.equal(got, torch.stack(xs).max(dim=0).values)
    assert torch.equal(comm.all_gather(xs[comm.rank]), torch.stack(xs))


def test_fused(comm):
    n, me = comm.size, comm.rank
    a = everyone(comm, (6,), "float32")
    b = data(me, (n, 6), "float32", salt=5)
    np.testing.assert_array_equal(comm.all_gather_add(a[me], b), np.stack(a) + b)
    x1 = [data(r, (2 * n, 3), "float64", salt=1) for r in range(n)]
    x2 = data(0, (3, 4), "float64", salt=2)
    bias = np.arange(4, dtype=np.float64)
    gathered = np.empty((n * 2 * n, 3))
    y = comm.all_gather_matmul(x1[me], x2, bias=bias, gather_out=gathered)
    np.testing.assert_array_equal(gathered, np.concatenate(x1))
    np.testing.assert_array_equal(y, np.concatenate(x1) @ x2 + bias)
    total = sum(x @ x2 for x in x1)
    np.testing.assert_array_equal(comm.matmul_all_reduce(x1[me], x2, bias=bias), total + bias)
    np.testing.assert_array_equal(comm.matmul_reduce_scatter(x1[me], x2), total[2 * me:2 * me + 2])


def test_fused_bfloat16(comm):
    n, me = comm.size, comm.rank
    x1 = [torch.from_numpy(data(r, (n, 4), "float32", salt=1)).to(torch.bfloat16) for r in range(n)]
    x2 = torch.from_numpy(data(0, (4, 2), "float32", salt=2)).to(torch.bfloat16)
    y = comm.all_gather_matmul(x1[me], x2)
    expect = (torch.cat(x1).float() @ x2.float()).to(torch.bfloat16)  # small integers: exact in fp32, rounded once
    assert torch.equal(y, expect)


def test_bad_arguments(comm):
    x = np.zeros(4, np.float32)
    with pytest.raises(TypeError, match="'out'"):
        comm.all_reduce(x, out=np.zeros(4, np.float64))
    with pytest.raises(ValueError, match="'out' has 3 elements"):
        comm.all_reduce(x, out=np.zeros(3, np.float32))
    with pytest.raises(ValueError, match="'x' is not contiguous"):
        comm.all_reduce(np.zeros(8, np.float32)[::2])
    with pytest.raises(TypeError, match="numpy.ndarray or a CPU torch.Tensor"):
        comm.all_reduce([1, 2, 3])
    with pytest.raises(TypeError, match="complex"):
        comm.all_reduce(np.zeros(2, np.complex64))
    with pytest.raises(ValueError, match="'read-only'|read-only"):
        ro = np.zeros(4, np.float32)
        ro.flags.writeable = False
        comm.all_reduce(x, out=ro)


def test_mismatch_across_ranks_raises_on_every_rank(comm):
    if comm.size == 1:
        pytest.skip("needs two ranks")
    x = np.zeros(10 + comm.rank, np.int32)  # a different count on every rank
    with pytest.raises(tilecomm.UsageError, match="AllGather"):
        comm.all_gather(x)
    np.testing.assert_array_equal(comm.all_reduce(np.ones(3, np.int32)), np.full(3, comm.size))  # still usable


def test_destroyed_comm_raises():
    c = tilecomm.Comm(window_bytes=1 << 12)
    c.destroy()
    with pytest.raises(tilecomm.UsageError, match="destroyed"):
        c.all_reduce(np.zeros(1))


def test_comm_of_a_team(comm):
    """A communicator over a split team: its ranks are the team's."""
    n = comm.size
    evens = shmem.TEAM_WORLD.split_strided(0, 2, (n + 1) // 2)
    if evens is not None:
        with tilecomm.Comm(team=evens, window_bytes=1 << 12) as c:
            assert (c.rank, c.size) == (comm.rank // 2, (n + 1) // 2)
            got = c.all_gather(np.array([comm.rank], np.int64))
            np.testing.assert_array_equal(got.reshape(-1), np.arange(0, n, 2))
        evens.destroy()
    shmem.barrier_all()
