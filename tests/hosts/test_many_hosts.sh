#!/usr/bin/env bash
# More hosts than a leader has pushed words for (kLeaderHosts = 16): 20
# "hosts" of 2 PEs each on this machine, each PE told its host by
# TILECOMM_HOST_ID, UCX over TCP between them. hosts_smoke checks a ring of
# puts, an fcollect and reductions over all 40 PEs; they must still go host
# by host (the leaders fetch each other's shares), so each PE makes UCX
# endpoints only towards its dissemination-barrier partners on other hosts
# (PE + 1, 2, 4, 8, 16, 32 mod 40) and, on a leader (even PEs), towards the
# 19 other leaders. Leaders' partners are all leaders: 19 endpoints each;
# odd PEs' six partners are all on other hosts: 6 each; mean 12.5. Flat
# collectives would make 38 on every PE.
#   test_many_hosts.sh TCRUN HOSTS_SMOKE
set -uo pipefail
tcrun=$1 pe=$2
out=$(UCX_TLS=tcp TILECOMM_TIMEOUT=300 "$tcrun" -n 40 bash -c 'TILECOMM_HOST_ID=h$((TILECOMM_RANK / 2)) exec "$0"' \
  "$pe" 2>&1)
status=$?
echo "$out"
[[ $status -eq 0 ]] || { echo "test_many_hosts: the 40-PE job over 20 hosts failed (status $status)" >&2; exit 1; }
grep -q "hosts_smoke: 40 PEs (2 on PE 0's host).*min 6, mean 12.5, max 19; checks passed" <<<"$out" || {
  echo "test_many_hosts: expected 40 PEs, 2 per host, and 6 to 19 UCX endpoints per PE, mean 12.5 (barrier" \
    "partners and host leaders)" >&2
  exit 1
}
echo "test_many_hosts: ok"
