"""torch.distributed collectives over the backend "tilecomm" against gloo, in one job, alternately
(bench/compare-python). Run by every rank under tilecomm's launcher:

    tcrun -n N /usr/bin/python3 torch_coll.py [--ops LIST] [--sizes LIST] [--rep-ms MS] [--rounds R]

The default group is tilecomm's; gloo's is dist.new_group(backend="gloo") over the same ranks. float32.
size = count * 4 bytes, count as tilecomm's operators have it (ops_cpp.cpp takes the same sizes):

    all_reduce      dist.all_reduce(t)                          t: size bytes, in place
    all_gather      dist.all_gather_into_tensor(out, t)         t: size, out: N * size
                    gloo (torch 1.13 has no _allgather_base for it): dist.all_gather(out.chunk(N), t),
                    the same bytes into views of out
    broadcast       dist.broadcast(t, 0)                        t: size
    reduce_scatter  dist.reduce_scatter_tensor(out, t)          t: N * size, out: size
                    gloo has no reduce_scatter in torch 1.13: its stand-in is dist.all_reduce(t) and a copy
                    of this rank's block into out, what a program on gloo does
    all_to_all      dist.all_to_all_single(out, t)              t, out: N * size (size per peer)

Method (ops_cpp's): per operation and size, each backend's result is checked once at 4 KiB; then per
backend one warm-up call and a calibration: the slowest rank's time of one call sets n, the calls of a
round lasting about --rep-ms (1 <= n <= 10000). A round is a barrier (tilecomm.shmem.barrier_all, for
both backends), n calls, a barrier; rank 0 times it (time.perf_counter) from the end of the first
barrier to the end of the last. --rounds rounds of each backend (--big-rounds from 8 MiB), alternating
which goes first. Rank 0 prints the median over the rounds of (round time / n):
"op,size,backend,value,unit". torch runs one intra-op thread per rank (--threads).
"""
import statistics
import sys
import time

import torch
import torch.distributed as dist

import job
from tilecomm import shmem

OPS = ("all_reduce", "all_gather", "broadcast", "reduce_scatter", "all_to_all")


def parse_size(s):
    s = s.strip()
    mult = {"k": 1 << 10, "m": 1 << 20}.get(s[-1].lower(), 1)
    return int(s[:-1] if mult > 1 else s) * mult


def make_call(op, backend, group, count, n, rank):
    """(the call, its input tensor, its output tensor) for op on `count` float32s of this rank."""
    gloo = backend == "gloo"
    if op == "all_reduce":
        t = torch.zeros(count)
        return (lambda: dist.all_reduce(t, group=group)), t, t
    if op == "broadcast":
        t = torch.zeros(count)
        return (lambda: dist.broadcast(t, 0, group=group)), t, t
    if op == "all_gather":
        t, out = torch.zeros(count), torch.zeros(n * count)
        if gloo:
            views = list(out.chunk(n))
            return (lambda: dist.all_gather(views, t, group=group)), t, out
        return (lambda: dist.all_gather_into_tensor(out, t, group=group)), t, out
    if op == "reduce_scatter":
        t, out = torch.zeros(n * count), torch.zeros(count)
        if gloo:
            mine = t[rank * count:(rank + 1) * count]

            def call():
                dist.all_reduce(t, group=group)
                out.copy_(mine)
            return call, t, out
        return (lambda: dist.reduce_scatter_tensor(out, t, group=group)), t, out
    if op == "all_to_all":
        t, out = torch.zeros(n * count), torch.zeros(n * count)
        return (lambda: dist.all_to_all_single(out, t, group=group)), t, out
    raise ValueError(op)


def check(op, call, t, out, n, rank, count):
    """Runs the call once on known data; raises if the result is wrong."""
    if op == "all_to_all":
        t.copy_(torch.arange(n).repeat_interleave(count).float() + rank * n)
    else:
        t.fill_(rank + 1)
    call()
    tri = n * (n + 1) / 2
    if op == "all_reduce" or op == "reduce_scatter":
        want = torch.full_like(out, tri)
    elif op == "broadcast":
        want = torch.ones_like(out)
    elif op == "all_gather":
        want = torch.arange(1, n + 1).repeat_interleave(count).float()
    else:
        want = torch.arange(n).repeat_interleave(count).float() * n + rank
    if not torch.equal(out, want):
        raise RuntimeError(f"{op}: wrong result on rank {rank}: {out[:8].tolist()} ... want {want[:8].tolist()}")
    t.zero_()
    out.zero_()


def slowest(seconds):
    v = torch.tensor([seconds], dtype=torch.float64)
    dist.all_reduce(v, op=dist.ReduceOp.MAX)
    return float(v)


def options(p):
    p.add_argument("--ops", default=",".join(OPS))
    p.add_argument("--sizes", default="8,64,512,4K,32K,256K,1M,8M,64M")
    p.add_argument("--rep-ms", type=float, default=20)
    p.add_argument("--rounds", type=int, default=7)
    p.add_argument("--big-rounds", type=int, default=3)


def main():
    args, groups, backends = job.start(__doc__, options)
    rank, n = dist.get_rank(), dist.get_world_size()
    barrier = shmem.barrier_all
    if rank == 0:
        print("op,size,backend,value,unit", flush=True)
    for op in args.ops.split(","):
        if op not in OPS:
            raise SystemExit(f"torch_coll: unknown op {op!r}; the ops are {', '.join(OPS)}")
        for size in map(parse_size, args.sizes.split(",")):
            if size < 4 or size % 4:
                raise SystemExit(f"torch_coll: size {size} is not a positive multiple of 4 bytes")
            count = size // 4
            calls, per_round = {}, {}
            for be in backends:
                call, t, out = make_call(op, be, groups[be], count, n, rank)
                if size == 4096:
                    check(op, call, t, out, n, rank, count)
                barrier()
                call()  # warm-up
                barrier()
                t0 = time.perf_counter()
                call()
                one = slowest(time.perf_counter() - t0)
                calls[be], per_round[be] = call, max(1, min(10000, int(args.rep_ms * 1e-3 / max(one, 1e-9))))
            times = {be: [] for be in backends}
            for r in range(args.big_rounds if size >= 8 << 20 else args.rounds):
                for be in (backends if r % 2 == 0 else backends[::-1]):
                    call, k = calls[be], per_round[be]
                    barrier()
                    t0 = time.perf_counter()
                    for _ in range(k):
                        call()
                    barrier()
                    times[be].append((time.perf_counter() - t0) / k * 1e6)
            if rank == 0:
                for be in backends:
                    print(f"{op},{size},{be},{statistics.median(times[be]):.6g},us", flush=True)
            del calls
    dist.destroy_process_group()


if __name__ == "__main__":
    sys.exit(main())
