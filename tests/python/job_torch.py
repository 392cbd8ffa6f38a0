"""A torch.distributed job over the "tilecomm" backend, every result checked; how it was started is the test.

Started by tcrun, MPICH's or OpenMPI's mpirun, torchrun (python3 -m torch.distributed.run), or over two hosts
(tests/hosts/test_two_hosts.sh). Prints "job_torch: ok" on every rank, or fails naming the call.
"""
import sys

import torch
import torch.distributed as dist

import tilecomm.torch  # noqa: F401  (registers the backend)


def check(name, got, expect):
    if not torch.equal(got, expect):
        sys.exit(f"job_torch: rank {dist.get_rank()}: {name} gave {got}, expected {expect}")


def main():
    dist.init_process_group("tilecomm")
    me, n = dist.get_rank(), dist.get_world_size()
    x = torch.arange(1000, dtype=torch.float32) + me
    small = torch.arange(1000) % 16  # sums exact in bfloat16 too
    for dtype in (torch.float32, torch.bfloat16, torch.int64):
        t = (small + me).to(dtype)
        dist.all_reduce(t)
        check(f"all_reduce {dtype}", t, (small * n + n * (n - 1) // 2).to(dtype))
    big = torch.full((1 << 20,), float(me))  # 4 MiB: the operators' rounds
    dist.all_reduce(big, op=dist.ReduceOp.MAX)
    check("all_reduce max 4 MiB", big, torch.full((1 << 20,), float(n - 1)))
    out = torch.empty(n * 1000)
    dist.all_gather_into_tensor(out, x)
    check("all_gather", out, torch.cat([torch.arange(1000, dtype=torch.float32) + r for r in range(n)]))
    t = x.clone()
    dist.broadcast(t, src=n - 1)
    check("broadcast", t, torch.arange(1000, dtype=torch.float32) + n - 1)
    rs = torch.empty(4)
    dist.reduce_scatter_tensor(rs, torch.arange(4 * n, dtype=torch.float32))
    check("reduce_scatter", rs, torch.arange(4 * me, 4 * me + 4, dtype=torch.float32) * n)
    a2a = torch.empty(2 * n)
    dist.all_to_all_single(a2a, torch.full((2 * n,), float(me)))
    check("all_to_all_single", a2a, torch.arange(n, dtype=torch.float32).repeat_interleave(2))
    if n > 1:
        got = torch.empty(3)
        work = dist.isend(torch.full((3,), float(me)), (me + 1) % n)
        dist.recv(got, (me - 1) % n)
        work.wait()
        check("send/recv", got, torch.full((3,), float((me - 1) % n)))
    dist.barrier()
    dist.destroy_process_group()
    print(f"job_torch: ok (rank {me} of {n})")


if __name__ == "__main__":
    main()
