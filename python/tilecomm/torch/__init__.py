"""tilecomm for PyTorch: tensors on the symmetric heap, and the torch.distributed backend "tilecomm".

    import torch.distributed as dist
    import tilecomm.torch                      # registers the backend
    dist.init_process_group("tilecomm")        # torchrun's environment, or a tilecomm launcher (tcrun)
    dist.all_reduce(t)
    x = tilecomm.torch.zeros((4, 4), torch.bfloat16)   # storage on the symmetric heap: shmem RMA works on it

The backend (tilecomm/torch/backend.py) runs each call on tilecomm's
communicator operators (the same as tilecomm.Comm's) and its point-to-point
mailboxes; NOTE [torch backend] there says how, and what differs from gloo.
"""
import torch as _torch

from .. import shmem as _shmem
from ..comm import as_array  # noqa: F401  (the tensor -> array view the package uses)
from . import backend as _backend
from .backend import ProcessGroupTilecomm, launched_by_tilecomm  # noqa: F401

_BITS = {_torch.bfloat16: _torch.int16}  # types NumPy lacks: allocated as their bits


def empty(shape, dtype=_torch.float32):
    """Collective: a tensor whose storage is an array of the symmetric heap (free with tilecomm.shmem.free)."""
    shape = (shape,) if isinstance(shape, int) else tuple(shape)
    bits = _BITS.get(dtype, dtype)
    array = _shmem.empty(shape, _torch.empty(0, dtype=bits).numpy().dtype)
    t = _torch.from_numpy(array)
    return t.view(dtype) if bits is not dtype else t


def zeros(shape, dtype=_torch.float32):
    t = empty(shape, dtype)
    t.zero_()
    return t


def free(tensor):
    """Collective: frees a tensor made by empty/zeros (as tilecomm.shmem.free)."""
    bits = _BITS.get(tensor.dtype)
    _shmem.free((tensor.view(bits) if bits is not None else tensor).numpy())


_backend.register()
