"""The ranks of test_failures.py's jobs: python3 fail_scenarios.py SCENARIO (under tcrun, every rank)."""
import os
import signal
import sys
import time

import numpy as np

import tilecomm  # no_torch imports it again, without torch


def killed():
    """Rank 1 is killed while the others run an all_reduce of the torch backend: they raise, naming it."""
    import torch
    import torch.distributed as dist
    import tilecomm.torch  # noqa: F401
    dist.init_process_group("tilecomm")
    t = torch.ones(1 << 18)
    dist.all_reduce(t)  # every rank once: the plan is made and agreed
    if dist.get_rank() == 1:
        os.kill(os.getpid(), signal.SIGKILL)
    try:
        dist.all_reduce(t)
        print(f"UNEXPECTED: rank {dist.get_rank()} finished the all_reduce", flush=True)
    except tilecomm.Error as e:  # into a file of its own: the ranks' printed lines may interleave
        with open(os.path.join(os.environ["TC_OUT"], f"rank{dist.get_rank()}"), "w") as f:
            f.write(f"{type(e).__name__}: {e}")
        os._exit(3)


def interrupted():
    """Every rank blocks (rank 0 in a barrier, the others asleep in Python) until tcrun gets SIGINT."""
    from tilecomm import shmem
    shmem.init()
    print(f"ready {os.getpid()}", flush=True)
    if shmem.my_pe() == 0:
        shmem.barrier_all()
    else:
        time.sleep(600)
    print("UNEXPECTED: a rank left its wait", flush=True)


def misuse():
    """One rank: what after-free and after-finalize calls raise, the arrays readable throughout."""
    import torch
    from tilecomm import shmem
    import tilecomm.torch as tct
    shmem.init()
    a = shmem.zeros(4, "int64")
    a[:] = 7
    shmem.free(a)
    comm = tilecomm.Comm(window_bytes=4096)
    attempt("put on a freed array", lambda: shmem.put(a, np.zeros(4, "int64"), 0))
    attempt("a tensor on another device", lambda: comm.all_reduce(torch.ones(2, device="meta")))
    b = shmem.full(3, 5, "float32")
    t = tct.zeros(2, torch.bfloat16)
    shmem.finalize()
    attempt("all_reduce after finalize", lambda: comm.all_reduce(np.ones(2)))
    attempt("put after finalize", lambda: shmem.put(b, np.zeros(3, "float32"), 0))
    attempt("zeros after finalize", lambda: shmem.zeros(2))
    attempt("a tensor after finalize", lambda: tct.zeros(2))
    print(f"kept: {list(b)} {t.tolist()}")  # arrays outlive the job with their values


def attempt(what, call):
    try:
        call()
        print(f"{what}: no error")
    except Exception as e:
        print(f"{what}: {type(e).__name__}: {e}")


def no_torch():
    """import tilecomm works where torch is absent; tilecomm.torch says what is missing."""
    for name in list(sys.modules):
        if name == "torch" or name.startswith(("torch.", "tilecomm")):
            del sys.modules[name]
    sys.modules["torch"] = None  # as if it were not installed
    import importlib
    tc = importlib.import_module("tilecomm")
    print("imported tilecomm", tc.__version__)
    try:
        importlib.import_module("tilecomm.torch")
    except ImportError as e:
        print(f"ImportError: {e}")


if __name__ == "__main__":
    globals()[sys.argv[1]]()
