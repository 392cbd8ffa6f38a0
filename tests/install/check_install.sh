#!/usr/bin/env bash
# Installs the build into a temporary prefix, moves the prefix, and uses only
# what it holds, the three ways a user would: the tccc/tcc++ wrappers,
# find_package(tilecomm) and pkg-config.
#   - a small program of every face (face_*.c/.cpp beside this script:
#     OpenSHMEM, PTO, the C++ communicator with the orchestration helpers and
#     an operator, the communicator's C API), each of the three ways;
#   - every example under examples/ (each .c/.cpp file is a program), with
#     the wrappers;
#   - a profiling tool (<pshmem.h>, <mpp/shmem.h>) against the shared and the
#     static library.
# Every compilation lists the headers it read (-MD), and each must come from
# the prefix, the system or the program's own folder: a header that is not
# installed fails the build (no flag names the build or source tree), and one
# read from anywhere else fails the check. Then the installed tools, every
# program built and every example run under the installed tcrun with 2 PEs;
# each must exit 0, and each face program must print its "ok" line.
#   check_install.sh BUILD_DIR SOURCE_DIR
set -euo pipefail
build=$1 src=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
prefix=$tmp/prefix
here=$src/tests/install
faces=(face_shmem.c face_pto.cpp face_comm.cpp face_comm_c.c)
flags=(-O1 -MD)  # -O1: these programs' run time is a few milliseconds; -MD: the headers read, for the check

cmake --install "$build" --prefix "$prefix" >/dev/null
# The installed programs must find their library from any prefix, moved or not,
# without LD_LIBRARY_PATH.
mv "$prefix" "$tmp/moved" && prefix=$tmp/moved
echo "== installed tools"
# grep reads all the output (no -q): under pipefail, a grep that stops early
# would fail the pipe whenever tilecomm-info is still writing (SIGPIPE).
env -u LD_LIBRARY_PATH "$prefix/bin/tilecomm-info" | grep SHMEM_SYMMETRIC_SIZE >/dev/null
env -u LD_LIBRARY_PATH "$prefix/bin/tcrun" -n 2 "$prefix/bin/tilecomm-perf" --only signal_rtt --reps 1 --rep-ms 1 >/dev/null

echo "== installed headers"
# Every header of include/ is in the prefix, with the generated version.h and pshmem.h (version.h.in is not).
headers_missing=$(cd "$src/include" && find . \( -name '*.h' -o -name '*.hpp' \) -printf '%P\n' | sort \
                    | while read -r h; do [ -f "$prefix/include/$h" ] || echo "$h"; done)
for h in tilecomm/version.h pshmem.h; do [ -f "$prefix/include/$h" ] || headers_missing+=" $h"; done
if [ -n "$headers_missing" ] || [ -e "$prefix/include/tilecomm/version.h.in" ]; then
  echo "headers of include/ not installed: $(tr '\n' ' ' <<<"$headers_missing")"
  [ ! -e "$prefix/include/tilecomm/version.h.in" ] || echo "version.h.in installed"
  headers_missing=yes  # fails the check after the builds, which show what each missing header breaks
fi

# ---- builds, as many at once as there are CPUs; each job's output goes to its log, shown if it fails.
jobs_max=$(nproc)
njobs=0
spawn() {  # spawn NAME COMMAND...
  local log=$tmp/logs/$1
  shift
  while [ "$(jobs -rp | wc -l)" -ge "$jobs_max" ]; do wait -n || true; done
  ( set +e; "$@" >"$log" 2>&1; echo $? >"$log.rc" ) &
  njobs=$((njobs + 1))
}
collect() {
  wait
  local failed=0 rc
  for rc in "$tmp"/logs/*.rc; do
    if [ "$(cat "$rc")" != 0 ]; then
      echo "FAILED: $(basename "${rc%.rc}")"
      cat "${rc%.rc}"
      failed=1
    fi
  done
  local statuses=("$tmp"/logs/*.rc)
  [ "${#statuses[@]}" = "$njobs" ] || { echo "$njobs build jobs, ${#statuses[@]} statuses"; failed=1; }
  return $failed
}

mkdir -p "$tmp/logs" "$tmp/wrap" "$tmp/pc" "$tmp/ex"
# A C file that includes every installed .h, and a C++ file every .h and .hpp: no header may include one that
# is not installed.
(cd "$prefix/include" && find . -name '*.h' -printf '%P\n' | sort) >"$tmp/h.list"
(cd "$prefix/include" && find . -name '*.hpp' -printf '%P\n' | sort) >"$tmp/hpp.list"
include_all() { echo '#include <shmem.h>'; cat "$@" | sed 's/.*/#include <&>/'; echo 'int main(void) { return 0; }'; }
include_all "$tmp/h.list" >"$tmp/wrap/all_headers.c"
include_all "$tmp/h.list" "$tmp/hpp.list" >"$tmp/wrap/all_headers.cpp"
echo "== building, with tccc/tcc++, find_package(tilecomm) and pkg-config"

# find_package(tilecomm): the faces in one project.
mkdir -p "$tmp/proj"
{
  echo 'cmake_minimum_required(VERSION 3.20)'
  echo 'project(use_tilecomm C CXX)'
  echo 'set(CMAKE_CXX_STANDARD 20)'
  echo 'find_package(tilecomm REQUIRED)'
  for f in "${faces[@]}"; do
    echo "add_executable(${f%.*} $here/$f)"
    echo "target_link_libraries(${f%.*} PRIVATE tilecomm::tilecomm)"
  done
} >"$tmp/proj/CMakeLists.txt"
# CMake's Makefiles (not Ninja, which deletes them) keep the .d files GCC and Clang write for each object.
spawn cmake-project bash -c "cmake -G 'Unix Makefiles' -S '$tmp/proj' -B '$tmp/proj/build' \
  -DCMAKE_PREFIX_PATH='$prefix' -DCMAKE_C_FLAGS=-O1 -DCMAKE_CXX_FLAGS=-O1 && cmake --build '$tmp/proj/build' -- -k"

# The wrappers: the faces and every example.
wrapper() { case "$1" in *.c) echo "$prefix/bin/tccc" ;; *) echo "$prefix/bin/tcc++" ;; esac; }
for f in "${faces[@]}"; do
  spawn "tcc-${f%.*}" "$(wrapper "$f")" "${flags[@]}" "$here/$f" -o "$tmp/wrap/${f%.*}"
done
mapfile -t examples < <(cd "$src/examples" && find . \( -name '*.c' -o -name '*.cpp' \) -printf '%P\n' | sort)
[ "${#examples[@]}" -ge 4 ] || { echo "expected 4 examples or more under $src/examples: ${examples[*]}"; exit 1; }
for f in "${examples[@]}"; do
  name=$(echo "${f%.*}" | tr / -)
  spawn "example-$name" "$(wrapper "$f")" "${flags[@]}" "$src/examples/$f" -o "$tmp/ex/$name"
done
for lang in c cpp; do
  spawn "tcc-all_headers.$lang" "$(wrapper "x.$lang")" "${flags[@]}" -c "$tmp/wrap/all_headers.$lang" \
    -o "$tmp/wrap/all_headers_$lang.o"
done
spawn tcc-prof_shared "$prefix/bin/tccc" "${flags[@]}" "$src/tests/api/test_profiling.c" -o "$tmp/wrap/prof_shared"

# pkg-config: the faces, and the profiling tool against the static library.
pc() { PKG_CONFIG_PATH=$prefix/lib/pkgconfig pkg-config "$@" tilecomm; }
pc_flags=$(pc --cflags --libs)
for f in "${faces[@]}"; do
  case "$f" in *.c) cc=(cc) ;; *) cc=(c++ -std=c++20) ;; esac
  # shellcheck disable=SC2086
  spawn "pc-${f%.*}" "${cc[@]}" "${flags[@]}" "$here/$f" $pc_flags -o "$tmp/pc/${f%.*}"
done
# The static library's own dependencies come from the .pc file's Libs.private (-ldl: UCX, PMIx and OpenBLAS are
# loaded at run time).
deps=$(pc --static --libs | sed -e 's/-ltilecomm//' -e 's/-L[^ ]*//g')
spawn pc-prof_static bash -c "cc ${flags[*]} $(pc --cflags) -c '$src/tests/api/test_profiling.c' -o '$tmp/pc/prof.o' \
  && c++ '$tmp/pc/prof.o' '$prefix/lib/libtilecomm.a' $deps -o '$tmp/pc/prof_static'"
collect
[ -z "$headers_missing" ] || exit 1

# Every file any of these compilations read: the prefix's, the system's, or the program's own.
mapfile -t depfiles < <(find "$tmp" -name '*.d')
[ "${#depfiles[@]}" -ge $((3 * ${#faces[@]} + ${#examples[@]} + 4)) ] \
  || { echo "expected a .d file per compilation, found ${#depfiles[@]}"; exit 1; }
read_by() { tr ' ' '\n' <"$1" | grep -v -e '^$' -e ':$' -e '^\\$' | xargs realpath -ms --; }  # the paths, without ..
strays=$(for d in "${depfiles[@]}"; do read_by "$d"; done | sort -u \
           | grep -v -e "^$prefix/" -e '^/usr/' -e "^$here/" -e "^$src/examples/" -e "^$tmp/wrap/all_headers\." \
                     -e "^$src/tests/api/test_profiling\.c$" || true)
if [ -n "$strays" ]; then
  echo "files read from outside the installed prefix:"
  echo "$strays"
  exit 1
fi
for d in "${depfiles[@]}"; do
  read_by "$d" | grep "^$prefix/include/" >/dev/null || { echo "$d: the compilation read no installed header"; exit 1; }
done

# ---- runs, one at a time (a 2-PE job spins in its waits).
run() {  # run LIBDIR|- EXPECTED|- PROGRAM ARGS...: LIBDIR is LD_LIBRARY_PATH (- unsets it); EXPECTED, a line it prints
  local env=(env -u LD_LIBRARY_PATH) expect=$2 out
  [ "$1" = - ] || env=(env LD_LIBRARY_PATH="$1")
  shift 2
  if ! out=$("${env[@]}" "$prefix/bin/tcrun" -n 2 "$@" 2>&1); then
    echo "FAILED: tcrun -n 2 $*"
    echo "$out"
    exit 1
  fi
  if [ "$expect" != - ] && ! grep -qxF -- "$expect" <<<"$out"; then
    echo "FAILED: tcrun -n 2 $*: no line \"$expect\" in"
    echo "$out"
    exit 1
  fi
}
expected_line() {
  case "$1" in
    face_shmem) echo "face shmem: ok on 2 PEs (tilecomm $version)" ;;
    face_pto) echo "face pto: ok on 2 PEs" ;;
    face_comm) echo "face comm.hpp: ok on 2 ranks" ;;
    face_comm_c) echo "face comm.h: ok on 2 ranks" ;;
    *) echo - ;;
  esac
}
version=$(sed -n 's/^#define TILECOMM_VERSION_STRING "\(.*\)"$/\1/p' "$prefix/include/tilecomm/version.h")
export OPENBLAS_NUM_THREADS=1
# The wrappers' programs find the library through their rpath; the others are shown the prefix's.
for way in wrap proj/build pc; do
  echo "== running the faces as built by ${way%/build}"
  lib=$prefix/lib
  [ "$way" != wrap ] || lib=-
  for f in "${faces[@]}"; do run "$lib" "$(expected_line "${f%.*}")" "$tmp/$way/${f%.*}"; done
done
echo "== running the examples"
for f in "${examples[@]}"; do
  name=$(echo "${f%.*}" | tr / -)
  args=()
  case "$name" in comm-allgather_seed) args=(30000 4096) ;; esac  # a 4 KiB window: many launches
  run - - "$tmp/ex/$name" "${args[@]}"
done
echo "== the profiling tool, shared and static"
run - - "$tmp/wrap/prof_shared"
run - - "$tmp/pc/prof_static"
# The Python package, where the build made it: imported from the prefix alone (its extension finds the
# library through its rpath, wherever the prefix moved), under the interpreter it was built for.
python_note=
pkg=$(find "$prefix/lib" -path '*-packages/tilecomm/_build.py' 2>/dev/null | head -1)
if [ -n "$pkg" ]; then
  echo "== the Python package"
  py=$(sed -n 's/^python = "\(.*\)"$/\1/p' "$pkg")
  run - "face python: ok on 2 PEs" env PYTHONPATH="$(dirname "$(dirname "$pkg")")" "$py" "$here/face_python.py"
  python_note=", the Python package"
fi
echo "install check passed: ${#faces[@]} faces each 3 ways, ${#examples[@]} examples$python_note"
