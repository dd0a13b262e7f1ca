/* The type families of the typed API, as X-macro lists: X(NAME, TYPE) where NAME is the part of
 * the function name (gshmem_NAME_put) and TYPE the C type. The typed C functions are one-line
 * wrappers over the C++ templates, generated from these lists.
 *
 * Typed names, so grep finds them: for every NAME in the lists below, for example
 *   RMA:      gshmem_int_put gshmem_int_put_nbi gshmem_int_get gshmem_int_get_nbi gshmem_int_p
 *             gshmem_int_g gshmem_int_iput gshmem_int_iget gshmem_int_put_signal
 *             gshmem_int_put_signal_nbi
 *   AMO:      gshmem_int_atomic_fetch _set _swap _compare_swap _fetch_inc _inc _fetch_add _add
 *   bitwise:  gshmem_uint_atomic_fetch_and _and _fetch_or _or _fetch_xor _xor
 *   extended: gshmem_float_atomic_fetch _set _swap
 *   waits:    gshmem_int_wait_until _all _any _some _all_vector _any_vector _some_vector
 *             gshmem_int_test _all _any _some _all_vector _any_vector _some_vector
 */
#ifndef GSHMEM_TYPELIST_H
#define GSHMEM_TYPELIST_H

#include <stddef.h>
#include <stdint.h>

#define GSHMEM_FOR_RMA_TYPES(X)      \
  X(float, float)                    \
  X(double, double)                  \
  X(char, char)                      \
  X(schar, signed char)              \
  X(short, short)                    \
  X(int, int)                        \
  X(long, long)                      \
  X(longlong, long long)             \
  X(uchar, unsigned char)            \
  X(ushort, unsigned short)          \
  X(uint, unsigned int)              \
  X(ulong, unsigned long)            \
  X(ulonglong, unsigned long long)   \
  X(int8, int8_t)                    \
  X(int16, int16_t)                  \
  X(int32, int32_t)                  \
  X(int64, int64_t)                  \
  X(uint8, uint8_t)                  \
  X(uint16, uint16_t)                \
  X(uint32, uint32_t)                \
  X(uint64, uint64_t)                \
  X(size, size_t)                    \
  X(ptrdiff, ptrdiff_t)

/* Standard AMO types: every atomic operation except the bitwise ones. */
#define GSHMEM_FOR_AMO_TYPES(X)      \
  X(int, int)                        \
  X(long, long)                      \
  X(longlong, long long)             \
  X(uint, unsigned int)              \
  X(ulong, unsigned long)            \
  X(ulonglong, unsigned long long)   \
  X(int32, int32_t)                  \
  X(int64, int64_t)                  \
  X(uint32, uint32_t)                \
  X(uint64, uint64_t)                \
  X(size, size_t)                    \
  X(ptrdiff, ptrdiff_t)

/* Bitwise AMO types: fetch_and, and, fetch_or, or, fetch_xor, xor. */
#define GSHMEM_FOR_AMO_BITWISE_TYPES(X) \
  X(uint, unsigned int)                 \
  X(ulong, unsigned long)               \
  X(ulonglong, unsigned long long)      \
  X(int32, int32_t)                     \
  X(int64, int64_t)                     \
  X(uint32, uint32_t)                   \
  X(uint64, uint64_t)

/* Extended AMO types: fetch, set and swap only. */
#define GSHMEM_FOR_AMO_EXTENDED_TYPES(X) \
  X(float, float)                        \
  X(double, double)

/* Point-to-point synchronisation types: wait_until and test families. */
#define GSHMEM_FOR_WAIT_TYPES(X)     \
  X(short, short)                    \
  X(int, int)                        \
  X(long, long)                      \
  X(longlong, long long)             \
  X(ushort, unsigned short)          \
  X(uint, unsigned int)              \
  X(ulong, unsigned long)            \
  X(ulonglong, unsigned long long)   \
  X(int32, int32_t)                  \
  X(int64, int64_t)                  \
  X(uint32, uint32_t)                \
  X(uint64, uint64_t)                \
  X(size, size_t)                    \
  X(ptrdiff, ptrdiff_t)

/* Sized RMA: gshmem_putBITS, gshmem_getBITS, ... move nelems elements of BITS/8 bytes. */
#define GSHMEM_FOR_SIZES(X) X(8) X(16) X(32) X(64) X(128)

#endif /* GSHMEM_TYPELIST_H */
