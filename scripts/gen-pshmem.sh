#!/usr/bin/env bash
# Generates the profiling interface (OpenSHMEM 1.5 annex "Profiling
# Interface") from the declarations of <shmem.h> and <shmemx.h>, at build
# time (CMakeLists.txt runs it), so that it always covers every routine:
#   PSHMEM_H   <pshmem.h>: pshmem_NAME / pshmemx_NAME declared for every
#              shmem_NAME / shmemx_NAME routine, with the same signature.
#   ALIASES_H  an assembler block for the C API sources (src/capi/capi.hpp):
#              in the object that defines shmem_NAME it makes shmem_NAME a weak
#              symbol and pshmem_NAME a global alias of the same code.
# A profiling tool may then define shmem_NAME and call pshmem_NAME, which
# reaches the library's code, with the shared and with the static library.
# The C11 type-generic macros have no pshmem_ form (they are macros).
#   gen-pshmem.sh CC SOURCE_INCLUDE_DIR BINARY_INCLUDE_DIR PSHMEM_H ALIASES_H
set -euo pipefail
cc=${1:?usage: gen-pshmem.sh CC SOURCE_INCLUDE_DIR BINARY_INCLUDE_DIR PSHMEM_H ALIASES_H}
src_inc=$2 bin_inc=$3 pshmem_h=$4 aliases_h=$5

# The declarations of the two headers, one a line: preprocess as C99 (no
# type-generic section), keep what comes from shmem.h and shmemx.h, split at
# ';', keep the routines. SHMEMI_NORETURN and the complex types
# (SHMEMI_COMPLEXF/D) are kept as names: <shmem.h> gives them the right
# spelling for C (_Noreturn, float _Complex) and C++ ([[noreturn]], std::complex).
decls=$("$cc" -std=c99 -E -DSHMEMI_NORETURN=SHMEMI_NORETURN -DSHMEMI_COMPLEXF=SHMEMI_COMPLEXF \
          -DSHMEMI_COMPLEXD=SHMEMI_COMPLEXD -I"$src_inc" -I"$bin_inc" "$src_inc/shmemx.h" |
  awk '/^# [0-9]+ "/ { keep = ($3 ~ /\/shmemx?\.h"$/); next } keep' |
  tr '\n' ' ' | tr ';' '\n' | sed -E 's/[[:space:]]+/ /g; s/^ //; s/ $//' |
  grep -E '(^|[^A-Za-z0-9_])shmemx?_[A-Za-z0-9_]+ ?\(' |
  sed -E 's/^(.*[^A-Za-z0-9_])?(shmemx?_[A-Za-z0-9_]+) ?\(/\2\t&/' | LC_ALL=C sort -u | cut -f2-)
names=$(sed -E 's/^.*[^A-Za-z0-9_](shmemx?_[A-Za-z0-9_]+) ?\(.*$/\1/' <<<"$decls" | LC_ALL=C sort -u)
[[ -n $names ]] || { echo "gen-pshmem.sh: no routine found in $src_inc/shmemx.h" >&2; exit 1; }

mkdir -p "$(dirname "$pshmem_h")" "$(dirname "$aliases_h")"
{
  cat <<'HDR'
/* OpenSHMEM profiling interface: pshmem_NAME is the library's shmem_NAME
 * under a shifted name, for every routine of <shmem.h> and <shmemx.h>. A
 * profiling tool defines shmem_NAME itself and calls pshmem_NAME to reach
 * the library. The C11 type-generic macros and C++ overloads have no
 * pshmem_ form; they call the typed routines, which a tool can intercept.
 * Generated at build time by scripts/gen-pshmem.sh; do not edit. */
#ifndef TILECOMM_PSHMEM_H
#define TILECOMM_PSHMEM_H

#include <shmem.h>
#include <shmemx.h>

#ifdef __cplusplus
extern "C" {
#endif

HDR
  sed -E 's/(^|[^A-Za-z0-9_])(shmemx?_[A-Za-z0-9_]+) ?\(/\1p\2(/; s/$/;/' <<<"$decls"
  cat <<'HDR'

#ifdef __cplusplus
}
#endif

#endif /* TILECOMM_PSHMEM_H */
HDR
} >"$pshmem_h.tmp"
mv "$pshmem_h.tmp" "$pshmem_h"

{
  echo "/* Generated at build time by scripts/gen-pshmem.sh; do not edit. */"
  echo "__asm__("
  while read -r n; do
    printf '    ".weak %s\\n.globl p%s\\n.set p%s, %s\\n"\n' "$n" "$n" "$n" "$n"
  done <<<"$names"
  echo ");"
} >"$aliases_h.tmp"
mv "$aliases_h.tmp" "$aliases_h"
