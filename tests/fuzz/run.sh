#!/usr/bin/env bash
# Runs libFuzzer targets for SECONDS each, starting from their committed
# corpus, as many at once as there are CPUs (each target is one process).
# New inputs go to BUILD/grown/TARGET, crashes to BUILD/artifacts, each
# run's output to BUILD/grown/TARGET.log (printed when the run fails).
#   tests/fuzz/run.sh BUILD SECONDS [TARGET...]   (make test-fuzz, make fuzz-long; default: every target built)
set -uo pipefail
build=$1 seconds=$2
shift 2
targets=("$@")
[[ ${#targets[@]} -gt 0 ]] ||
  mapfile -t targets < <(find "$build/tests/fuzz" -maxdepth 1 -type f -executable -name 'fuzz_*' -printf '%f\n' | sort)
[[ ${#targets[@]} -gt 0 ]] || { echo "test-fuzz: no fuzz target in $build/tests/fuzz" >&2; exit 1; }
corpus=$(cd "$(dirname "$0")" && pwd)/corpus
mkdir -p "$build/artifacts"

run() {
  local t=$1
  mkdir -p "$build/grown/$t"
  "$build/tests/fuzz/$t" -max_total_time="$seconds" -print_final_stats=1 -artifact_prefix="$build/artifacts/$t-" \
    "$build/grown/$t" "$corpus/$t" >"$build/grown/$t.log" 2>&1
}

declare -A pids=()
status=0
finish() {  # waits for one run and reports it
  local pid t
  wait -n -p pid "${!pids[@]}"
  local s=$?
  t=${pids[$pid]}
  unset "pids[$pid]"
  if [[ $s -eq 0 ]]; then
    echo "test-fuzz: $t for $seconds s: $(grep -oE 'stat::number_of_executed_units: *[0-9]+' "$build/grown/$t.log" |
      grep -oE '[0-9]+$') inputs run; $build/grown/$t holds $(find "$build/grown/$t" -type f | wc -l)"
  else
    echo "test-fuzz: $t FAILED (exit $s); the end of $build/grown/$t.log:"
    tail -n 40 "$build/grown/$t.log"
    status=1
  fi
}
for t in "${targets[@]}"; do
  [[ ${#pids[@]} -lt $(nproc) ]] || finish
  run "$t" &
  pids[$!]=$t
done
while [[ ${#pids[@]} -gt 0 ]]; do finish; done
exit $status
