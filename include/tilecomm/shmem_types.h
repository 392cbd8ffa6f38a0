/* The type tables of the OpenSHMEM 1.5 specification, as X-macros.
 *
 * Each list calls X(TYPE, TYPENAME) once per row of the specification's
 * table; <shmem.h> uses them to declare the typed interfaces and the library
 * uses the same lists to define them, so the two cannot drift apart.
 * The GENERIC lists hold only distinct C types (int64_t is long on LP64
 * Linux, and so on): they drive _Generic selections and C++ overloads. */
#ifndef TILECOMM_SHMEM_TYPES_H
#define TILECOMM_SHMEM_TYPES_H

#include <stddef.h>
#include <stdint.h>

/* Table 5: standard RMA types */
#define SHMEMI_RMA_TYPES(X)                                                          \
  X(float, float) X(double, double) X(long double, longdouble) X(char, char)         \
  X(signed char, schar) X(short, short) X(int, int) X(long, long)                    \
  X(long long, longlong) X(unsigned char, uchar) X(unsigned short, ushort)           \
  X(unsigned int, uint) X(unsigned long, ulong) X(unsigned long long, ulonglong)     \
  X(int8_t, int8) X(int16_t, int16) X(int32_t, int32) X(int64_t, int64)              \
  X(uint8_t, uint8) X(uint16_t, uint16) X(uint32_t, uint32) X(uint64_t, uint64)      \
  X(size_t, size) X(ptrdiff_t, ptrdiff)

/* Table 6: standard AMO types */
#define SHMEMI_AMO_TYPES(X)                                                          \
  X(int, int) X(long, long) X(long long, longlong) X(unsigned int, uint)             \
  X(unsigned long, ulong) X(unsigned long long, ulonglong) X(int32_t, int32)         \
  X(int64_t, int64) X(uint32_t, uint32) X(uint64_t, uint64) X(size_t, size)          \
  X(ptrdiff_t, ptrdiff)

/* Table 7: extended AMO types (fetch, set, swap) */
#define SHMEMI_AMO_EXT_TYPES(X) X(float, float) X(double, double) SHMEMI_AMO_TYPES(X)

/* Table 8: bitwise AMO types */
#define SHMEMI_AMO_BIT_TYPES(X)                                                      \
  X(unsigned int, uint) X(unsigned long, ulong) X(unsigned long long, ulonglong)     \
  X(int32_t, int32) X(int64_t, int64) X(uint32_t, uint32) X(uint64_t, uint64)

/* Table 10: point-to-point synchronization types */
#define SHMEMI_SYNC_TYPES(X)                                                         \
  X(short, short) X(int, int) X(long, long) X(long long, longlong)                   \
  X(unsigned short, ushort) X(unsigned int, uint) X(unsigned long, ulong)            \
  X(unsigned long long, ulonglong) X(int32_t, int32) X(int64_t, int64)               \
  X(uint32_t, uint32) X(uint64_t, uint64) X(size_t, size) X(ptrdiff_t, ptrdiff)

/* The complex types of the reduction tables. C names the specification's
 * types; C++ has no _Complex, so it uses std::complex, which has the same
 * layout (two consecutive floating values, real part first). The names stay
 * macros so that one list serves both languages; a definition made before
 * this header wins (scripts/gen-pshmem.sh keeps the names in <pshmem.h>). */
#ifdef __cplusplus
#include <complex>
#ifndef SHMEMI_COMPLEXF
#define SHMEMI_COMPLEXF std::complex<float>
#endif
#ifndef SHMEMI_COMPLEXD
#define SHMEMI_COMPLEXD std::complex<double>
#endif
#else
#ifndef SHMEMI_COMPLEXF
#define SHMEMI_COMPLEXF float _Complex
#endif
#ifndef SHMEMI_COMPLEXD
#define SHMEMI_COMPLEXD double _Complex
#endif
#endif

/* The table of team-based reductions, one list per group of rows that share
 * their operations. Signed integers: MAX MIN SUM PROD. */
#define SHMEMI_REDUCE_SIGNED_TYPES(X)                                                \
  X(char, char) X(signed char, schar) X(short, short) X(int, int) X(long, long)      \
  X(long long, longlong) X(ptrdiff_t, ptrdiff)
/* Unsigned and fixed-width integers: AND OR XOR MAX MIN SUM PROD. */
#define SHMEMI_REDUCE_BITWISE_TYPES(X)                                               \
  X(unsigned char, uchar) X(unsigned short, ushort) X(unsigned int, uint)            \
  X(unsigned long, ulong) X(unsigned long long, ulonglong) X(int8_t, int8)           \
  X(int16_t, int16) X(int32_t, int32) X(int64_t, int64) X(uint8_t, uint8)            \
  X(uint16_t, uint16) X(uint32_t, uint32) X(uint64_t, uint64) X(size_t, size)
/* Real types: MAX MIN SUM PROD (the active-set table has the same rows). */
#define SHMEMI_REDUCE_REAL_TYPES(X) X(float, float) X(double, double) X(long double, longdouble)
/* Complex types: SUM PROD (the active-set table has the same rows). */
#define SHMEMI_REDUCE_COMPLEX_TYPES(X) X(SHMEMI_COMPLEXD, complexd) X(SHMEMI_COMPLEXF, complexf)
/* The same table by operation. */
#define SHMEMI_REDUCE_MINMAX_TYPES(X)                                                \
  SHMEMI_REDUCE_SIGNED_TYPES(X) SHMEMI_REDUCE_BITWISE_TYPES(X) SHMEMI_REDUCE_REAL_TYPES(X)
#define SHMEMI_REDUCE_ARITH_TYPES(X) SHMEMI_REDUCE_MINMAX_TYPES(X) SHMEMI_REDUCE_COMPLEX_TYPES(X)

/* The table of active-set reductions (shmem_TYPENAME_OP_to_all). Integers:
 * AND OR XOR MAX MIN SUM PROD; real and complex rows as in the team table. */
#define SHMEMI_TO_ALL_BITWISE_TYPES(X)                                               \
  X(short, short) X(int, int) X(long, long) X(long long, longlong)
#define SHMEMI_TO_ALL_MINMAX_TYPES(X) SHMEMI_TO_ALL_BITWISE_TYPES(X) SHMEMI_REDUCE_REAL_TYPES(X)
#define SHMEMI_TO_ALL_ARITH_TYPES(X) SHMEMI_TO_ALL_MINMAX_TYPES(X) SHMEMI_REDUCE_COMPLEX_TYPES(X)

/* Sized RMA: X(bits) */
#define SHMEMI_SIZES(X) X(8) X(16) X(32) X(64) X(128)

/* Distinct C types of each table, for type-generic selection. */
#define SHMEMI_RMA_GENERIC(X)                                                        \
  X(float, float) X(double, double) X(long double, longdouble) X(char, char)         \
  X(signed char, schar) X(short, short) X(int, int) X(long, long)                    \
  X(long long, longlong) X(unsigned char, uchar) X(unsigned short, ushort)           \
  X(unsigned int, uint) X(unsigned long, ulong) X(unsigned long long, ulonglong)
#define SHMEMI_AMO_GENERIC(X)                                                        \
  X(int, int) X(long, long) X(long long, longlong) X(unsigned int, uint)             \
  X(unsigned long, ulong) X(unsigned long long, ulonglong)
#define SHMEMI_AMO_EXT_GENERIC(X) X(float, float) X(double, double) SHMEMI_AMO_GENERIC(X)
#define SHMEMI_AMO_BIT_GENERIC(X)                                                    \
  X(unsigned int, uint) X(unsigned long, ulong) X(unsigned long long, ulonglong)     \
  X(int, int32) X(long, int64)
#define SHMEMI_SYNC_GENERIC(X)                                                       \
  X(short, short) X(int, int) X(long, long) X(long long, longlong)                   \
  X(unsigned short, ushort) X(unsigned int, uint) X(unsigned long, ulong)            \
  X(unsigned long long, ulonglong)
/* The bitwise team reductions name the signed integers only by their
 * fixed widths: signed char, short, int and long select int8 ... int64. */
#define SHMEMI_REDUCE_BITWISE_GENERIC(X)                                             \
  X(unsigned char, uchar) X(unsigned short, ushort) X(unsigned int, uint)            \
  X(unsigned long, ulong) X(unsigned long long, ulonglong) X(signed char, int8)      \
  X(short, int16) X(int, int32) X(long, int64)
#define SHMEMI_REDUCE_MINMAX_GENERIC(X)                                              \
  X(char, char) X(signed char, schar) X(short, short) X(int, int) X(long, long)      \
  X(long long, longlong) X(unsigned char, uchar) X(unsigned short, ushort)           \
  X(unsigned int, uint) X(unsigned long, ulong) X(unsigned long long, ulonglong)     \
  X(float, float) X(double, double) X(long double, longdouble)
#define SHMEMI_REDUCE_ARITH_GENERIC(X) SHMEMI_REDUCE_MINMAX_GENERIC(X) SHMEMI_REDUCE_COMPLEX_TYPES(X)

#endif
