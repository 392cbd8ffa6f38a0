#!/usr/bin/env bash
# Installs the Debian packages tilecomm needs, if any is missing.
#   scripts/install-deps.sh          build and test dependencies
#   scripts/install-deps.sh --bench  also the peers of bench/compare and bench/compare-coll:
#                                    OpenMPI (its OSHMEM and MPI), MPICH, gnuplot for the plots, and
#                                    ucx_perftest (ucx-utils)
set -euo pipefail

# clang and libclang-rt-14-dev: clang-14 with libFuzzer (-fsanitize=fuzzer), for make test-fuzz.
# libopenblas-dev: the BLAS of the fused matmul operators.
# libpmix-dev: PMIx's header (jobs started by OpenMPI's mpirun or srun); mpich and openmpi-bin: the
# launchers the launch tests start jobs with. libucx-dev: UCX, the transport between hosts.
packages=(g++ gcc make cmake libgtest-dev pkg-config clang libclang-rt-14-dev libopenblas-dev libpmix-dev mpich
          openmpi-bin libucx-dev)
if [[ "${1:-}" == "--bench" ]]; then
  packages+=(libopenmpi-dev libmpich-dev gnuplot-nox ucx-utils)
fi

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
[[ ${#missing[@]} -eq 0 ]] && exit 0

echo "install-deps: installing ${missing[*]}"
if [[ $(id -u) -ne 0 ]]; then
  sudo=sudo
  command -v sudo >/dev/null || { echo "install-deps: need root (or sudo) to install: ${missing[*]}" >&2; exit 1; }
else
  sudo=
fi
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -q
$sudo apt-get install -y -q --no-install-recommends "${missing[@]}"
