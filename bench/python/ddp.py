"""A DistributedDataParallel training step over the backend "tilecomm" against gloo, in one job,
alternately (bench/compare-python). Run by every rank under tilecomm's launcher:

    tcrun -n N /usr/bin/python3 ddp.py [--models small,large] [--chunks C] [--steps S]

Models (torch.nn.Sequential of Linear and ReLU, float32, SGD with momentum, MSE loss; each rank its own
fixed batch):
    small   32-64-64-8,          batch 16 (tests/python/test_ddp.py's MLP; 6.9 K parameters)
    large   1024-1024-1024-10,   batch 64 (2.1 M parameters: 8.4 MB of gradients a step)

A step is forward, loss, zero_grad, backward (DDP's all_reduces of its gradient buckets, default
bucket_cap_mb) and the optimizer's step. Each backend gets its own DDP model, the same start on every
rank: the default group (tilecomm) and dist.new_group(backend="gloo"). After --warmup steps of each,
--chunks chunks of --steps steps, alternately one backend's and the other's (which goes first
alternates too), a barrier before each chunk; rank 0 times every step (time.perf_counter) and prints
the median step time of each backend: "model,backend,value,unit". torch runs one intra-op thread per
rank (--threads; the 4-rank runs share 2 CPUs).
"""
import statistics
import time

import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP

import job
from tilecomm import shmem

MODELS = {"small": ((32, 64, 64, 8), 16), "large": ((1024, 1024, 1024, 10), 64)}


def mlp(widths):
    torch.manual_seed(0)  # the same start on every rank and for both backends
    layers = []
    for i, (a, b) in enumerate(zip(widths, widths[1:])):
        layers.append(torch.nn.Linear(a, b))
        if i < len(widths) - 2:
            layers.append(torch.nn.ReLU())
    return torch.nn.Sequential(*layers)


def options(p):
    p.add_argument("--models", default="small,large")
    p.add_argument("--chunks", type=int, default=6)
    p.add_argument("--steps", type=int, default=10)
    p.add_argument("--warmup", type=int, default=3)


def main():
    args, groups, backends = job.start(__doc__, options)
    rank = dist.get_rank()
    if rank == 0:
        print("model,backend,value,unit", flush=True)
    for name in args.models.split(","):
        widths, batch = MODELS[name]
        g = torch.Generator().manual_seed(rank)
        x, y = torch.randn(batch, widths[0], generator=g), torch.randn(batch, widths[-1], generator=g)
        runs = {}
        for be in backends:
            model = DDP(mlp(widths), process_group=groups[be])
            runs[be] = (model, torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9))

        def step(be):
            model, opt = runs[be]
            loss = torch.nn.functional.mse_loss(model(x), y)
            opt.zero_grad()
            loss.backward()
            opt.step()

        for be in backends:
            shmem.barrier_all()
            for _ in range(args.warmup):
                step(be)
        times = {be: [] for be in backends}
        for c in range(args.chunks):
            for be in (backends if c % 2 == 0 else backends[::-1]):
                shmem.barrier_all()
                for _ in range(args.steps):
                    t0 = time.perf_counter()
                    step(be)
                    times[be].append((time.perf_counter() - t0) * 1e6)
        if rank == 0:
            for be in backends:
                print(f"{name},{be},{statistics.median(times[be]):.6g},us", flush=True)
        del runs
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
