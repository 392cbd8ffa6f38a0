"""OpenSHMEM 1.5 on NumPy arrays (names follow shmem4py).

    from tilecomm import shmem
    with shmem.session():                     # init ... finalize
        a = shmem.zeros(4, dtype="int64")     # collective: an array of the symmetric heap
        shmem.put(a, numpy.arange(4), (shmem.my_pe() + 1) % shmem.n_pes())
        shmem.barrier_all()
        shmem.free(a)                         # collective, explicit (NOTE [freeing arrays])

Remote (symmetric) arguments are arrays of shmem.empty/zeros/...; local ones
any C-contiguous numpy.ndarray. AMOs, waits and locks act on the first element
of their array (pass a[i:i+1] for element i). Every RMA, AMO and signal call
takes ctx= (default CTX_DEFAULT); every collective team= (default TEAM_WORLD).
Errors the library finds raise tilecomm.Error (its kinds); wrong arguments
TypeError or ValueError naming the argument.
"""
import contextlib as _contextlib
import enum as _enum

import numpy as _np

from . import _tilecomm
from ._tilecomm import (  # noqa: F401  (re-exported)
    init, finalize, initialized, finalized, free, my_pe, n_pes, pe_accessible, addr_accessible, ptr,
    info_get_version, info_get_name, query_thread, global_exit, pcontrol,
    MAJOR_VERSION, MINOR_VERSION, VENDOR_STRING,
    Team, TEAM_WORLD, TEAM_SHARED, TEAM_INVALID, Ctx, CTX_DEFAULT, CTX_INVALID, ctx_create,
    put, get, put_nbi, get_nbi, iput, iget, p, g,
    atomic_fetch, atomic_set, atomic_compare_swap, atomic_swap, atomic_fetch_inc, atomic_inc, atomic_fetch_add,
    atomic_add, atomic_fetch_and, atomic_and, atomic_fetch_or, atomic_or, atomic_fetch_xor, atomic_xor,
    atomic_fetch_nbi, atomic_compare_swap_nbi, atomic_swap_nbi, atomic_fetch_inc_nbi, atomic_fetch_add_nbi,
    atomic_fetch_and_nbi, atomic_fetch_or_nbi, atomic_fetch_xor_nbi,
    put_signal, put_signal_nbi, signal_fetch, signal_wait_until,
    wait_until, test, wait_until_all, wait_until_any, wait_until_some, wait_until_all_vector,
    wait_until_any_vector, wait_until_some_vector, test_all, test_any, test_some, test_all_vector,
    test_any_vector, test_some_vector,
    quiet, fence, barrier_all, sync_all, sync, set_lock, test_lock, clear_lock,
    broadcast, collect, fcollect, alltoall, alltoalls, free_dropped,
    and_reduce, or_reduce, xor_reduce, max_reduce, min_reduce, sum_reduce, prod_reduce,
)


class THREAD(_enum.IntEnum):
    """Thread levels of init_thread."""
    SINGLE = _tilecomm.THREAD_SINGLE
    FUNNELED = _tilecomm.THREAD_FUNNELED
    SERIALIZED = _tilecomm.THREAD_SERIALIZED
    MULTIPLE = _tilecomm.THREAD_MULTIPLE


class CMP(_enum.IntEnum):
    """Comparisons of the wait/test family (strings '==', '!=', '>', '>=', '<', '<=' work too)."""
    EQ = _tilecomm.CMP_EQ
    NE = _tilecomm.CMP_NE
    GT = _tilecomm.CMP_GT
    GE = _tilecomm.CMP_GE
    LT = _tilecomm.CMP_LT
    LE = _tilecomm.CMP_LE


class SIGNAL(_enum.IntEnum):
    """How put_signal updates the signal: set it, or add to it."""
    SET = _tilecomm.SIGNAL_SET
    ADD = _tilecomm.SIGNAL_ADD


class CTX(_enum.IntFlag):
    """Options of ctx_create (or them together)."""
    SERIALIZED = _tilecomm.CTX_SERIALIZED
    PRIVATE = _tilecomm.CTX_PRIVATE
    NOSTORE = _tilecomm.CTX_NOSTORE


class OP(_enum.StrEnum):
    """Reduction operations of reduce()."""
    AND = "and"
    OR = "or"
    XOR = "xor"
    MAX = "max"
    MIN = "min"
    SUM = "sum"
    PROD = "prod"


class AMO(_enum.StrEnum):
    """Operations of atomic_op / atomic_fetch_op (shmem4py)."""
    SET = "set"
    INC = "inc"
    ADD = "add"
    AND = "and"
    OR = "or"
    XOR = "xor"


THREAD_SINGLE, THREAD_FUNNELED, THREAD_SERIALIZED, THREAD_MULTIPLE = THREAD
CMP_EQ, CMP_NE, CMP_GT, CMP_GE, CMP_LT, CMP_LE = CMP
SIGNAL_SET, SIGNAL_ADD = SIGNAL
CTX_SERIALIZED, CTX_PRIVATE, CTX_NOSTORE = CTX
AND, OR, XOR, MAX, MIN, SUM, PROD = OP
OP_AND, OP_OR, OP_XOR, OP_MAX, OP_MIN, OP_SUM, OP_PROD = OP
AMO_SET, AMO_INC, AMO_ADD, AMO_AND, AMO_OR, AMO_XOR = AMO


# ---- setup ------------------------------------------------------------------------------

def init_thread(requested=THREAD_MULTIPLE):
    """Starts this PE asking for thread level `requested`; returns the level provided."""
    return THREAD(init(requested))


@_contextlib.contextmanager
def session(thread_level=THREAD_SINGLE):
    """Context manager: ``with shmem.session(): ...`` runs init (unless already done) and finalize at the end.

    Yields the thread level provided. An exception leaves the block without finalize (a collective the
    other PEs may never reach): the process ends, and the launcher ends the job naming this PE.
    """
    provided = init(thread_level) if not initialized() else query_thread()
    yield THREAD(provided)
    finalize()


# ---- symmetric arrays ---------------------------------------------------------------------

def empty(shape, dtype=float, align=64):
    """Collective: an uninitialised array of the symmetric heap.

    Free it with free(array) (collective). An array whose last reference goes away is freed at the next
    collective allocation call (empty/zeros/..., free, free_dropped) where every PE dropped it: never by the
    garbage collector, which may run at another point on every PE (NOTE [freeing arrays] in python/src/heap.cpp).
    """
    dtype = _np.dtype(dtype)
    shape = (shape,) if _np.isscalar(shape) else tuple(shape)
    count = int(_np.prod(shape, dtype=_np.int64))
    mem = _tilecomm.alloc(count * dtype.itemsize, align)
    return _np.frombuffer(mem, dtype=dtype, count=count).reshape(shape)


def full(shape, value, dtype=None):
    """Collective: an array of the symmetric heap filled with `value` on every PE before any PE returns."""
    a = empty(shape, _np.asarray(value).dtype if dtype is None else dtype)
    a.fill(value)
    barrier_all()  # no PE writes into a peer's array before the peer filled it
    return a


def zeros(shape, dtype=float):
    """Collective: a zero-filled array of the symmetric heap."""
    return full(shape, 0, dtype)


def ones(shape, dtype=float):
    """Collective: an array of the symmetric heap filled with ones."""
    return full(shape, 1, dtype)


def array(obj, dtype=None):
    """Collective: an array of the symmetric heap holding a copy of `obj` (same shape on every PE)."""
    src = _np.asarray(obj, dtype=dtype)
    a = empty(src.shape, src.dtype)
    a[...] = src
    barrier_all()
    return a


def empty_like(a, dtype=None):
    """Collective: empty() with a's shape and dtype."""
    return empty(_np.shape(a), _np.asarray(a).dtype if dtype is None else dtype)


def zeros_like(a, dtype=None):
    """Collective: zeros() with a's shape and dtype."""
    return zeros(_np.shape(a), _np.asarray(a).dtype if dtype is None else dtype)


def ones_like(a, dtype=None):
    """Collective: ones() with a's shape and dtype."""
    return ones(_np.shape(a), _np.asarray(a).dtype if dtype is None else dtype)


def full_like(a, value, dtype=None):
    """Collective: full() with a's shape and dtype."""
    return full(_np.shape(a), value, _np.asarray(a).dtype if dtype is None else dtype)


def new_array(shape, dtype=float):
    """shmem4py's name for zeros()."""
    return zeros(shape, dtype)


del_array = free


def new_signal():
    """Collective: a symmetric uint64 signal (a 1-element array, zero); del_signal (free) ends it."""
    return zeros(1, _np.uint64)


del_signal = free


# ---- collectives that need Python-level defaults -------------------------------------------

_REDUCE = {OP.AND: and_reduce, OP.OR: or_reduce, OP.XOR: xor_reduce, OP.MAX: max_reduce, OP.MIN: min_reduce,
           OP.SUM: sum_reduce, OP.PROD: prod_reduce}


def reduce(target, source, op=OP_SUM, size=None, team=None):
    """Collective: the reduction `op` ('and', 'or', 'xor', 'max', 'min', 'sum', 'prod') of source into target."""
    try:
        fn = _REDUCE[OP(str(op).lower())]
    except ValueError:
        raise ValueError(f"reduce: argument 'op' ({op!r}) is not one of {', '.join(map(str, OP))}") from None
    fn(target, source, size, team)


# ---- atomic_op family of shmem4py ----------------------------------------------------------

def _amo(op):
    try:
        return AMO(str(op).lower())
    except ValueError:
        raise ValueError(f"argument 'op' ({op!r}) is not one of {', '.join(map(str, AMO))}") from None


def atomic_op(target, value, op, pe, ctx=None):
    """atomic_set/inc/add/and/or/xor chosen by `op` (AMO_*); `value` is ignored for inc."""
    op = _amo(op)
    if op is AMO.INC:
        return atomic_inc(target, pe, ctx)
    return globals()[f"atomic_{op}"](target, value, pe, ctx)


def atomic_fetch_op(target, value, op, pe, ctx=None):
    """atomic_swap (for set)/fetch_inc/fetch_add/fetch_and/... chosen by `op`; returns the old value."""
    op = _amo(op)
    if op is AMO.INC:
        return atomic_fetch_inc(target, pe, ctx)
    return globals()["atomic_swap" if op is AMO.SET else f"atomic_fetch_{op}"](target, value, pe, ctx)


def atomic_fetch_op_nbi(fetch, target, value, op, pe, ctx=None):
    """The _nbi form of atomic_fetch_op: the old value lands in `fetch[0]` at quiet."""
    op = _amo(op)
    if op is AMO.INC:
        return atomic_fetch_inc_nbi(fetch, target, pe, ctx)
    return globals()["atomic_swap_nbi" if op is AMO.SET else f"atomic_fetch_{op}_nbi"](fetch, target, value, pe, ctx)


# ---- locks -------------------------------------------------------------------------------

def new_lock():
    """Collective: a symmetric lock word (an int64 1-element array, zero: free) for set_lock and friends."""
    return zeros(1, _np.int64)


del_lock = free


class Lock:
    """A distributed lock over a symmetric int64 (OpenSHMEM's long).

    Making one is collective (it allocates), and so is destroy(). ``with lock:`` holds it for the block.
    """

    def __init__(self):
        self._word = new_lock()

    def acquire(self, blocking=True):
        """Takes the lock (set_lock); with blocking=False only if free, returning whether it was taken."""
        if blocking:
            set_lock(self._word)
            return True
        return not test_lock(self._word)

    def test(self):
        """test_lock: takes the lock if free and returns False; returns True (not taken) if another PE holds it."""
        return test_lock(self._word)

    def release(self):
        """Releases the lock (clear_lock: quiet first)."""
        clear_lock(self._word)

    def destroy(self):
        """Collective: frees the lock's word."""
        if self._word is not None:
            free(self._word)
            self._word = None

    def __enter__(self):
        self.acquire()
        return self

    def __exit__(self, *exc):
        self.release()
