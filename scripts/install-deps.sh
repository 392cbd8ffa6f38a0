#!/usr/bin/env bash
# Installs the Debian packages tilecomm needs, if any is missing. Each level
# takes the packages of the ones before it:
#   scripts/install-deps.sh demo    build the library, its tools and examples (make demo)
#   scripts/install-deps.sh test    also the test suite and the launchers it starts jobs with (make test)
#   scripts/install-deps.sh check   also clang's libFuzzer for the fuzz targets (make check; the default)
#   scripts/install-deps.sh bench   also the peers of bench/compare and bench/compare-coll:
#                                   OpenMPI (its OSHMEM and MPI), MPICH, gnuplot for the plots, and
#                                   ucx_perftest (ucx-utils)
set -euo pipefail

# demo: libpmix-dev: PMIx's header (jobs started by OpenMPI's mpirun or srun); libucx-dev: UCX,
# the transport between hosts; libopenblas-dev: the BLAS of the fused matmul operators;
# libgtest-dev and libgmock-dev: the test suite's framework, which configuring the build tree asks
# for; ccache: a rebuild of an unchanged file costs nothing.
# test: mpich and openmpi-bin, the launchers the launch tests start jobs with.
# demo, for the Python package (python/): python3-dev, python3-numpy and pybind11-dev; test: python3-torch
# (tilecomm.torch and its tests) and python3-pytest. NOTE [which python] in python/CMakeLists.txt: the build
# uses Debian's /usr/bin/python3, which sees these, before any other python3 on PATH.
# check: clang and libclang-rt-14-dev, clang-14 with libFuzzer (-fsanitize=fuzzer).
# bench: also mpi4py (the Python binding's per-call cost against MPI's) and matplotlib (bench/compare-python).
level=${1:-check}
packages=()
case "$level" in
  bench) packages+=(libopenmpi-dev libmpich-dev gnuplot-nox ucx-utils python3-mpi4py python3-matplotlib) ;&
  check) packages+=(clang libclang-rt-14-dev) ;&
  test) packages+=(mpich openmpi-bin python3-torch python3-pytest) ;&
  demo) packages+=(g++ gcc make cmake pkg-config libpmix-dev libucx-dev libopenblas-dev libgtest-dev libgmock-dev ccache
                   python3-dev python3-numpy pybind11-dev) ;;
  *) echo "install-deps: unknown level '$level'; use demo, test, check or bench" >&2; exit 2 ;;
esac

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [[ ${#missing[@]} -eq 0 ]]; then
  echo "install-deps: every package of level $level is installed"
  exit 0
fi

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
