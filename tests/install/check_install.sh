#!/usr/bin/env bash
# Installs the build into a temporary prefix and builds a program against it
# the three ways a user would: the tccc wrapper, find_package(tilecomm), and
# pkg-config; then a profiling tool (<pshmem.h>, <mpp/shmem.h>) against the
# shared and the static library. Each program runs under the installed tcrun
# with 2 PEs.
#   check_install.sh BUILD_DIR SOURCE_DIR
set -euo pipefail
build=$1 src=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
prefix=$tmp/prefix

cmake --install "$build" --prefix "$prefix" >/dev/null
# The installed programs must find their library from any prefix, moved or not,
# without LD_LIBRARY_PATH.
mv "$prefix" "$tmp/moved" && prefix=$tmp/moved
echo "== installed tools"
# grep reads all the output (no -q): under pipefail, a grep that stops early
# would fail the pipe whenever tilecomm-info is still writing (SIGPIPE).
env -u LD_LIBRARY_PATH "$prefix/bin/tilecomm-info" | grep SHMEM_SYMMETRIC_SIZE >/dev/null
env -u LD_LIBRARY_PATH "$prefix/bin/tcrun" -n 2 "$prefix/bin/tilecomm-perf" --only signal_rtt --reps 1 --rep-ms 1 >/dev/null
echo "== tccc"
"$prefix/bin/tccc" -O2 "$src/examples/demo.c" -o "$tmp/demo_tccc"
"$prefix/bin/tcrun" -n 2 "$tmp/demo_tccc"

echo "== find_package(tilecomm)"
mkdir -p "$tmp/proj"
cp "$src/examples/demo.c" "$tmp/proj/"
cat > "$tmp/proj/CMakeLists.txt" <<'CM'
cmake_minimum_required(VERSION 3.20)
project(use_tilecomm C)
find_package(tilecomm REQUIRED)
add_executable(demo demo.c)
target_link_libraries(demo PRIVATE tilecomm::tilecomm)
CM
cmake -S "$tmp/proj" -B "$tmp/proj/build" -DCMAKE_PREFIX_PATH="$prefix" >/dev/null
cmake --build "$tmp/proj/build" >/dev/null
LD_LIBRARY_PATH=$prefix/lib "$prefix/bin/tcrun" -n 2 "$tmp/proj/build/demo"

echo "== pkg-config"
flags=$(PKG_CONFIG_PATH=$prefix/lib/pkgconfig pkg-config --cflags --libs tilecomm)
cc "$src/examples/demo.c" $flags -o "$tmp/demo_pc"
LD_LIBRARY_PATH=$prefix/lib "$prefix/bin/tcrun" -n 2 "$tmp/demo_pc"
echo "== profiling interface and <mpp/...> headers, shared and static"
"$prefix/bin/tccc" -O2 "$src/tests/api/test_profiling.c" -o "$tmp/prof_shared"
"$prefix/bin/tcrun" -n 2 "$tmp/prof_shared"
cc -O2 -I"$prefix/include" -c "$src/tests/api/test_profiling.c" -o "$tmp/prof.o"
# The static library's own dependencies come from the .pc file's Libs.private (-ldl: UCX, PMIx and OpenBLAS are
# loaded at run time).
deps=$(PKG_CONFIG_PATH=$prefix/lib/pkgconfig pkg-config --static --libs tilecomm | sed -e 's/-ltilecomm//' -e 's/-L[^ ]*//g')
c++ "$tmp/prof.o" "$prefix/lib/libtilecomm.a" $deps -o "$tmp/prof_static"
"$prefix/bin/tcrun" -n 2 "$tmp/prof_static"
echo "install check passed"
