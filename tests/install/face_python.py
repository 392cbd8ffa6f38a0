"""The Python face from an installed prefix: OpenSHMEM on arrays, the communicator, the torch backend."""
import numpy as np

import tilecomm
from tilecomm import shmem

shmem.init()
me, n = shmem.my_pe(), shmem.n_pes()
a = shmem.zeros(4, "int64")
shmem.put(a, np.full(4, me, "int64"), (me + 1) % n)
shmem.barrier_all()
assert list(a) == [(me - 1) % n] * 4, a
comm = tilecomm.Comm(window_bytes=1 << 16)
assert list(comm.all_reduce(np.full(3, me + 1.0))) == [n * (n + 1) / 2] * 3
comm.destroy()
try:
    import torch
    import torch.distributed as dist
    import tilecomm.torch  # noqa: F401
except ImportError:
    torch = None
if torch is not None:
    dist.init_process_group("tilecomm")
    t = torch.ones(2, dtype=torch.bfloat16)
    dist.all_reduce(t)
    assert t.tolist() == [float(n)] * 2, t
    dist.destroy_process_group()
shmem.free(a)
shmem.finalize()
print(f"face python: ok on {n} PEs")
