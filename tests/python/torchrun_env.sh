#!/usr/bin/env bash
# A job started as torchrun starts one: N processes with MASTER_ADDR, MASTER_PORT, RANK, WORLD_SIZE and
# LOCAL_RANK set, and none of a tilecomm launcher's variables; the tilecomm backend joins them through a
# unique ID handed over by torch's store. (Debian's torchrun itself, python3 -m torch.distributed.run,
# fails on Python 3.11 before starting anything: its Std flags lose their 0 value.)
#   torchrun_env.sh PYTHON JOB N
set -uo pipefail
py=$1 job=$2 n=$3
port=$("$py" -c "import socket; s = socket.socket(); s.bind(('127.0.0.1', 0)); print(s.getsockname()[1])")
pids=()
for ((r = 0; r < n; r++)); do
  env -u TILECOMM_UNIQUEID -u TILECOMM_RANK -u TILECOMM_SIZE -u PMI_RANK -u PMIX_RANK \
    MASTER_ADDR=127.0.0.1 MASTER_PORT="$port" RANK=$r WORLD_SIZE="$n" LOCAL_RANK=$r "$py" "$job" &
  pids+=($!)
done
status=0
for pid in "${pids[@]}"; do wait "$pid" || status=1; done
exit $status
