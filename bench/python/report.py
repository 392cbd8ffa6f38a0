"""The tables and plot of bench/compare-python, from the raw CSVs of its runs.

    report.py SAVE_DIR --runs K --header-file FILE [--quick]

Reads SAVE_DIR/raw/*.csv (file names KIND.NPEpe.runI.csv; KIND one of calls_c, calls_py, calls_mpi,
calls_mpi4py, ops_cpp_calls, torch_coll, ops_cpp, ddp), takes per value the median over the runs, prints
markdown tables with ratios and each target's pass/fail, writes SAVE_DIR/medians.csv and
SAVE_DIR/python-coll.png (matplotlib, Agg). Exit status 0 even when targets fail (they are findings);
1 when no results were found.
"""
import argparse
import glob
import os
import re
import statistics
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from host_header import human  # noqa: E402

FILE_RE = re.compile(r"^([a-z0-9_]+)\.(\d+)pe\.run(\d+)\.csv$")
OPS = ("all_reduce", "all_gather", "broadcast", "reduce_scatter", "all_to_all")
TORCH_NAMES = {"all_reduce": "all_reduce", "all_gather": "all_gather_into_tensor", "broadcast": "broadcast",
               "reduce_scatter": "reduce_scatter_tensor", "all_to_all": "all_to_all_single"}
CALLS = ("put", "get", "fetch_add", "reduce")
CALL_NAMES = {"put": "put 8 B + quiet / Put + Flush", "get": "get 8 B / Get + Flush",
              "fetch_add": "fetch_add int64 / Fetch_and_op + Flush", "reduce": "sum_reduce 8 B / Allreduce 8 B",
              "comm_all_reduce": "Comm.all_reduce 8 B / ops::AllReduce"}


def load(save):
    """{(kind, pes, key...): [values over runs]}"""
    data = {}
    for path in sorted(glob.glob(os.path.join(save, "raw", "*.csv"))):
        m = FILE_RE.match(os.path.basename(path))
        if not m:
            continue
        kind, pes = m.group(1), int(m.group(2))
        with open(path) as f:
            for line in f:
                parts = line.strip().split(",")
                if len(parts) < 3 or parts[-1] != "us":
                    continue  # the header, launcher chatter
                try:
                    value = float(parts[-2])
                except ValueError:
                    continue
                data.setdefault((kind, pes) + tuple(parts[:-2]), []).append(value)
    return data


def fmt(v):
    if v is None:
        return "-"
    return f"{v:.3f}" if v < 10 else (f"{v:.1f}" if v < 10000 else f"{v:.0f}")


def verdict(ok):
    return "-" if ok is None else ("pass" if ok else "FAIL")


def main():
    p = argparse.ArgumentParser()
    p.add_argument("save")
    p.add_argument("--runs", type=int, required=True)
    p.add_argument("--header-file")
    p.add_argument("--quick", action="store_true")
    args = p.parse_args()
    data = load(args.save)
    if not data:
        print("compare-python: no results found", file=sys.stderr)
        return 1
    med = {k: statistics.median(v) for k, v in data.items()}
    nruns = {k: len(v) for k, v in data.items()}
    with open(os.path.join(args.save, "medians.csv"), "w") as f:
        f.write("kind,pes,key,value_us,runs\n")
        for k in sorted(med):
            f.write(f"{k[0]},{k[1]},{'/'.join(k[2:])},{med[k]:.6g},{nruns[k]}\n")
    g = med.get
    tally = {"pass": 0, "FAIL": 0}

    def count(ok):
        if ok is not None:
            tally["pass" if ok else "FAIL"] += 1
        return verdict(ok)

    if args.header_file:
        with open(args.header_file) as f:
            print(f.read().rstrip())
    print(f"\nEach value: the median over {args.runs} run(s) of each run's median over its rounds; "
          "us = microseconds per call or step (lower is better)."
          + (" QUICK RUN: a smoke test, not a measurement." if args.quick else ""))

    # ---- 1. per-call cost of the binding --------------------------------------------------------
    print("\n## 1. Per-call cost of the Python binding (2 PEs; rank 0 times, rank 1 waits)\n")
    print("overhead = Python loop - the same loop in C. Target: tilecomm's overhead <= mpi4py's, per operation.\n")
    print("| operation | tilecomm C us | tilecomm Python us | tilecomm overhead us | MPI C us | mpi4py us "
          "| mpi4py overhead us | overhead ratio | target |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---|")
    for op in CALLS + ("comm_all_reduce",):
        c = g(("ops_cpp_calls", 2, "comm_all_reduce", "8")) if op == "comm_all_reduce" else g(("calls_c", 2, op))
        py = g(("calls_py", 2, op))
        mc, mp = (None, None) if op == "comm_all_reduce" else (g(("calls_mpi", 2, op)), g(("calls_mpi4py", 2, op)))
        over = py - c if py is not None and c is not None else None
        mover = mp - mc if mp is not None and mc is not None else None
        if op == "comm_all_reduce":
            # No mpi4py twin of its own: compared with mpi4py's Allreduce overhead.
            mover = g(("calls_mpi4py", 2, "reduce")) - g(("calls_mpi", 2, "reduce")) \
                if g(("calls_mpi4py", 2, "reduce")) is not None and g(("calls_mpi", 2, "reduce")) is not None else None
        ratio = over / mover if over is not None and mover else None
        ok = None if ratio is None else over <= mover
        print(f"| {CALL_NAMES[op]} | {fmt(c)} | {fmt(py)} | {fmt(over)} | {fmt(mc)} | {fmt(mp)} | {fmt(mover)} "
              f"| {fmt(ratio)} | {count(ok)} |")
    print("\n(Comm.all_reduce has no mpi4py twin; its overhead is set against mpi4py's Allreduce overhead.)")

    # ---- 2. torch collectives -------------------------------------------------------------------
    pes_list = sorted({k[1] for k in med if k[0] == "torch_coll"})
    print("\n## 2. torch.distributed collectives: backend tilecomm vs gloo vs tilecomm's C++ operator\n")
    print("float32; size = bytes per rank as the operators count them (all_gather: the input, reduce_scatter: the "
          "output, all_to_all: per peer). Targets: tilecomm/gloo <= 0.1 at every size; from 1 MiB, "
          "tilecomm/C++ <= 1.2. gloo in torch 1.13 has no all_gather_into_tensor (measured: all_gather into views "
          "of the output) and no reduce_scatter (measured: all_reduce of the input + a copy of the rank's block).")
    for np_ in pes_list:
        for op in OPS:
            sizes = sorted({int(k[3]) for k in med if k[0] == "torch_coll" and k[1] == np_ and k[2] == op})
            if not sizes:
                continue
            print(f"\n### {TORCH_NAMES[op]}, {np_} ranks\n")
            print("| size | tilecomm us | gloo us | C++ op us | tilecomm/gloo | <= 0.1 | tilecomm/C++ | <= 1.2 (>= 1 MiB) |")
            print("|---:|---:|---:|---:|---:|---|---:|---|")
            for s in sizes:
                tc, gl = g(("torch_coll", np_, op, str(s), "tilecomm")), g(("torch_coll", np_, op, str(s), "gloo"))
                cpp = g(("ops_cpp", np_, op, str(s)))
                r1 = tc / gl if tc is not None and gl else None
                r2 = tc / cpp if tc is not None and cpp else None
                ok2 = (r2 <= 1.2) if (r2 is not None and s >= 1 << 20) else None
                print(f"| {human(s)} | {fmt(tc)} | {fmt(gl)} | {fmt(cpp)} | {fmt(r1)} "
                      f"| {count(None if r1 is None else r1 <= 0.1)} | {fmt(r2)} | {count(ok2)} |")

    # ---- 3. DDP ---------------------------------------------------------------------------------
    print("\n## 3. DistributedDataParallel training step (median step time)\n")
    print("small: 32-64-64-8, batch 16; large: 1024-1024-1024-10, batch 64. Target: tilecomm/gloo <= 0.5.\n")
    print("| model | ranks | tilecomm us | gloo us | tilecomm/gloo | target |")
    print("|---|---:|---:|---:|---:|---|")
    for np_ in sorted({k[1] for k in med if k[0] == "ddp"}):
        for model in ("small", "large"):
            tc, gl = g(("ddp", np_, model, "tilecomm")), g(("ddp", np_, model, "gloo"))
            if tc is None and gl is None:
                continue
            r = tc / gl if tc is not None and gl else None
            print(f"| {model} | {np_} | {fmt(tc)} | {fmt(gl)} | {fmt(r)} | {count(None if r is None else r <= 0.5)} |")
    print(f"\ntargets: {tally['pass']} pass, {tally['FAIL']} fail")

    # ---- plot -------------------------------------------------------------------------------------
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("compare-python: matplotlib missing, no plot (apt-get install python3-matplotlib)", file=sys.stderr)
        return 0
    if pes_list:
        fig, axes = plt.subplots(len(pes_list), len(OPS), figsize=(4 * len(OPS), 3.4 * len(pes_list)),
                                 squeeze=False)
        for i, np_ in enumerate(pes_list):
            for j, op in enumerate(OPS):
                ax = axes[i][j]
                for label, key, style in (("torch tilecomm", lambda s: ("torch_coll", np_, op, str(s), "tilecomm"), "o-"),
                                          ("torch gloo", lambda s: ("torch_coll", np_, op, str(s), "gloo"), "s-"),
                                          ("C++ operator", lambda s: ("ops_cpp", np_, op, str(s)), "^--")):
                    sizes = sorted({int(k[3]) for k in med if k[1] == np_ and k[2] == op
                                    and k[0] in ("torch_coll", "ops_cpp")})
                    pts = [(s, med[key(s)]) for s in sizes if key(s) in med]
                    if pts:
                        ax.plot([p_[0] for p_ in pts], [p_[1] for p_ in pts], style, label=label, markersize=4)
                ax.set_xscale("log", base=2)
                ax.set_yscale("log")
                ax.set_title(f"{TORCH_NAMES[op]}, {np_} ranks", fontsize=9)
                ax.set_xlabel("bytes per rank", fontsize=8)
                ax.set_ylabel("us per call", fontsize=8)
                ax.grid(True, which="both", alpha=0.3)
                ax.tick_params(labelsize=7)
                if i == 0 and j == 0:
                    ax.legend(fontsize=7)
        fig.suptitle(f"tilecomm torch backend vs gloo vs C++ operator (median of {args.runs} runs)", fontsize=11)
        fig.tight_layout()
        path = os.path.join(args.save, "python-coll.png")
        fig.savefig(path, dpi=110)
        print(f"\nplot: {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
