"""Where the time of a small torch.distributed call over the backend "tilecomm" goes: the layers from
tilecomm's binding up to dist.all_reduce, each timed alone on an 8-byte float32 all_reduce (bench/README.md,
"The Python face"). Run by every rank:

    tcrun -n 2 /usr/bin/python3 profile_backend.py [--iters N] [--rounds R]

Each line: a layer, its median time per call (rank 0; --rounds rounds of --iters calls, a barrier
around each round), and what it adds over the line before. The local lines (no communication) run on
every rank alike.
"""
import argparse
import statistics
import time

import numpy as np
import torch
import torch.distributed as dist

import tilecomm
import tilecomm.torch  # noqa: F401
from tilecomm import shmem
from tilecomm.comm import as_array
from tilecomm.torch import backend


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--iters", type=int, default=2000)
    p.add_argument("--rounds", type=int, default=9)
    args = p.parse_args()
    torch.set_num_threads(1)
    dist.init_process_group("tilecomm")
    rank = dist.get_rank()
    pg = dist.distributed_c10d._get_default_group()
    t = torch.zeros(2)
    a = t.numpy()
    comm = tilecomm.Comm()
    raw = comm._c.all_reduce
    pg_py = backend.ProcessGroupTilecomm  # the Python class: its allreduce called directly, without torch
    pg_obj = pg if isinstance(pg, pg_py) else None
    opts = dist.AllreduceOptions()
    rows = [
        ("local: as_array(tensor) (tensor -> numpy view)", lambda: as_array(t, "x"), False),
        ("local: torch.futures.Future + set_result + _create_work_from_future (_Done)",
         lambda: backend._Done([t]), False),
        ("local: dist.AllreduceOptions() + opts.reduceOp.op.name (_op)", lambda: backend._op(opts), False),
        ("binding: Comm._c.all_reduce(a, a, SUM) on numpy", lambda: raw(a, a, 0, dtype=-1, async_op=False), True),
        ("tilecomm.Comm.all_reduce(ndarray, out=ndarray)", lambda: comm.all_reduce(a, out=a), True),
        ("binding on the tensor's views: as_array(t) twice + Comm._c.all_reduce",
         lambda: raw(as_array(t, "x")[0], as_array(t, "out")[0], 0, dtype=-1, async_op=False), True),
        ("tilecomm.Comm.all_reduce(tensor, out=tensor)", lambda: comm.all_reduce(t, out=t), True),
        ("ProcessGroupTilecomm.allreduce([t], opts) called from Python", lambda: pg_obj.allreduce([t], opts), True),
        ("dist.all_reduce(t) (torch -> C++ ProcessGroup -> Python trampoline)", lambda: dist.all_reduce(t), True),
    ]
    if rank == 0:
        print(f"8-byte float32 all_reduce, {dist.get_world_size()} ranks; median of {args.rounds} rounds of "
              f"{args.iters} calls; us per call")
    prev = None
    for name, fn, coll in rows:
        if fn is None or (pg_obj is None and "ProcessGroupTilecomm" in name):
            continue
        times = []
        for r in range(args.rounds + 1):
            shmem.barrier_all()
            t0 = time.perf_counter()
            for _ in range(args.iters):
                fn()
            dt = (time.perf_counter() - t0) / args.iters * 1e6
            shmem.barrier_all()
            if r:
                times.append(dt)
        m = statistics.median(times)
        if rank == 0:
            extra = f"  (+{m - prev:.2f})" if coll and prev is not None else ""
            print(f"{m:9.2f}  {name}{extra}", flush=True)
        if coll:
            prev = m
    comm.destroy()
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
