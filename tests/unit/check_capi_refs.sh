#!/usr/bin/env bash
# The C API objects declare every routine weak (the profiling interface,
# scripts/gen-pshmem.sh). A call from one of them to a routine that another
# object defines would then be a weak reference, which does not pull that
# object out of libtilecomm.a: a static program could call address 0. So no
# C API object may call a routine through a weak undefined symbol.
#   check_capi_refs.sh OBJECT...
set -euo pipefail
bad=0
for o in "$@"; do
  weak_undefined=$(nm "$o" | awk '$1 == "w" {print $2}' | LC_ALL=C sort -u)
  called=$(readelf -rW "$o" | awk '{print $5}' | LC_ALL=C sort -u)
  for sym in $(LC_ALL=C comm -12 <(echo "$weak_undefined") <(echo "$called")); do
    echo "check_capi_refs: $(basename "$o") calls $sym through a weak undefined symbol: call it from the file" \
         "that defines it, or give this file its own alias instead of the generated block (see src/capi/wait_until_c.c)"
    bad=1
  done
done
[[ $bad == 0 ]] && echo "check_capi_refs: $# objects, no call through a weak undefined symbol"
exit $bad
