"""tilecomm.shmem, the OpenSHMEM face: every function against values computed with NumPy.

Run by every PE under a launcher, at any number of PEs:
    TILECOMM_TIMEOUT=60 tcrun -n 4 python3 -m pytest -q -x tests/python/test_shmem.py
Every PE runs the same tests in the same order, so collective calls match;
anything one PE waits for is written by another before a barrier, so no
result depends on timing.
"""
import os
import subprocess
import sys

import numpy as np
import pytest

import tilecomm
from tilecomm import shmem


@pytest.fixture(scope="module", autouse=True)
def session():
    with shmem.session():
        yield


@pytest.fixture
def me():
    return shmem.my_pe()


@pytest.fixture
def n():
    return shmem.n_pes()


def neighbours():
    me, n = shmem.my_pe(), shmem.n_pes()
    return (me + 1) % n, (me - 1) % n


def need(k):
    if shmem.n_pes() < k:
        pytest.skip(f"needs {k} PEs")


INTS = ["int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64"]
ALL = INTS + ["float16", "float32", "float64", "complex64", "complex128"]
AMO = ["int32", "int64", "uint32", "uint64"]


# ---- setup and queries ----------------------------------------------------------------------

def test_queries(me, n):
    assert 0 <= me < n
    if "TILECOMM_SIZE" in os.environ:
        assert n == int(os.environ["TILECOMM_SIZE"]) and me == int(os.environ["TILECOMM_RANK"])
    assert shmem.info_get_version() == (1, 5) == (shmem.MAJOR_VERSION, shmem.MINOR_VERSION)
    assert shmem.info_get_name().startswith("tilecomm") and shmem.VENDOR_STRING.startswith("tilecomm")
    assert shmem.initialized() and not shmem.finalized()
    assert shmem.query_thread() in list(shmem.THREAD)
    assert all(shmem.pe_accessible(pe) for pe in range(n))
    assert not shmem.pe_accessible(n)
    a = shmem.zeros(3, "int32")
    assert all(shmem.addr_accessible(a, pe) for pe in range(n))
    assert not shmem.addr_accessible(np.zeros(3, "int32"), 0)
    shmem.free(a)
    shmem.pcontrol(1)


def test_ptr(me, n):
    a = shmem.full((2, 3), me, "float64")
    for pe in range(n):
        view = shmem.ptr(a, pe)
        assert view is not None and view.shape == (2, 3) and view.dtype == np.float64  # one host: all mapped
        np.testing.assert_array_equal(view, np.full((2, 3), pe))
    shmem.barrier_all()
    shmem.ptr(a, (me + 1) % n)[1, 2] = 100 + me  # a store into the next PE's array
    shmem.barrier_all()
    assert a[1, 2] == 100 + (me - 1) % n
    shmem.free(a)


def test_arrays(me):
    a = shmem.empty((2, 3), "int16")
    assert a.shape == (2, 3) and a.dtype == np.int16
    np.testing.assert_array_equal(shmem.zeros(4, "uint8"), np.zeros(4))
    np.testing.assert_array_equal(shmem.ones((2, 2), "float32"), np.ones((2, 2)))
    np.testing.assert_array_equal(shmem.full(3, 7.5), np.full(3, 7.5))
    b = shmem.array([[1, 2], [3, me]], dtype="int64")
    np.testing.assert_array_equal(b, [[1, 2], [3, me]])
    for like, expect in [(shmem.empty_like(b), None), (shmem.zeros_like(b), 0), (shmem.ones_like(b), 1),
                         (shmem.full_like(b, 9), 9)]:
        assert like.shape == b.shape and like.dtype == b.dtype
        if expect is not None:
            np.testing.assert_array_equal(like, np.full(b.shape, expect))
    shmem.free(a)
    shmem.free(b)
    shmem.free_dropped()  # the dropped ones
    assert shmem.new_array(3, "int32").sum() == 0


# ---- RMA --------------------------------------------------------------------------------------

@pytest.mark.parametrize("dtype", ALL)
def test_put_get(me, n, dtype):
    nxt, prv = neighbours()
    a = shmem.zeros(10, dtype)
    shmem.put(a, (np.arange(10) + 10 * me).astype(dtype), nxt)
    shmem.barrier_all()
    np.testing.assert_array_equal(a, (np.arange(10) + 10 * prv).astype(dtype))
    got = np.zeros(10, dtype)
    shmem.get(got, a, nxt)  # nxt holds my values
    np.testing.assert_array_equal(got, (np.arange(10) + 10 * me).astype(dtype))
    shmem.barrier_all()
    shmem.free(a)


def test_put_get_size_and_nbi(me, n):
    nxt, prv = neighbours()
    a = shmem.zeros(8, "int32")
    shmem.put(a[2:], np.array([me + 1, me + 2, 99], "int32"), nxt, size=2)
    shmem.barrier_all()
    np.testing.assert_array_equal(a, [0, 0, prv + 1, prv + 2, 0, 0, 0, 0])
    shmem.barrier_all()
    shmem.put_nbi(a[4:], np.full(4, me, "int32"), nxt)
    shmem.quiet()
    shmem.barrier_all()
    np.testing.assert_array_equal(a[4:], np.full(4, prv))
    got = np.full(5, -1, "int32")
    shmem.get_nbi(got, a, prv, size=4)
    shmem.quiet()
    np.testing.assert_array_equal(got, [0, 0, (prv - 1) % n + 1, (prv - 1) % n + 2, -1])
    shmem.barrier_all()
    shmem.free(a)


@pytest.mark.parametrize("dtype", ["int8", "int16", "float32", "float64", "complex128"])
def test_iput_iget(me, n, dtype):
    nxt, prv = neighbours()
    a = shmem.zeros(12, dtype)
    src = (np.arange(12) + 100 * me).astype(dtype)
    shmem.iput(a, src, 3, 2, 4, nxt)  # a[0, 3, 6, 9] = src[0, 2, 4, 6] on nxt
    shmem.barrier_all()
    expect = np.zeros(12, dtype)
    expect[0:12:3] = (np.arange(0, 8, 2) + 100 * prv).astype(dtype)
    np.testing.assert_array_equal(a, expect)
    got = np.zeros(8, dtype)
    shmem.iget(got, a, tst=2, sst=3, size=4, pe=nxt)  # got[0, 2, 4, 6] = a[0, 3, 6, 9] of nxt (my values)
    mine = np.zeros(8, dtype)
    mine[0:8:2] = (np.arange(0, 8, 2) + 100 * me).astype(dtype)
    np.testing.assert_array_equal(got, mine)
    got6 = np.zeros(2, dtype)
    shmem.iget(got6, a, 1, 6, None, nxt)  # default size: all that source reaches ... limited by target
    np.testing.assert_array_equal(got6, [mine[0], mine[4]])
    shmem.barrier_all()
    shmem.free(a)


@pytest.mark.parametrize("dtype,value", [("int32", -5), ("uint64", 2**63 + 1), ("float64", 2.5),
                                         ("complex128", 1 + 2j), ("int8", 100)])
def test_p_g(me, n, dtype, value):
    nxt, prv = neighbours()
    a = shmem.zeros(3, dtype)
    shmem.p(a[1:2], value, nxt)
    shmem.barrier_all()
    np.testing.assert_array_equal(a, np.array([0, value, 0], dtype))
    got = shmem.g(a[1:], prv)
    assert got == np.array(value, dtype) and type(got) in (int, float, complex)
    shmem.barrier_all()
    shmem.free(a)


# ---- AMOs -------------------------------------------------------------------------------------

@pytest.mark.parametrize("dtype", AMO + ["float32", "float64"])
def test_amo_fetch_set_swap(me, n, dtype):
    nxt, prv = neighbours()
    a = shmem.zeros(2, dtype)
    shmem.atomic_set(a[1:], me + 1, nxt)
    shmem.barrier_all()
    assert a[1] == prv + 1 and a[0] == 0
    assert shmem.atomic_fetch(a[1:], prv) == (prv - 1) % n + 1
    shmem.barrier_all()
    assert shmem.atomic_swap(a[1:], 40 + me, nxt) == me + 1  # nxt's a[1] was set by me
    shmem.barrier_all()
    assert a[1] == 40 + prv
    f = np.zeros(1, dtype)
    shmem.atomic_fetch_nbi(f, a[1:], nxt)
    shmem.quiet()
    assert f[0] == 40 + me
    shmem.barrier_all()
    shmem.atomic_swap_nbi(f, a[1:], 7, me)  # my own
    shmem.quiet()
    assert f[0] == 40 + prv and a[1] == 7
    shmem.barrier_all()
    shmem.free(a)


@pytest.mark.parametrize("dtype", AMO)
def test_amo_arithmetic(me, n, dtype):
    c = shmem.zeros(4, dtype)  # [add, inc, fetch_add, fetch_inc] counters, all on PE 0 ... and everywhere
    for pe in range(n):
        shmem.atomic_add(c[0:1], me + 1, pe)
        shmem.atomic_inc(c[1:2], pe)
    old = shmem.atomic_fetch_add(c[2:3], 3, 0)
    old_inc = shmem.atomic_fetch_inc(c[3:4], 0)
    shmem.barrier_all()
    assert c[0] == n * (n + 1) // 2 and c[1] == n
    if me == 0:
        assert c[2] == 3 * n and c[3] == n
    olds = shmem.zeros(2 * n, "int64")
    shmem.put(olds[2 * me:], np.array([old, old_inc], "int64"), 0)
    shmem.barrier_all()
    if me == 0:  # the fetched values are a permutation of the sequence
        assert sorted(olds[0::2]) == [3 * i for i in range(n)] and sorted(olds[1::2]) == list(range(n))
    # the nbi forms, on this PE's own counters: deterministic
    f = np.zeros(1, dtype)
    shmem.atomic_fetch_add_nbi(f, c[0:1], 5, me)
    shmem.quiet()
    assert f[0] == n * (n + 1) // 2 and c[0] == n * (n + 1) // 2 + 5
    shmem.atomic_fetch_inc_nbi(f, c[1:2], me)
    shmem.quiet()
    assert f[0] == n and c[1] == n + 1
    shmem.barrier_all()
    shmem.free(c)
    shmem.free(olds)


@pytest.mark.parametrize("dtype", AMO)
def test_amo_compare_swap(me, n, dtype):
    w = shmem.full(1, 1000, dtype)
    old = shmem.atomic_compare_swap(w, 1000, me, 0)  # exactly one PE wins
    won = shmem.zeros(1, "int32")
    src = shmem.array([1 if old == 1000 else 0], "int32")
    shmem.sum_reduce(won, src)
    assert won[0] == 1
    shmem.barrier_all()
    winner = shmem.g(w, 0)
    assert 0 <= winner < n and (old == 1000) == (winner == me)
    assert shmem.atomic_compare_swap(w, 12345, 7, me) == (winner if me == 0 else 1000)  # no swap: cond differs
    shmem.barrier_all()
    f = np.zeros(1, dtype)
    shmem.atomic_compare_swap_nbi(f, w, w[0], 77, me)  # own word: swaps
    shmem.quiet()
    assert f[0] == (winner if me == 0 else 1000) and w[0] == 77
    shmem.barrier_all()
    shmem.free(w)
    shmem.free(src)
    shmem.free(won)


@pytest.mark.parametrize("dtype", AMO)
def test_amo_bitwise(me, n, dtype):
    bits = np.array(1, dtype) << np.array(me % 30, dtype)  # n <= 30 PEs
    mask = np.bitwise_or.reduce([np.array(1, dtype) << np.array(p % 30, dtype) for p in range(n)])
    ones = ~np.array(0, dtype)
    w = shmem.array([0, ones, 0], dtype)  # or, and, xor on PE 0
    shmem.atomic_or(w[0:1], bits, 0)
    shmem.atomic_and(w[1:2], ~bits, 0)
    shmem.atomic_xor(w[2:3], bits, 0)
    shmem.barrier_all()
    if me == 0:
        assert w[0] == mask and w[1] == ones & ~mask and w[2] == mask
    shmem.barrier_all()
    mine = shmem.array([0b1100], dtype)  # on own words: fetch forms are deterministic
    assert shmem.atomic_fetch_or(mine, 0b0011, me) == 0b1100 and mine[0] == 0b1111
    assert shmem.atomic_fetch_and(mine, 0b0110, me) == 0b1111 and mine[0] == 0b0110
    assert shmem.atomic_fetch_xor(mine, 0b0101, me) == 0b0110 and mine[0] == 0b0011
    f = np.zeros(1, dtype)
    for fn, operand, before, after in [(shmem.atomic_fetch_or_nbi, 0b1000, 0b0011, 0b1011),
                                       (shmem.atomic_fetch_and_nbi, 0b1001, 0b1011, 0b1001),
                                       (shmem.atomic_fetch_xor_nbi, 0b1111, 0b1001, 0b0110)]:
        fn(f, mine, operand, me)
        shmem.quiet()
        assert f[0] == before and mine[0] == after
    shmem.barrier_all()
    shmem.free(w)
    shmem.free(mine)


def test_amo_op_family(me):
    w = shmem.zeros(1, "int64")
    shmem.atomic_op(w, 5, shmem.AMO_ADD, me)
    shmem.atomic_op(w, None, "inc", me)
    assert shmem.atomic_fetch_op(w, 2, shmem.AMO_SET, me) == 6 and w[0] == 2
    f = np.zeros(1, "int64")
    shmem.atomic_fetch_op_nbi(f, w, 3, "xor", me)
    shmem.quiet()
    assert f[0] == 2 and w[0] == 1
    shmem.barrier_all()
    shmem.free(w)


# ---- signals ------------------------------------------------------------------------------------

def test_put_signal(me, n):
    nxt, prv = neighbours()
    data = shmem.zeros(5, "float64")
    sig = shmem.new_signal()
    shmem.barrier_all()
    shmem.put_signal(data, np.arange(5.0) + me, sig, me + 1, shmem.SIGNAL_SET, nxt)
    assert shmem.signal_wait_until(sig, shmem.CMP_EQ, prv + 1) == prv + 1
    np.testing.assert_array_equal(data, np.arange(5.0) + prv)
    assert shmem.signal_fetch(sig) == prv + 1
    shmem.barrier_all()
    total = shmem.new_signal()
    shmem.barrier_all()
    for pe in range(n):  # every PE adds me + 1 to every PE's total
        shmem.put_signal_nbi(data[me % 5:], np.array([1.0]), total, me + 1, shmem.SIGNAL_ADD, pe, size=1)
    shmem.quiet()
    assert shmem.signal_wait_until(total, ">=", n * (n + 1) // 2) == n * (n + 1) // 2
    shmem.barrier_all()
    for s in (data, sig, total):
        shmem.free(s)


# ---- point-to-point synchronization -------------------------------------------------------------

@pytest.mark.parametrize("dtype", ["int32", "int64", "uint64", "int16"])
def test_wait_test(me, n, dtype):
    ivars = shmem.zeros(n, dtype)
    assert not shmem.test(ivars[me:], shmem.CMP_EQ, 1)
    assert not shmem.test_all(ivars, shmem.CMP_EQ, 1) and shmem.test_any(ivars, "==", 1) is None
    assert shmem.test_some(ivars, shmem.CMP_NE, 0) == []
    shmem.barrier_all()  # nobody writes before everyone tested the zeros
    for pe in range(n):
        shmem.p(ivars[me:], me + 1, pe)  # slot `me` of every PE: me + 1
    nxt, prv = neighbours()
    shmem.wait_until(ivars[prv:], shmem.CMP_EQ, prv + 1)
    assert shmem.test(ivars[prv:], "ge", prv + 1)
    shmem.wait_until_all(ivars, shmem.CMP_GT, 0)
    values = np.arange(1, n + 1)
    np.testing.assert_array_equal(ivars, values)
    assert shmem.test_all(ivars, shmem.CMP_GE, 1)
    assert shmem.wait_until_any(ivars, shmem.CMP_EQ, me + 1) == me
    assert sorted(shmem.wait_until_some(ivars, shmem.CMP_LE, 2)) == list(range(min(n, 2)))
    status = np.zeros(n, "int32")
    status[0] = 1  # excluded
    assert shmem.test_any(ivars, shmem.CMP_EQ, 1, status) is None
    assert shmem.wait_until_any(ivars, shmem.CMP_EQ, 1, status=np.ones(n)) is None  # all excluded: returns
    shmem.wait_until_all(ivars, shmem.CMP_EQ, 1, status=1 - (np.arange(n) == 0))  # only slot 0, which is 1
    assert sorted(shmem.test_some(ivars, shmem.CMP_GE, 1, status)) == list(range(1, n))
    shmem.wait_until_all_vector(ivars, shmem.CMP_EQ, values)
    assert shmem.test_all_vector(ivars, shmem.CMP_EQ, values)
    assert not shmem.test_all_vector(ivars, shmem.CMP_NE, values)
    shifted = values.copy()
    shifted[-1] = 0
    assert shmem.wait_until_any_vector(ivars, shmem.CMP_GT, shifted) == n - 1
    assert shmem.test_any_vector(ivars, shmem.CMP_GT, shifted) == n - 1
    assert shmem.wait_until_some_vector(ivars, shmem.CMP_LE, values - np.arange(n) % 2) == list(range(0, n, 2))
    assert sorted(shmem.test_some_vector(ivars, shmem.CMP_EQ, values, status)) == list(range(1, n))
    shmem.barrier_all()
    shmem.free(ivars)


# ---- ordering, synchronization and teams --------------------------------------------------------

def test_quiet_fence_barriers(me, n):
    nxt, prv = neighbours()
    a = shmem.zeros(2, "int64")
    shmem.put(a[0:], np.array([me + 1]), nxt)
    shmem.fence()
    shmem.put(a[1:], np.array([me + 2]), nxt)
    shmem.quiet()
    shmem.sync_all()
    np.testing.assert_array_equal(a, [prv + 1, prv + 2])
    shmem.sync()
    shmem.sync(shmem.TEAM_WORLD)
    shmem.TEAM_WORLD.sync()
    shmem.barrier_all()
    shmem.free(a)


def test_team_world_shared(me, n):
    w = shmem.TEAM_WORLD
    assert w.my_pe() == me and w.n_pes() == n and bool(w)
    assert w.get_config() == {"num_contexts": w.get_config()["num_contexts"]}
    assert w.translate_pe() == me and w.translate_pe(n - 1, shmem.TEAM_SHARED) == n - 1
    assert shmem.TEAM_SHARED.n_pes() == n and shmem.TEAM_SHARED.my_pe() == me  # one host
    assert not shmem.TEAM_INVALID
    w.destroy()  # predefined: nothing
    assert w.n_pes() == n


def test_split_strided(me, n):
    s = shmem.array([me + 1], "int64")  # allocation is collective over the world: before the split
    t = shmem.zeros(1, "int64")
    even = shmem.TEAM_WORLD.split_strided(0, 2)
    if me % 2:
        assert even is None
    else:
        assert even.n_pes() == (n + 1) // 2 and even.my_pe() == me // 2
        assert even.translate_pe(even.n_pes() - 1, shmem.TEAM_WORLD) == 2 * (even.n_pes() - 1)
        assert shmem.TEAM_WORLD.translate_pe(me, even) == me // 2
        assert n == 1 or shmem.TEAM_WORLD.translate_pe(1, even) == -1
        shmem.sum_reduce(t, s, team=even)
        assert t[0] == sum(p + 1 for p in range(0, n, 2))
        shmem.sync(even)
        first = even.split_strided(0, 1, 1, config={"num_contexts": 1})  # team PE 0 alone
        assert (first is not None) == (me == 0)
        if first is not None:
            with first:  # destroys it
                assert first.n_pes() == 1 and first.get_config()["num_contexts"] == 1
            assert not first
        even.destroy()
        with pytest.raises(ValueError, match="destroyed"):
            even.n_pes()
    shmem.barrier_all()
    shmem.free(s)
    shmem.free(t)


def test_split_2d(me, n):
    xrange = 2
    xteam, yteam = shmem.TEAM_WORLD.split_2d(xrange)
    with xteam, yteam:
        assert xteam.my_pe() == me % xrange and xteam.n_pes() == min(xrange, n - me // xrange * xrange)
        assert yteam.my_pe() == me // xrange and yteam.n_pes() == len(range(me % xrange, n, xrange))
        assert xteam.translate_pe(0, shmem.TEAM_WORLD) == me // xrange * xrange
        assert yteam.translate_pe(0, shmem.TEAM_WORLD) == me % xrange
        xteam.sync()
        yteam.sync()
    assert not xteam and not yteam  # destroyed by the with block


def test_contexts(me, n):
    nxt, prv = neighbours()
    a = shmem.zeros(3, "int32")
    with shmem.ctx_create(shmem.CTX_PRIVATE | shmem.CTX_SERIALIZED) as ctx:
        assert ctx.get_team() == shmem.TEAM_WORLD
        shmem.put(a, np.array([me, me, me], "int32"), nxt, ctx=ctx)
        shmem.atomic_add(a[2:], 10, nxt, ctx=ctx)
        shmem.quiet(ctx)
        ctx.fence()
        ctx.quiet()
        shmem.barrier_all()
        np.testing.assert_array_equal(a, [prv, prv, prv + 10])
        assert shmem.g(a, nxt, ctx=ctx) == me and shmem.atomic_fetch(a[2:], nxt, ctx) == me + 10
        shmem.fence(ctx)
        shmem.barrier_all()  # read before the owner changes it below
    assert not ctx
    with pytest.raises(ValueError, match="ctx"):
        shmem.put(a, np.zeros(3, "int32"), nxt, ctx=ctx)
    c2 = shmem.Ctx.create(shmem.CTX_NOSTORE, shmem.TEAM_WORLD)
    c3 = shmem.TEAM_WORLD.create_ctx()
    shmem.p(a, 5, me, c2)
    assert shmem.g(a, me, c3) == 5
    c2.destroy()
    c3.destroy()
    assert shmem.CTX_DEFAULT.get_team() == shmem.TEAM_WORLD
    shmem.CTX_DEFAULT.destroy()  # predefined: nothing
    shmem.p(a, 6, me, shmem.CTX_DEFAULT)
    assert a[0] == 6
    shmem.barrier_all()
    shmem.free(a)


def test_locks(me, n):
    rounds = 20
    counter = shmem.zeros(1, "int64")
    lock = shmem.Lock()
    for _ in range(rounds):  # a read-modify-write that is only right under the lock
        with lock:
            shmem.p(counter, shmem.g(counter, 0) + 1, 0)
    shmem.barrier_all()
    assert shmem.g(counter, 0) == n * rounds
    word = shmem.new_lock()
    shmem.barrier_all()
    if me == 0:
        shmem.set_lock(word)
    shmem.barrier_all()
    if me != 0:
        assert shmem.test_lock(word)  # held by PE 0: not taken
    else:
        assert lock.acquire(blocking=False)  # free: taken
        assert lock.test()  # held (by this PE): not taken again
        lock.release()
    shmem.barrier_all()
    if me == 0:
        shmem.clear_lock(word)
    shmem.barrier_all()
    for _ in range(2):
        while shmem.test_lock(word):  # takes it when free
            pass
        shmem.atomic_inc(counter, 0)
        shmem.clear_lock(word)
    shmem.barrier_all()
    assert shmem.g(counter, 0) == n * rounds + 2 * n
    lock.destroy()
    shmem.del_lock(word)
    shmem.free(counter)


# ---- collectives ----------------------------------------------------------------------------------

@pytest.mark.parametrize("dtype", ["int8", "int64", "float16", "float64", "complex128"])
def test_broadcast_fcollect_alltoall(me, n, dtype):
    root = n - 1
    src = shmem.array((np.arange(4) + 10 * me) % 100, dtype)
    dst = shmem.zeros(4, dtype)
    shmem.broadcast(dst, src, root)
    np.testing.assert_array_equal(dst, ((np.arange(4) + 10 * root) % 100).astype(dtype))
    gathered = shmem.zeros(4 * n, dtype)
    shmem.fcollect(gathered, src)
    np.testing.assert_array_equal(gathered, np.concatenate([(np.arange(4) + 10 * p) % 100 for p in range(n)])
                                  .astype(dtype))
    blocks = shmem.array([(10 * me + j) % 100 for j in range(n) for _ in range(2)], dtype)  # block j: 2 elements
    got = shmem.zeros(2 * n, dtype)
    shmem.alltoall(got, blocks)
    np.testing.assert_array_equal(got, np.array([(10 * p + me) % 100 for p in range(n) for _ in range(2)], dtype))
    for a in (src, dst, gathered, blocks, got):
        shmem.free(a)


def test_collect_alltoalls(me, n):
    src = shmem.array(np.arange(n) + 100 * me, "int32")  # PE p contributes p + 1 elements
    total = n * (n + 1) // 2
    dst = shmem.full(total + 1, -1, "int32")
    shmem.collect(dst, src, me + 1)
    expect = np.concatenate([np.arange(p + 1) + 100 * p for p in range(n)] + [[-1]])
    np.testing.assert_array_equal(dst, expect)
    k, sst, tst = 2, 3, 2  # block j of source: elements [(j*k + e) * sst]
    s = shmem.zeros(n * k * sst, "float64")
    s[::sst] = [100 * me + i for i in range(n * k)]
    t = shmem.zeros(n * k * tst, "float64")
    shmem.alltoalls(t, s, tst, sst, k)
    np.testing.assert_array_equal(t[::tst], [100 * p + me * k + e for p in range(n) for e in range(k)])
    np.testing.assert_array_equal(t[1::tst], 0)
    for a in (src, dst, s, t):
        shmem.free(a)


def reduce_inputs(op, dtype, n, count=6):
    """PE p's source for `op`: small values whose reduction is exact in every type."""
    i = np.arange(count)
    out = []
    for p in range(n):
        if op in ("and", "or", "xor"):
            v = (p * 37 + i * 11 + 5) % 64
        elif op in ("max", "min"):
            v = (p * 5 + i * 3) % 11
            v = v * 0.5 - 1 if np.dtype(dtype).kind in "fc" else v
        elif op == "sum":
            v = (p + i) % 5 if np.dtype(dtype).kind in "iu" else (p + i) * 0.25 + 1j * (p - i)
        else:
            v = 1 + (p + i) % 2 if np.dtype(dtype).kind in "iu" else (1 + (p + i) % 2) * 0.5 + 0.5j * ((p * i) % 2)
        out.append(np.asarray(v if np.dtype(dtype).kind == "c" else np.real(v)).astype(dtype))
    return out


NP_REDUCE = {"and": np.bitwise_and.reduce, "or": np.bitwise_or.reduce, "xor": np.bitwise_xor.reduce,
             "max": np.maximum.reduce, "min": np.minimum.reduce, "sum": np.add.reduce, "prod": np.multiply.reduce}
REDUCE_CASES = ([(op, t) for op in ("and", "or", "xor") for t in ("int32", "int64", "uint8", "uint64")]
                + [(op, t) for op in ("max", "min") for t in ("int32", "int64", "uint16", "float32", "float64")]
                + [(op, t) for op in ("sum", "prod")
                   for t in ("int32", "int64", "uint32", "float32", "float64", "complex64", "complex128")])


@pytest.mark.parametrize("op,dtype", REDUCE_CASES)
def test_reduce(me, n, op, dtype):
    xs = reduce_inputs(op, dtype, n)
    expect = NP_REDUCE[op](np.stack(xs), axis=0).astype(dtype)
    src = shmem.array(xs[me])
    dst = shmem.zeros(len(expect) + 1, dtype)
    shmem.reduce(dst, src, op)
    np.testing.assert_array_equal(dst[:-1], expect)
    assert dst[-1] == 0
    dst[:] = 0
    getattr(shmem, f"{op}_reduce")(dst, src, 4)  # the named form, on the first 4
    np.testing.assert_array_equal(dst, np.concatenate([expect[:4], np.zeros(3, dtype)]))
    shmem.reduce(dst, src, getattr(shmem, op.upper()), size=2, team=shmem.TEAM_WORLD)
    np.testing.assert_array_equal(dst[:2], expect[:2])
    shmem.free(src)
    shmem.free(dst)


# ---- errors ---------------------------------------------------------------------------------------

def test_argument_errors(me, n):
    a = shmem.zeros(4, "int32")
    loc = np.zeros(4, "int32")
    with pytest.raises(TypeError, match="'source' must be a numpy.ndarray"):
        shmem.put(a, [1, 2, 3, 4], me)
    with pytest.raises(ValueError, match="'target' is not symmetric"):
        shmem.put(loc, loc, me)
    with pytest.raises(ValueError, match="'source' is not symmetric"):
        shmem.get(loc, loc, me)
    with pytest.raises(TypeError, match="'target' has element type int32 and argument 'source' float64"):
        shmem.put(a, np.zeros(4), me)
    with pytest.raises(ValueError, match="'source' is not contiguous"):
        shmem.put(a, np.zeros(8, "int32")[::2], me)
    with pytest.raises(ValueError, match="'target' is read-only"):
        ro = np.zeros(4, "int32")
        ro.flags.writeable = False
        shmem.get(ro, a, me)
    with pytest.raises(ValueError, match="'source' has 4 elements; the call needs 5"):
        shmem.put(a, loc, me, size=5)
    with pytest.raises(ValueError, match="'target' has 4 elements; the call needs 5"):
        shmem.put(a, np.zeros(5, "int32"), me)
    shmem.put(a[2:], loc, me, size=2)  # a view inside an allocation is symmetric
    with pytest.raises(TypeError, match="'size'"):
        shmem.put(a, loc, me, size=-1)
    with pytest.raises(ValueError, match="'tst'"):
        shmem.iput(a, loc, 0, 1, 2, me)
    with pytest.raises(TypeError, match="atomic_add: argument 'target' has element type float64; atomic_add takes "
                                        "int32, int64, uint32, uint64"):
        shmem.atomic_add(shmem.zeros(1), 1, me)
    with pytest.raises(TypeError, match="atomic_fetch_and: argument 'target' has element type float32"):
        shmem.atomic_fetch_and(shmem.zeros(1, "float32"), 1, me)
    with pytest.raises(TypeError, match="argument 'value'"):
        shmem.atomic_add(a, 1.5, me)
    with pytest.raises(TypeError, match="argument 'value'"):
        shmem.atomic_set(shmem.zeros(1, "uint32"), -1, me)
    with pytest.raises(ValueError, match="'target' is empty"):
        shmem.atomic_inc(a[4:], me)
    with pytest.raises(TypeError, match="'fetch' has element type int64 and argument 'target' int32"):
        shmem.atomic_fetch_inc_nbi(np.zeros(1, "int64"), a, me)
    with pytest.raises(TypeError, match="and_reduce: argument 'target' has element type float64"):
        shmem.reduce(shmem.zeros(2), shmem.zeros(2), "and")
    with pytest.raises(TypeError, match="max_reduce: argument 'target' has element type complex128"):
        shmem.max_reduce(shmem.zeros(2, "complex128"), shmem.zeros(2, "complex128"))
    with pytest.raises(ValueError, match="argument 'op'"):
        shmem.reduce(a, a, "avg")
    with pytest.raises(ValueError, match="argument 'cmp'"):
        shmem.test(a, "~", 0)
    with pytest.raises(TypeError, match="'ivars' has element type float64"):
        shmem.wait_until_all(shmem.zeros(2), shmem.CMP_EQ, 0)
    with pytest.raises(ValueError, match="'status' has 1 elements; the call needs 4"):
        shmem.test_all(a, shmem.CMP_EQ, 0, [0])
    with pytest.raises(TypeError, match="'sig_addr' has element type int32; signal_fetch takes uint64"):
        shmem.signal_fetch(a)
    with pytest.raises(ValueError, match="'sig_op'"):
        shmem.put_signal(a, loc, shmem.new_signal(), 1, 7, me)
    with pytest.raises(TypeError, match="'lock' has element type int32; set_lock takes int64"):
        shmem.set_lock(a)
    with pytest.raises(TypeError, match="argument 'ctx' must be a tilecomm.shmem.Ctx"):
        shmem.put(a, loc, me, ctx=shmem.TEAM_WORLD)
    with pytest.raises(TypeError, match="argument 'team' must be a tilecomm.shmem.Team"):
        shmem.sync("world")
    with pytest.raises(TypeError, match="p: argument 'target' has element type float16"):
        shmem.p(shmem.zeros(1, "float16"), 1.0, me)
    shmem.barrier_all()
    shmem.free_dropped()


def test_library_errors(me, n):
    a = shmem.zeros(4, "int32")
    loc = np.zeros(4, "int32")
    for call in (lambda: shmem.put(a, loc, n), lambda: shmem.get(loc, a, -1), lambda: shmem.p(a, 1, n + 3),
                 lambda: shmem.atomic_fetch_add(a, 1, n), lambda: shmem.put_signal(a, loc, shmem.new_signal(), 1,
                                                                                   shmem.SIGNAL_SET, n)):
        with pytest.raises(tilecomm.Error, match=f"PE -?{n}|PE -1|out of range") as e:
            call()
        assert isinstance(e.value, tilecomm.UsageError) and "out of range" in str(e.value)
    with pytest.raises(tilecomm.Error, match="out of range"):
        shmem.broadcast(a, a, n)  # a bad root: every PE refuses it, so the collective does not start
    shmem.barrier_all()
    shmem.free(a)


SUBPROCESS_ENV = {k: v for k, v in os.environ.items() if not k.startswith("TILECOMM_")} | {"TILECOMM_TIMEOUT": "60"}


def run_alone(code):
    """`code` in a job of one PE of its own (no launcher variables)."""
    return subprocess.run([sys.executable, "-c", "import numpy as np\nfrom tilecomm import shmem\n" + code],
                          env=SUBPROCESS_ENV, capture_output=True, text=True, timeout=120)


def test_dropped_arrays_are_freed_at_a_collective_point(me, n):
    from tilecomm import _tilecomm
    live, dropped = _tilecomm.heap_live()
    a, b = shmem.zeros(8, "int64"), shmem.zeros(8, "int64")
    assert _tilecomm.heap_live() == (live + 2, dropped)
    del a  # dropped on every PE: freed at the next collective point
    if me == 0:
        del b  # dropped on one PE only: kept until every PE dropped it
    assert _tilecomm.heap_live() == (live + (0 if me == 0 else 1), dropped + (2 if me == 0 else 1))
    shmem.free_dropped()  # a, and b where every PE dropped it (one PE: this one)
    assert _tilecomm.heap_live() == (live + (0 if me == 0 else 1), dropped + (1 if me == 0 and n > 1 else 0))
    c = shmem.zeros(8, "int64")  # symmetric still: every PE's allocations stayed in step
    shmem.put(c, np.full(8, me, "int64"), (me + 1) % n)
    shmem.barrier_all()
    np.testing.assert_array_equal(c, np.full(8, (me - 1) % n))
    if me != 0:
        del b
    shmem.free(c)  # frees b too, now dropped everywhere
    assert _tilecomm.heap_live() == (live, dropped)


def test_after_finalize():
    r = run_alone("""
shmem.init()
a = shmem.zeros(2, "int64")
shmem.finalize()
print(list(a))  # the array keeps its values
for call in (lambda: shmem.my_pe(), lambda: shmem.put(a, np.zeros(2, "int64"), 0), lambda: shmem.barrier_all(),
             lambda: shmem.TEAM_WORLD.n_pes(), lambda: shmem.quiet(), lambda: shmem.atomic_inc(a, 0)):
    try:
        call()
        print("no error")
    except Exception as e:
        print(type(e).__name__, e)
""")
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    assert lines[0] == "[0, 0]" and len(lines) == 7 and "no error" not in r.stdout
    assert "finalize" in lines[1] and "finalized" in lines[2]


def test_global_exit():
    r = run_alone("shmem.init()\nshmem.global_exit(7)\nprint('not reached')")
    assert r.returncode == 7 and "not reached" not in r.stdout
