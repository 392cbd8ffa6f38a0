"""A tour of tilecomm from Python, every result checked (make demo runs it on 4 PEs).

    PYTHONPATH=build/python build/tcrun -n 4 /usr/bin/python3 examples/python/tour.py
"""
import numpy as np

import tilecomm
from tilecomm import shmem

shmem.init()
me, n = shmem.my_pe(), shmem.n_pes()
say = print if me == 0 else (lambda *a: None)

# OpenSHMEM on NumPy arrays of the symmetric heap: a ring of puts, an atomic counter, a reduction.
ring = shmem.zeros(4, "float64")
shmem.put(ring, np.full(4, me, "float64"), (me + 1) % n)
counter = shmem.zeros(1, "int64")
shmem.atomic_add(counter, me + 1, 0)
mine, total = shmem.full(1, me, "int64"), shmem.zeros(1, "int64")
shmem.barrier_all()
shmem.sum_reduce(total, mine)
assert ring[0] == (me - 1) % n and total[0] == n * (n - 1) // 2
if me == 0:
    assert counter[0] == n * (n + 1) // 2
say(f"shmem: a ring of puts, an atomic counter at {counter[0]}, a sum reduction of {total[0]}")
for a in (ring, counter, mine, total):
    shmem.free(a)  # collective

# The communicator's operators on arrays, and a fused AllGather+Matmul against the same work unfused.
with tilecomm.Comm() as comm:
    x = np.arange(6, dtype=np.float32) + me
    assert np.array_equal(comm.all_reduce(x), sum(np.arange(6, dtype=np.float32) + r for r in range(n)))
    x1 = np.random.default_rng(me).standard_normal((64, 128)).astype(np.float32)
    w = np.random.default_rng(99).standard_normal((128, 32)).astype(np.float32)
    y = comm.all_gather_matmul(x1, w)
    assert np.allclose(y, comm.all_gather(x1).reshape(-1, 128) @ w, rtol=1e-4, atol=1e-4)
    say(f"Comm: all_reduce, and all_gather_matmul of {n} shards of 64 x 128 by 128 x 32 = {y.shape[0]} x 32")

# torch.distributed over tilecomm, where torch is installed.
try:
    import torch
    import torch.distributed as dist
    import tilecomm.torch  # noqa: F401  (registers the "tilecomm" backend)
except ImportError:
    say("torch: not installed here (python3-torch), its part of the tour is left out")
else:
    dist.init_process_group("tilecomm")
    t = torch.full((4,), float(me), dtype=torch.bfloat16)
    dist.all_reduce(t)
    assert t.tolist() == [float(n * (n - 1) // 2)] * 4
    say(f"torch: dist.all_reduce of bfloat16 tensors over the \"tilecomm\" backend gives {t[0].item():g}")
    dist.destroy_process_group()
shmem.finalize()
