"""tilecomm for Python.

    import tilecomm
    from tilecomm import shmem          # OpenSHMEM on NumPy arrays of the symmetric heap
    shmem.init()
    x = shmem.zeros(8, dtype="float32")
    comm = tilecomm.Comm()              # the communicator and its operators
    comm.all_reduce(x, out=x)
    import tilecomm.torch               # tensors on the symmetric heap, and the "tilecomm" backend

Start it under a launcher: ``tcrun -n 4 python3 prog.py`` (or mpirun, or
torchrun's environment for the torch backend). Errors are tilecomm.Error and
its kinds; each message names what failed, with the values, and what to change.
"""
import atexit as _atexit
import sys as _sys

from . import _tilecomm
from ._tilecomm import Error, UsageError, TimeoutError, RemoteError, __version__
from . import shmem
from .comm import Comm, DataType, ReduceOp, Request

__all__ = ["shmem", "Comm", "DataType", "ReduceOp", "Request", "Error", "UsageError", "TimeoutError",
           "RemoteError", "__version__", "info"]


def info():
    """What this tilecomm is: version, the interpreter it was built for, and the job (when started)."""
    from . import _build
    out = {"version": __version__, "python": _build.python}
    if _tilecomm.initialized():
        out.update(my_pe=shmem.my_pe(), n_pes=shmem.n_pes())
    return out


# A program that ends normally finalizes (collective, as every PE ends); one that ends with an exception does
# not, so that its peers are not held in a collective it never reaches: the launcher ends the job naming it.
_failed = False
_excepthook = _sys.excepthook


def _note_failure(*exc):
    global _failed
    _failed = True
    _excepthook(*exc)


def _at_exit():
    if _tilecomm.initialized() and not _failed:
        _tilecomm.finalize()


_sys.excepthook = _note_failure
_atexit.register(_at_exit)
