#!/usr/bin/env bash
# make check (and CI, .ci/run): every stage of the test matrix, one after
# the other, each with its output shown and kept in build/logs/check-STAGE.log;
# at the end each stage's time, the ten slowest tests of all stages, and the
# count of tests passed and failed.
#   scripts/check.sh [STAGE...]   stages: release asan tsan fuzz (default: all four, in that order)
# A failed stage does not stop the others; the exit status is 1 if any failed.
set -uo pipefail
cd "$(dirname "$0")/.."
make=${MAKE:-make}
stages=("$@")
[[ ${#stages[@]} -gt 0 ]] || stages=(release asan tsan fuzz)
logs=build/logs
mkdir -p "$logs"

cpu=$(lscpu 2>/dev/null | sed -n 's/^Model name: *//p' | head -n 1)
echo "check: ${stages[*]} on ${cpu:-this host}, $(nproc) CPUs"
bash scripts/install-deps.sh check || exit 1

t_all=$SECONDS
failed_stages=()
times=()
for s in "${stages[@]}"; do
  echo "==== check: stage $s"
  t0=$SECONDS
  $make --no-print-directory "test-$s" 2>&1 | tee "$logs/check-$s.log"
  status=${PIPESTATUS[0]}
  times+=("$(printf '%-8s %5d s  %s' "$s" $((SECONDS - t0)) "$([[ $status -eq 0 ]] && echo ok || echo FAILED)")")
  [[ $status -eq 0 ]] || failed_stages+=("$s")
done

# ctest prints "  12/438 Test #40: NAME ....   Passed   3.21 sec" for every test it ran:
# one line "STAGE NAME Passed|Skipped|Failed SECONDS" each.
results=$(for s in "${stages[@]}"; do
  awk -v stage="$s" '/ Test +#[0-9]+: / {
    for (i = 1; i < NF; ++i) if ($i ~ /^#[0-9]+:$/) name = $(i + 1)
    status = / Passed / ? "Passed" : /Skipped|Not Run/ ? "Skipped" : "Failed"
    print stage, name, status, $(NF - 1) }' "$logs/check-$s.log"
done)
passed=$(grep -c ' Passed ' <<<"$results")
skipped=$(grep -c ' Skipped ' <<<"$results")
failed=$(grep -c ' Failed ' <<<"$results")

echo
echo "==== check: stages (wall $(( (SECONDS - t_all) / 60 )) min $(( (SECONDS - t_all) % 60 )) s)"
printf '  %s\n' "${times[@]}"
echo "==== check: the ten slowest tests"
sort -k4 -rn <<<"$results" | head -n 10 | awk '{printf "  %8.1f s  %-7s %s\n", $NF, $1, $2}'
if [[ ${#failed_stages[@]} -gt 0 ]]; then
  echo "==== check: FAILED stages: ${failed_stages[*]} (their logs: $logs/check-STAGE.log)"
  grep ' Failed ' <<<"$results" | sed 's/^/  /'
fi
echo "check: $passed passed, $failed failed, $skipped skipped"
[[ ${#failed_stages[@]} -eq 0 ]]
