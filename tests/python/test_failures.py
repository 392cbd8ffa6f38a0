"""Failures and bad input of the Python face, each in a job of its own (fail_scenarios.py).

Run in one process, not under a launcher: TILECOMM_TCRUN names tcrun (ctest sets it).
"""
import os
import re
import signal
import subprocess
import sys
import time

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
TCRUN = os.environ.get("TILECOMM_TCRUN", "tcrun")
ENV = {k: v for k, v in os.environ.items() if not k.startswith(("TILECOMM_", "PMI", "OMPI_", "MASTER_", "RANK"))}
ENV |= {"TILECOMM_TIMEOUT": "60", "PYTHONUNBUFFERED": "1"}


def job(n, scenario, env=ENV):
    return subprocess.Popen([TCRUN, "-n", str(n), sys.executable, os.path.join(HERE, "fail_scenarios.py"), scenario],
                            env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)


def test_a_killed_rank_is_named_by_the_others(tmp_path):
    p = job(3, "killed", env=ENV | {"TC_OUT": str(tmp_path)})
    out, _ = p.communicate(timeout=120)
    assert p.returncode != 0, out
    assert "UNEXPECTED" not in out, out
    raised = {f.name: f.read_text() for f in tmp_path.iterdir()}
    assert sorted(raised) == ["rank0", "rank2"], out
    for text in raised.values():
        assert text.startswith("RemoteError: ") and "PE 1 (pid" in text, text


def test_sigint_to_tcrun_ends_every_rank():
    shm_before = set(os.listdir("/dev/shm"))
    p = job(3, "interrupted")
    seen, pids, deadline = "", [], time.time() + 60
    while len(pids) < 3 and time.time() < deadline:  # the ranks' lines may interleave
        seen += p.stdout.readline()
        pids = [int(pid) for pid in re.findall(r"ready (\d+)", seen)]
    assert len(pids) == 3, f"the ranks did not start: {seen}"
    p.send_signal(signal.SIGINT)
    out, _ = p.communicate(timeout=60)
    assert p.returncode != 0 and "UNEXPECTED" not in out, out
    for pid in pids:
        assert not os.path.exists(f"/proc/{pid}"), f"rank pid {pid} outlived the job"
    assert set(os.listdir("/dev/shm")) <= shm_before, "the job left shared memory behind"


def test_misuse_raises_and_never_crashes():
    p = job(1, "misuse")
    out, _ = p.communicate(timeout=120)
    assert p.returncode == 0, out
    lines = dict(line.split(": ", 1) for line in out.splitlines() if ": " in line)
    assert lines["put on a freed array"].startswith("ValueError") and "freed" in lines["put on a freed array"]
    assert lines["a tensor on another device"].startswith("TypeError") and "meta" in lines["a tensor on another device"]
    for what in ("all_reduce after finalize", "put after finalize", "zeros after finalize", "a tensor after finalize"):
        assert "rror" in lines[what] and "final" in lines[what], (what, lines[what])
    assert lines["kept"] == "[5.0, 5.0, 5.0] [0.0, 0.0]"


def test_import_without_torch():
    r = subprocess.run([sys.executable, os.path.join(HERE, "fail_scenarios.py"), "no_torch"], env=ENV,
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    assert r.stdout.startswith("imported tilecomm")
    assert "ImportError" in r.stdout and "torch" in r.stdout
