"""What torch_coll.py and ddp.py share: the options every torch benchmark takes, and its job, in which
the default process group is tilecomm's and a second group of the same ranks is gloo's."""
import argparse

import torch
import torch.distributed as dist

import tilecomm.torch  # noqa: F401  (registers the backend; under tcrun sets torchrun's environment)


def start(doc, options):
    """Parses the command line (options(parser) adds a benchmark's own), starts the job.

    Returns (args, {backend: its process group, None for the default}, the backends to measure)."""
    p = argparse.ArgumentParser(description=doc.split("\n")[0])
    options(p)
    p.add_argument("--backends", default="tilecomm,gloo")
    p.add_argument("--threads", type=int, default=1, help="torch's intra-op threads per rank")
    args = p.parse_args()
    torch.set_num_threads(args.threads)
    dist.init_process_group("tilecomm")
    groups = {"tilecomm": None, "gloo": dist.new_group(backend="gloo")}
    return args, groups, args.backends.split(",")
