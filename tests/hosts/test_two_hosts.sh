#!/usr/bin/env bash
# Two "hosts" (tests/hosts/netns.sh), two PEs each, one tcrun job: the PEs
# reach the rendezvous of host 0 over the veth link, find out at init that
# they are on two hosts (NOTE [host key]: other network namespaces) and stop
# with a message naming both; told by TILECOMM_HOST_ID that they share one
# host, they stop because they cannot map each other's memory, with a
# message naming TILECOMM_HOST_ID. Nothing of either job, and no namespace,
# is left. Exit 77: skipped (no namespaces here).
#   test_two_hosts.sh TCRUN TC_FAIL_PE
set -uo pipefail
tcrun=$(realpath "$1") pe=$(realpath "$2")  # a host's mount namespace starts elsewhere
here=$(cd "$(dirname "$0")" && pwd)
. "$here/netns.sh"
hosts_up 2 || exit $?
export TC_NS tcrun pe
export TC_HOLDERS_LIST="${TC_HOLDERS[*]}"
# on_host for the PEs' shell (bash cannot export arrays).
pe_on_host() { local h=($TC_HOLDERS_LIST); nsenter --target "${h[$1]}" --net --ipc --mount --pid -- "${@:2}"; }
export -f pe_on_host

fail() { echo "test_two_hosts: $*" >&2; exit 1; }

# PE k runs on host k / 2; tcrun and its rendezvous on host 0.
job() {
  in_net 0 env TILECOMM_BOOTSTRAP_ADDR="$(host_addr 0)" TILECOMM_BOOTSTRAP_TIMEOUT=30 "$@" \
    "$tcrun" -n 4 bash -c 'pe_on_host $((TILECOMM_RANK / 2)) "$pe" plain'
}

out=$(job 2>&1)
status=$?
echo "$out"
[[ $status -ne 0 ]] || fail "a job over two hosts must stop at init (status 0)"
grep -q "ran" <<<"$out" && fail "no PE may run past init"
grep -E "runs on host .*net:[0-9]+\) and PE [0-9] on .*net:[0-9]+\)" <<<"$out" >/dev/null ||
  fail "no PE named the two hosts it found"

out=$(job TILECOMM_HOST_ID=one-host 2>&1)
status=$?
echo "$out"
[[ $status -ne 0 ]] || fail "PEs that cannot map each other's memory must stop at init (status 0)"
grep -q "ran" <<<"$out" && fail "no PE may run past init"
grep "shared segment" <<<"$out" | grep -q "TILECOMM_HOST_ID" || fail "no message named TILECOMM_HOST_ID"

hosts_down
ip netns list | grep -q "^$TC_NS" && fail "namespaces left behind: $(ip netns list | grep "^$TC_NS")"
echo "test_two_hosts: ok"
