#!/usr/bin/env bash
# make demo: install what is missing, build the library, its tools and the
# examples (Release), then a short tour of tilecomm, every result checked.
# One line per install or build step; the full logs are in build/logs/ and
# are printed only when a step fails.
#   scripts/demo.sh [BUILD_DIR]     (default build; JOBS: parallel compile jobs)
set -uo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
logs=$build/logs
mkdir -p "$logs"

# step NAME CMD...: runs CMD with its output in $logs/NAME.log; prints "NAME ok (N s)", or the log's
# end and exits 1.
step() {
  local name=$1 t0=$SECONDS
  shift
  printf '  %-12s ' "$name"
  if "$@" >"$logs/$name.log" 2>&1; then
    printf 'ok (%s s)\n' $((SECONDS - t0))
  else
    printf 'FAILED (exit %s after %s s); the end of %s:\n' $? $((SECONDS - t0)) "$logs/$name.log"
    tail -n 60 "$logs/$name.log" | sed 's/^/    | /'
    exit 1
  fi
}

# tour NAME TITLE CMD...: runs CMD with its output in $logs/tour-NAME.log, then shows that output
# indented; on failure all of it, and exits 1.
tour() {
  local title=$2 log="$logs/tour-$1.log"
  shift 2
  printf '\n%s  (%s)\n' "$title" "${*#"$build/"}"
  if "$@" >"$log" 2>&1; then
    sed 's/^/    /' "$log"
  else
    printf '    FAILED (exit %s):\n' $?
    sed 's/^/    | /' "$log"
    exit 1
  fi
}

cpu=$(lscpu 2>/dev/null | sed -n 's/^Model name: *//p' | head -n 1)
echo "tilecomm demo on ${cpu:-this host}, $(nproc) CPUs; logs in $logs/"
step deps bash scripts/install-deps.sh demo
step configure cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release
step build cmake --build "$build" -j "${JOBS:-$(nproc)}" --target demo

run=("$build/tcrun" -n 4)
# The timed parts run one PE per CPU (at least 2, at most 4): a time taken
# with PEs sharing a CPU says more about the scheduler than about tilecomm.
# One BLAS thread per process, as MPI ranks run: the fused and the unfused
# products then get the same CPUs.
timed_pes=$(nproc)
((timed_pes < 2)) && timed_pes=2
((timed_pes > 4)) && timed_pes=4
export OPENBLAS_NUM_THREADS=1
tour shmem "OpenSHMEM: put/get, atomics, signals, a team, sum reduction and fcollect on 4 PEs" \
  "${run[@]}" "$build/tilecomm-demo"
tour seed001 "Seed 001: the custom AllGather kernel on a communicator, through a 4 KiB window" \
  "${run[@]}" "$build/comm-seed-allgather" 100000 4096
tour operators "Operators on $timed_pes PEs: AllReduce, and AllGatherMatmul fused against the same work unfused" \
  "$build/tcrun" -n "$timed_pes" "$build/comm-operators"
tour seed000 "Seed 000: the TGET_ASYNC kernels on the copy engine" \
  "${run[@]}" "$build/pto-seed-async-get"
py=$(sed -n 's/^python = "\(.*\)"$/\1/p' "$build/python/tilecomm/_build.py" 2>/dev/null)
if [ -n "$py" ]; then
  tour python "Python: OpenSHMEM on NumPy arrays, the communicator's operators, torch.distributed over tilecomm" \
    env PYTHONPATH="$build/python" "${run[@]}" "$py" examples/python/tour.py
else
  printf '\nPython: the package was not built (see %s/logs/configure.log)\n' "$build"
fi
tour bench "A short benchmark on 2 PEs: PE 0 to PE 1, then the barrier and fcollect over both" \
  "$build/tcrun" -n 2 "$build/tilecomm-perf" --quick --only put_lat,get_lat,amo,signal,barrier,fcollect \
  --max-size 8K --coll-max-size 64

echo
echo "Every data result above was checked. Next:"
next() { printf '  %-52s %s\n' "$1" "$2"; }
next "$build/tilecomm-info" "the configuration, the collective algorithms and their choice"
next "$build/tcrun -n 2 $build/tilecomm-perf --help" "the whole benchmark: coll, ops, fused, async"
next "$build/tccc -O2 hello.c -o hello" "your own OpenSHMEM program (tcc++ for C++) ..."
next "$build/tcrun -n 8 ./hello" "... on 8 PEs"
next "PYTHONPATH=$build/python ${py:-python3} -c 'import tilecomm'" "tilecomm from Python (README: Python)"
next "examples/" "the sources of this tour: demo.c, comm/, pto/, python/"
next "make test" "the quick tier of the tests; make check runs them all"
