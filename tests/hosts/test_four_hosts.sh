#!/usr/bin/env bash
# Four "hosts" (tests/hosts/netns.sh) of 16 PEs each, one 64-PE tcrun job
# over UCX_TLS=tcp: hosts_smoke checks a ring of puts, an fcollect and a
# sum over all PEs and reports the init time and the UCX endpoints made.
# Every PE must see the 16 PEs of its host in SHMEM_TEAM_SHARED, and must
# have made UCX endpoints only towards the PEs of other hosts its calls
# touched: its barrier partners (PE + 1, 2, 4, ..., 32: the ring's put goes
# to the first), and for the 4 host leaders the other 3 leaders (the
# collectives go host by host; teams learn the hosts without a message).
# Over PEs 0-63 that is 2 to 6 endpoints, 192 in all. Exit 77: skipped (no
# namespaces here).
#   test_four_hosts.sh TCRUN HOSTS_SMOKE
set -uo pipefail
tcrun=$(realpath "$1") pe=$(realpath "$2")
here=$(cd "$(dirname "$0")" && pwd)
. "$here/netns.sh"
hosts_up 4 || exit $?
export pe
hosts_export

fail() { echo "test_four_hosts: $*" >&2; exit 1; }

out=$(in_net 0 env TILECOMM_BOOTSTRAP_ADDR="$(host_addr 0)" TILECOMM_BOOTSTRAP_TIMEOUT=120 TILECOMM_TIMEOUT=300 \
  UCX_TLS=tcp "$tcrun" -n 64 bash -c 'pe_on_host $((TILECOMM_RANK / 16)) "$pe"' 2>&1)
status=$?
echo "$out"
[[ $status -eq 0 ]] || fail "the 64-PE job over four hosts failed (status $status)"
grep -q "hosts_smoke: 64 PEs (16 on PE 0's host).*min 2, mean 3.0, max 6; checks passed" <<<"$out" ||
  fail "expected 64 PEs, 16 per host, and 2 to 6 UCX endpoints per PE, mean 3.0 (barrier partners and host leaders)"

hosts_down
ip netns list | grep -q "^$TC_NS" && fail "namespaces left behind: $(ip netns list | grep "^$TC_NS")"
echo "test_four_hosts: ok"
