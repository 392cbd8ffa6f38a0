#!/usr/bin/env bash
# Two "hosts" (tests/hosts/netns.sh), two PEs each, one tcrun job: the PEs
# reach the rendezvous of host 0 over the veth link and find out at init
# that they are on two hosts (NOTE [host key]: other network namespaces).
# Each TEST program then runs and passes: PEs of a host share memory (their
# own /dev/shm), PEs of the other host are reached over UCX on the veth link
# (test_rma checks the traffic UCX counted). Told by TILECOMM_HOST_ID that
# they share one host, the PEs stop at init because they cannot map each
# other's memory, with a message naming TILECOMM_HOST_ID. A PE that dies is
# named by every survivor, on either host. Nothing of any
# job, and no namespace, is left. Exit 77: skipped (no namespaces here).
#   test_two_hosts.sh TCRUN TC_FAIL_PE TEST...
set -uo pipefail
tcrun=$(realpath "$1") pe=$(realpath "$2")  # a host's mount namespace starts elsewhere
shift 2
tests=()
for t in "$@"; do tests+=("$(realpath "$t")"); done
here=$(cd "$(dirname "$0")" && pwd)
. "$here/netns.sh"
hosts_up 2 || exit $?
pe_arg=plain  # tc_fail_pe's mode; the test programs take none
export TC_NS tcrun pe pe_arg
hosts_export

fail() { echo "test_two_hosts: $*" >&2; exit 1; }

# PE k runs on host k / 2; tcrun and its rendezvous on host 0.
job() {
  in_net 0 env TILECOMM_BOOTSTRAP_ADDR="$(host_addr 0)" TILECOMM_BOOTSTRAP_TIMEOUT=30 "$@" \
    "$tcrun" -n 4 bash -c 'pe_on_host $((TILECOMM_RANK / 2)) "$pe" ${pe_arg:+"$pe_arg"}'
}

for t in "${tests[@]}"; do
  pe=$t pe_arg= job UCX_TLS=tcp TILECOMM_TIMEOUT=120 || fail "$(basename "$t") failed over two hosts"
done

# A PE dies while the others wait: every survivor, on either host, leaves
# its wait with a message naming the dead PE, and the job ends non-zero.
#   kill-in-wait: PE 1 (host 0) is killed; PEs 2 and 3 announced themselves to it over UCX.
#   exit-in-wait: PE 2 (host 1) exits without shmem_finalize; PE 3 shares its host.
dies() {  # SCENARIO DEAD SURVIVORS...
  local scenario=$1 dead=$2 s out status
  shift 2
  out=$(pe_arg=$scenario job UCX_TLS=tcp TILECOMM_TIMEOUT=120 2>&1)
  status=$?
  [[ $status -ne 0 ]] || { echo "$out"; fail "$scenario: the job must fail when PE $dead dies (status 0)"; }
  grep -q UNEXPECTED <<<"$out" && { echo "$out"; fail "$scenario: a call returned that must not have"; }
  for s in "$@"; do
    grep ":PE $s] " <<<"$out" | grep "shmem_long_wait_until" | grep "because the job failed" | grep -q "PE $dead " ||
      { echo "$out"; fail "$scenario: PE $s did not leave its wait naming PE $dead"; }
  done
}
dies kill-in-wait 1 0 2 3
dies exit-in-wait 2 0 1 3

out=$(job TILECOMM_HOST_ID=one-host 2>&1)
status=$?
echo "$out"
[[ $status -ne 0 ]] || fail "PEs that cannot map each other's memory must stop at init (status 0)"
grep -q "ran" <<<"$out" && fail "no PE may run past init"
grep "shared segment" <<<"$out" | grep -q "TILECOMM_HOST_ID" || fail "no message named TILECOMM_HOST_ID"

hosts_down
ip netns list | grep -q "^$TC_NS" && fail "namespaces left behind: $(ip netns list | grep "^$TC_NS")"
echo "test_two_hosts: ok"
