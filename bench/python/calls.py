"""The per-call cost of four small operations from Python: tilecomm's binding
(--impl tilecomm) or mpi4py (--impl mpi4py), the same loops as calls_c.c
and calls_mpi.c (bench/compare-python subtracts those).

    tilecomm (2 PEs, on symmetric int64 arrays of tilecomm.shmem):
      put         shmem.put(a, v, 1) of 8 B (a 1-element int64 array), then shmem.quiet()
      get         shmem.get(v, a, 1) of 8 B
      fetch_add   shmem.atomic_fetch_add(a, 1, 1) (int64)
      reduce      shmem.sum_reduce(b, a) of 1 int64 on TEAM_WORLD
      comm_all_reduce  tilecomm.Comm().all_reduce(x, out=x), x a 1-element int64 numpy array
                  (its C++ twin: ops_cpp --calls, tilecomm::ops::AllReduce)
    mpi4py (on numpy buffers, a Win.Allocate window in passive target mode, lock_all):
      put         win.Put(v, 1) of 8 B, then win.Flush(1)
      get         win.Get(v, 1), then win.Flush(1)
      fetch_add   win.Fetch_and_op(one, result, 1, 0, MPI.SUM) (int64), then win.Flush(1)
      reduce      comm.Allreduce(x, y, MPI.SUM) of 1 int64

Method: a round is a barrier, then rank 0 times --iters calls back to back
(time.perf_counter), then a barrier; rank 1 waits in the barrier (reduce:
makes the same calls). --warmup rounds, then --rounds timed; rank 0 prints
the median of (round time / iters) in microseconds, "metric,value,unit".

    tcrun -n 2 /usr/bin/python3 calls.py --impl tilecomm
    mpirun.openmpi -np 2 /usr/bin/python3 calls.py --impl mpi4py
"""
import argparse
import statistics
import sys
import time

import numpy as np


def measure(name, op, collective, me, barrier, args, out):
    times = []
    for r in range(-args.warmup, args.rounds):
        barrier()
        t0 = time.perf_counter()
        if me == 0 or collective:
            op(args.iters)
        dt = time.perf_counter() - t0
        if r >= 0:
            times.append(dt / args.iters * 1e6)
        barrier()
    if me == 0:
        print(f"{name},{statistics.median(times):.6g},us", file=out, flush=True)


def run_tilecomm(args):
    import tilecomm
    from tilecomm import shmem
    shmem.init()
    me = shmem.my_pe()
    a = shmem.zeros(1, dtype=np.int64)
    b = shmem.zeros(1, dtype=np.int64)
    v = np.zeros(1, dtype=np.int64)
    x = np.ones(1, dtype=np.int64)
    comm = tilecomm.Comm()
    put, get, quiet, fadd, sum_reduce = shmem.put, shmem.get, shmem.quiet, shmem.atomic_fetch_add, shmem.sum_reduce
    all_reduce = comm.all_reduce

    def op_put(n):
        for _ in range(n):
            put(a, v, 1)
            quiet()

    def op_get(n):
        for _ in range(n):
            get(v, a, 1)

    def op_fadd(n):
        for _ in range(n):
            fadd(a, 1, 1)

    def op_reduce(n):
        for _ in range(n):
            sum_reduce(b, a)

    def op_all_reduce(n):
        for _ in range(n):
            all_reduce(x, out=x)

    if me == 0:
        print("metric,value,unit", flush=True)
    for name, op, coll in (("put", op_put, False), ("get", op_get, False), ("fetch_add", op_fadd, False),
                           ("reduce", op_reduce, True), ("comm_all_reduce", op_all_reduce, True)):
        measure(name, op, coll, me, shmem.barrier_all, args, sys.stdout)
    comm.destroy()
    shmem.free(b)
    shmem.free(a)
    shmem.finalize()


def run_mpi4py(args):
    from mpi4py import MPI
    comm = MPI.COMM_WORLD
    me = comm.Get_rank()
    win = MPI.Win.Allocate(64, 8, comm=comm)
    win.Lock_all()
    v = np.zeros(1, dtype=np.int64)
    one = np.ones(1, dtype=np.int64)
    result = np.zeros(1, dtype=np.int64)
    x = np.ones(1, dtype=np.int64)
    y = np.zeros(1, dtype=np.int64)
    Put, Get, Flush, Fop, Allreduce, SUM = win.Put, win.Get, win.Flush, win.Fetch_and_op, comm.Allreduce, MPI.SUM

    def op_put(n):
        for _ in range(n):
            Put(v, 1)
            Flush(1)

    def op_get(n):
        for _ in range(n):
            Get(v, 1)
            Flush(1)

    def op_fadd(n):
        for _ in range(n):
            Fop(one, result, 1, 0, SUM)
            Flush(1)

    def op_reduce(n):
        for _ in range(n):
            Allreduce(x, y, SUM)

    comm.Barrier()
    if me == 0:
        print("metric,value,unit", flush=True)
    for name, op, coll in (("put", op_put, False), ("get", op_get, False), ("fetch_add", op_fadd, False),
                           ("reduce", op_reduce, True)):
        measure(name, op, coll, me, comm.Barrier, args, sys.stdout)
    win.Unlock_all()
    win.Free()


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--impl", choices=("tilecomm", "mpi4py"), required=True)
    p.add_argument("--iters", type=int, default=2000)
    p.add_argument("--rounds", type=int, default=15)
    p.add_argument("--warmup", type=int, default=3)
    args = p.parse_args()
    (run_tilecomm if args.impl == "tilecomm" else run_mpi4py)(args)


if __name__ == "__main__":
    main()
