/* The type tables of the OpenSHMEM 1.5 specification as X-macro lists: X(NAME, TYPE, A), where
 * NAME is the part of the routine name (shmem_NAME_put), TYPE the C type and A an argument passed
 * through unchanged (the generic interfaces use it for the operation name).
 *
 * The *_GENERIC lists are the same tables without the typedef names (int8_t is signed char,
 * size_t is unsigned long, ...): a C11 _Generic selection or a C++ overload set may name each C
 * type only once, and the typedefs reach their routine through the underlying type.
 */
#ifndef GSHMEM_COMPAT_SHMEM_TYPELIST_H
#define GSHMEM_COMPAT_SHMEM_TYPELIST_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
#include <complex>
#define GSHMEM_COMPAT_COMPLEXF std::complex<float>
#define GSHMEM_COMPAT_COMPLEXD std::complex<double>
#else
#define GSHMEM_COMPAT_COMPLEXF float _Complex
#define GSHMEM_COMPAT_COMPLEXD double _Complex
#endif

/* Table 5, standard RMA types: RMA, signals, broadcast/collect/fcollect/alltoall(s). */
#define GSHMEM_COMPAT_RMA_TYPES(X, A) \
  GSHMEM_COMPAT_RMA_GENERIC(X, A)     \
  X(int8, int8_t, A)                  \
  X(int16, int16_t, A)                \
  X(int32, int32_t, A)                \
  X(int64, int64_t, A)                \
  X(uint8, uint8_t, A)                \
  X(uint16, uint16_t, A)              \
  X(uint32, uint32_t, A)              \
  X(uint64, uint64_t, A)              \
  X(size, size_t, A)                  \
  X(ptrdiff, ptrdiff_t, A)
#define GSHMEM_COMPAT_RMA_GENERIC(X, A) \
  X(float, float, A)                    \
  X(double, double, A)                  \
  X(longdouble, long double, A)         \
  X(char, char, A)                      \
  X(schar, signed char, A)              \
  X(short, short, A)                    \
  X(int, int, A)                        \
  X(long, long, A)                      \
  X(longlong, long long, A)             \
  X(uchar, unsigned char, A)            \
  X(ushort, unsigned short, A)          \
  X(uint, unsigned int, A)              \
  X(ulong, unsigned long, A)            \
  X(ulonglong, unsigned long long, A)

/* Table 6, standard AMO types: every atomic except the bitwise ones. */
#define GSHMEM_COMPAT_AMO_TYPES(X, A) \
  GSHMEM_COMPAT_AMO_GENERIC(X, A)     \
  X(int32, int32_t, A)                \
  X(int64, int64_t, A)                \
  X(uint32, uint32_t, A)              \
  X(uint64, uint64_t, A)              \
  X(size, size_t, A)                  \
  X(ptrdiff, ptrdiff_t, A)
#define GSHMEM_COMPAT_AMO_GENERIC(X, A) \
  X(int, int, A)                        \
  X(long, long, A)                      \
  X(longlong, long long, A)             \
  X(uint, unsigned int, A)              \
  X(ulong, unsigned long, A)            \
  X(ulonglong, unsigned long long, A)

/* Table 7, extended AMO types: the standard ones plus these, for fetch, set and swap. */
#define GSHMEM_COMPAT_AMO_EXTENDED_ONLY(X, A) \
  X(float, float, A)                          \
  X(double, double, A)
#define GSHMEM_COMPAT_AMO_EXTENDED_GENERIC(X, A) \
  GSHMEM_COMPAT_AMO_GENERIC(X, A)                \
  GSHMEM_COMPAT_AMO_EXTENDED_ONLY(X, A)

/* Table 8, bitwise AMO types: fetch_and, and, fetch_or, or, fetch_xor, xor. */
#define GSHMEM_COMPAT_AMO_BITWISE(X, A)   \
  GSHMEM_COMPAT_AMO_BITWISE_GENERIC(X, A) \
  X(uint32, uint32_t, A)                  \
  X(uint64, uint64_t, A)
#define GSHMEM_COMPAT_AMO_BITWISE_GENERIC(X, A) \
  X(uint, unsigned int, A)                      \
  X(ulong, unsigned long, A)                    \
  X(ulonglong, unsigned long long, A)           \
  X(int32, int32_t, A)                          \
  X(int64, int64_t, A)

/* Point-to-point synchronisation types: wait_until and test. */
#define GSHMEM_COMPAT_SYNC_TYPES(X, A) \
  GSHMEM_COMPAT_SYNC_GENERIC(X, A)     \
  X(int32, int32_t, A)                 \
  X(int64, int64_t, A)                 \
  X(uint32, uint32_t, A)               \
  X(uint64, uint64_t, A)               \
  X(size, size_t, A)                   \
  X(ptrdiff, ptrdiff_t, A)
#define GSHMEM_COMPAT_SYNC_GENERIC(X, A) \
  X(short, short, A)                     \
  X(int, int, A)                         \
  X(long, long, A)                       \
  X(longlong, long long, A)              \
  X(ushort, unsigned short, A)           \
  X(uint, unsigned int, A)               \
  X(ulong, unsigned long, A)             \
  X(ulonglong, unsigned long long, A)

/* Reduction types, by operation: and/or/xor ... */
#define GSHMEM_COMPAT_REDUCE_BITWISE(X, A)   \
  GSHMEM_COMPAT_REDUCE_BITWISE_GENERIC(X, A) \
  X(uint8, uint8_t, A)                       \
  X(uint16, uint16_t, A)                     \
  X(uint32, uint32_t, A)                     \
  X(uint64, uint64_t, A)                     \
  X(size, size_t, A)
#define GSHMEM_COMPAT_REDUCE_BITWISE_GENERIC(X, A) \
  X(uchar, unsigned char, A)                       \
  X(ushort, unsigned short, A)                     \
  X(uint, unsigned int, A)                         \
  X(ulong, unsigned long, A)                       \
  X(ulonglong, unsigned long long, A)              \
  X(int8, int8_t, A)                               \
  X(int16, int16_t, A)                             \
  X(int32, int32_t, A)                             \
  X(int64, int64_t, A)

/* ... max/min ... */
#define GSHMEM_COMPAT_REDUCE_MINMAX(X, A)   \
  GSHMEM_COMPAT_REDUCE_MINMAX_GENERIC(X, A) \
  X(ptrdiff, ptrdiff_t, A)                  \
  X(int8, int8_t, A)                        \
  X(int16, int16_t, A)                      \
  X(int32, int32_t, A)                      \
  X(int64, int64_t, A)                      \
  X(uint8, uint8_t, A)                      \
  X(uint16, uint16_t, A)                    \
  X(uint32, uint32_t, A)                    \
  X(uint64, uint64_t, A)                    \
  X(size, size_t, A)
#define GSHMEM_COMPAT_REDUCE_MINMAX_GENERIC(X, A) \
  X(char, char, A)                                \
  X(schar, signed char, A)                        \
  X(short, short, A)                              \
  X(int, int, A)                                  \
  X(long, long, A)                                \
  X(longlong, long long, A)                       \
  X(uchar, unsigned char, A)                      \
  X(ushort, unsigned short, A)                    \
  X(uint, unsigned int, A)                        \
  X(ulong, unsigned long, A)                      \
  X(ulonglong, unsigned long long, A)             \
  X(float, float, A)                              \
  X(double, double, A)                            \
  X(longdouble, long double, A)

/* ... sum/prod: the max/min types and the complex ones. */
#define GSHMEM_COMPAT_REDUCE_COMPLEX(X, A) \
  X(complexd, GSHMEM_COMPAT_COMPLEXD, A)   \
  X(complexf, GSHMEM_COMPAT_COMPLEXF, A)
#define GSHMEM_COMPAT_REDUCE_ARITH(X, A) \
  GSHMEM_COMPAT_REDUCE_MINMAX(X, A)      \
  GSHMEM_COMPAT_REDUCE_COMPLEX(X, A)
#define GSHMEM_COMPAT_REDUCE_ARITH_GENERIC(X, A) \
  GSHMEM_COMPAT_REDUCE_MINMAX_GENERIC(X, A)      \
  GSHMEM_COMPAT_REDUCE_COMPLEX(X, A)

/* The deprecated (1.3) names: the old atomics and the active-set reductions cover fewer types. */
#define GSHMEM_COMPAT_LEGACY_AMO(X, A) \
  X(int, int, A)                       \
  X(long, long, A)                     \
  X(longlong, long long, A)
#define GSHMEM_COMPAT_LEGACY_AMO_EXTENDED(X, A) \
  GSHMEM_COMPAT_LEGACY_AMO(X, A)                \
  X(float, float, A)                            \
  X(double, double, A)
#define GSHMEM_COMPAT_LEGACY_WAIT(X, A) \
  X(short, short, A)                    \
  X(int, int, A)                        \
  X(long, long, A)                      \
  X(longlong, long long, A)
#define GSHMEM_COMPAT_TO_ALL_BITWISE(X, A) GSHMEM_COMPAT_LEGACY_WAIT(X, A)
#define GSHMEM_COMPAT_TO_ALL_MINMAX(X, A) \
  GSHMEM_COMPAT_LEGACY_WAIT(X, A)         \
  X(float, float, A)                      \
  X(double, double, A)                    \
  X(longdouble, long double, A)
#define GSHMEM_COMPAT_TO_ALL_ARITH(X, A) \
  GSHMEM_COMPAT_TO_ALL_MINMAX(X, A)      \
  GSHMEM_COMPAT_REDUCE_COMPLEX(X, A)

/* Sized RMA: shmem_putBITS moves nelems elements of BITS/8 bytes. */
#define GSHMEM_COMPAT_SIZES(X, A) X(8, A) X(16, A) X(32, A) X(64, A) X(128, A)

/* Reduction operations: X(OP, A). */
#define GSHMEM_COMPAT_OPS_BITWISE(X, A) X(and, A) X(or, A) X(xor, A)
#define GSHMEM_COMPAT_OPS_MINMAX(X, A) X(max, A) X(min, A)
#define GSHMEM_COMPAT_OPS_ARITH(X, A) X(sum, A) X(prod, A)

#endif /* GSHMEM_COMPAT_SHMEM_TYPELIST_H */
