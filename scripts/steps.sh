# Sourced by scripts/demo.sh and scripts/check.sh: steps that print one line
# each, with their full output in a log file shown only when they fail.
#   step NAME CMD...   runs CMD with its output in $TC_LOGS/NAME.log; prints
#                      "NAME ... ok (N s)", or the log's end and exits 1
#   seconds_since T    whole seconds since $SECONDS was T
# TC_LOGS: the folder of the logs (made here). STEP_TIMES: "NAME SECONDS" lines, one per step run.
: "${TC_LOGS:?set TC_LOGS before sourcing steps.sh}"
mkdir -p "$TC_LOGS"
STEP_TIMES=()

seconds_since() { echo $((SECONDS - $1)); }

step() {
  local name=$1 t0=$SECONDS log="$TC_LOGS/$1.log"
  shift
  printf '  %-12s ' "$name"
  if "$@" >"$log" 2>&1; then
    STEP_TIMES+=("$name $(seconds_since "$t0")")
    printf 'ok (%s s)\n' "$(seconds_since "$t0")"
  else
    local status=$?
    printf 'FAILED (exit %s after %s s); the end of %s:\n' "$status" "$(seconds_since "$t0")" "$log"
    tail -n 60 "$log" | sed 's/^/    | /'
    exit 1
  fi
}
