"""DistributedDataParallel over the "tilecomm" backend: a small MLP trained 50 steps ends with the same
parameters on every rank, bit for bit, and within 1e-5 (relative) of the same training over gloo.

Run by every rank under a launcher: tcrun -n N python3 -m pytest tests/python/test_ddp.py
"""
import pytest
import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP

import tilecomm.torch  # noqa: F401  (registers the backend)


@pytest.fixture(scope="module", autouse=True)
def group():
    dist.init_process_group("tilecomm")
    yield
    dist.destroy_process_group()


def mlp():
    torch.manual_seed(0)  # the same start on every rank, whatever the backend
    return torch.nn.Sequential(torch.nn.Linear(32, 64), torch.nn.ReLU(), torch.nn.Linear(64, 64), torch.nn.ReLU(),
                               torch.nn.Linear(64, 8))


def train(process_group, steps=50):
    model = DDP(mlp(), process_group=process_group, bucket_cap_mb=0.01)  # small buckets: several all_reduces
    opt = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
    rank = dist.get_rank()
    for step in range(steps):
        g = torch.Generator().manual_seed(1000 * step + rank)  # each rank its own batch
        x, y = torch.randn(16, 32, generator=g), torch.randn(16, 8, generator=g)
        loss = torch.nn.functional.mse_loss(model(x), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
    return torch.cat([p.detach().reshape(-1) for p in model.module.parameters()])


def test_ddp_matches_on_every_rank_and_matches_gloo():
    params = train(None)  # the default group: tilecomm
    everyone = [torch.empty_like(params) for _ in range(dist.get_world_size())]
    dist.all_gather(everyone, params)
    for r, p in enumerate(everyone):
        assert torch.equal(p, params), f"rank {r}'s parameters differ from rank {dist.get_rank()}'s"
    gloo = train(dist.new_group(backend="gloo"))
    assert not torch.equal(params, mlp_start()), "training did not move the parameters"
    torch.testing.assert_close(params, gloo, rtol=1e-5, atol=1e-7)


def mlp_start():
    return torch.cat([p.detach().reshape(-1) for p in mlp().parameters()])
