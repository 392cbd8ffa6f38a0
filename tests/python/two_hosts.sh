#!/usr/bin/env bash
# The torch backend across two "hosts" (tests/hosts/netns.sh), two ranks each, one tcrun job: the ranks of
# a host share memory, the other host's are reached over UCX on the veth link. job_torch.py checks every
# result; torch's store listens on rank 0's address on the link (tilecomm.torch finds it). Exit 77: skipped.
#   two_hosts.sh TCRUN PYTHON JOB
set -uo pipefail
tcrun=$(realpath "$1") python=$2 job=$(realpath "$3")
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../hosts/netns.sh"
hosts_up 2 || exit $?
export TC_NS tcrun python job
hosts_export
out=$(in_net 0 env TILECOMM_BOOTSTRAP_ADDR="$(host_addr 0)" TILECOMM_BOOTSTRAP_TIMEOUT=30 UCX_TLS=tcp \
  TILECOMM_TIMEOUT=120 "$tcrun" -n 4 bash -c 'pe_on_host $((TILECOMM_RANK / 2)) "$python" "$job"' 2>&1)
status=$?
echo "$out"
hosts_down
[[ $status -eq 0 ]] || { echo "two_hosts: the job failed (status $status)" >&2; exit 1; }
[[ $(grep -c "job_torch: ok" <<<"$out") -eq 4 ]] || { echo "two_hosts: not every rank said ok" >&2; exit 1; }
grep -q "MASTER_ADDR\|169.254.77.10" <<<"$out" || true
echo "two_hosts: ok"
