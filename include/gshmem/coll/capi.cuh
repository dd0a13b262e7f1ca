// Device C API: collectives on teams called from kernels (gshmem/coll/team.cuh), NVSHMEM's names
// under the gshmem_ prefix, at thread scope (the plain name: one thread of each member calls),
// warp scope (_warp) and block scope (_block):
//   gshmem_TYPENAME_OP_reduce(team, dest, source, nreduce)       OP: and or xor max min sum prod
//   gshmem_TYPENAME_fcollect(team, dest, source, nelems)          (and/or/xor: integer types)
//   gshmem_TYPENAME_alltoall(team, dest, source, nelems)
//   gshmem_TYPENAME_broadcast(team, dest, source, nelems, PE_root)
// TYPENAME: the integer names of gshmem/typelist.h's RMA list, float, double, half (__half) and
// bfloat16 (__nv_bfloat16). Return 0 or -1 (see team.cuh). Host code calls the host API
// (gshmem/collectives.h: gshmem_allreduce, ...) instead: these exist in kernels only.
#pragma once

#if !defined(__CUDACC__)
#error "gshmem/coll/capi.cuh is for CUDA sources (nvcc); host code uses gshmem/collectives.h"
#endif

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include "gshmem/coll/team.cuh"
#include "gshmem/device/capi_common.cuh"

// The type tables as written: clang-format does not settle on a layout for X-macro lists.
// clang-format off
// X(TYPENAME, C type, element type the algorithms compute in)
#define GSHMEM_FOR_COLL_INT_TYPES(X)                                                               \
  X(char, char, char)                                                                              \
  X(schar, signed char, signed char)                                                               \
  X(short, short, short) X(int, int, int) X(long, long, long) X(longlong, long long, long long)    \
      X(uchar, unsigned char, unsigned char) X(ushort, unsigned short, unsigned short)             \
          X(uint, unsigned int, unsigned int) X(ulong, unsigned long, unsigned long)               \
              X(ulonglong, unsigned long long, unsigned long long) X(int8, int8_t, int8_t)         \
                  X(int16, int16_t, int16_t) X(int32, int32_t, int32_t) X(int64, int64_t, int64_t) \
                      X(uint8, uint8_t, uint8_t) X(uint16, uint16_t, uint16_t)                     \
                          X(uint32, uint32_t, uint32_t) X(uint64, uint64_t, uint64_t)              \
                              X(size, size_t, size_t) X(ptrdiff, ptrdiff_t, ptrdiff_t)
#define GSHMEM_FOR_COLL_FLOAT_TYPES(X) \
  X(float, float, float)               \
  X(double, double, double)            \
  X(half, __half, ::gshmem::coll::half_t) X(bfloat16, __nv_bfloat16, ::gshmem::coll::bfloat16_t)

// clang-format on

#define GSHMEMI_COLL_REDUCE_ONE(NAME, T, E, OP, OPT, SFX, G)                               \
  GSHMEMI_DEVICE(int)                                                                      \
  gshmem_##NAME##_##OP##_reduce##SFX(gshmem_team_t team, T* dest, const T* source,         \
                                     size_t nreduce) {                                     \
    return ::gshmem::coll::team_reduce<G, E, ::gshmem::coll::OPT>(                         \
        GSHMEMI_CTX, team, reinterpret_cast<E*>(dest), reinterpret_cast<const E*>(source), \
        nreduce, "gshmem_" #NAME "_" #OP "_reduce" #SFX);                                  \
  }
#define GSHMEMI_COLL_MOVE_ONE(NAME, T, E, SFX, G)                                                 \
  GSHMEMI_DEVICE(int)                                                                             \
  gshmem_##NAME##_fcollect##SFX(gshmem_team_t team, T* dest, const T* source, size_t nelems) {    \
    return ::gshmem::coll::team_fcollect<G>(GSHMEMI_CTX, team, reinterpret_cast<E*>(dest),        \
                                            reinterpret_cast<const E*>(source), nelems,           \
                                            "gshmem_" #NAME "_fcollect" #SFX);                    \
  }                                                                                               \
  GSHMEMI_DEVICE(int)                                                                             \
  gshmem_##NAME##_alltoall##SFX(gshmem_team_t team, T* dest, const T* source, size_t nelems) {    \
    return ::gshmem::coll::team_alltoall<G>(GSHMEMI_CTX, team, reinterpret_cast<E*>(dest),        \
                                            reinterpret_cast<const E*>(source), nelems,           \
                                            "gshmem_" #NAME "_alltoall" #SFX);                    \
  }                                                                                               \
  GSHMEMI_DEVICE(int)                                                                             \
  gshmem_##NAME##_broadcast##SFX(gshmem_team_t team, T* dest, const T* source, size_t nelems,     \
                                 int PE_root) {                                                   \
    return ::gshmem::coll::team_broadcast<G>(GSHMEMI_CTX, team, reinterpret_cast<E*>(dest),       \
                                             reinterpret_cast<const E*>(source), nelems, PE_root, \
                                             "gshmem_" #NAME "_broadcast" #SFX);                  \
  }
#define GSHMEMI_COLL_SCOPES(X, ...)     \
  X(__VA_ARGS__, , ::gshmem::Thread)    \
  X(__VA_ARGS__, _warp, ::gshmem::Warp) \
  X(__VA_ARGS__, _block, ::gshmem::Block)
#define GSHMEMI_COLL_ARITH(NAME, T, E)                                   \
  GSHMEMI_COLL_SCOPES(GSHMEMI_COLL_REDUCE_ONE, NAME, T, E, max, OpMax)   \
  GSHMEMI_COLL_SCOPES(GSHMEMI_COLL_REDUCE_ONE, NAME, T, E, min, OpMin)   \
  GSHMEMI_COLL_SCOPES(GSHMEMI_COLL_REDUCE_ONE, NAME, T, E, sum, OpSum)   \
  GSHMEMI_COLL_SCOPES(GSHMEMI_COLL_REDUCE_ONE, NAME, T, E, prod, OpProd) \
  GSHMEMI_COLL_SCOPES(GSHMEMI_COLL_MOVE_ONE, NAME, T, E)
#define GSHMEMI_COLL_INT(NAME, T, E)                                    \
  GSHMEMI_COLL_ARITH(NAME, T, E)                                        \
  GSHMEMI_COLL_SCOPES(GSHMEMI_COLL_REDUCE_ONE, NAME, T, E, and, OpBand) \
  GSHMEMI_COLL_SCOPES(GSHMEMI_COLL_REDUCE_ONE, NAME, T, E, or, OpBor)   \
  GSHMEMI_COLL_SCOPES(GSHMEMI_COLL_REDUCE_ONE, NAME, T, E, xor, OpBxor)

GSHMEM_FOR_COLL_INT_TYPES(GSHMEMI_COLL_INT)
GSHMEM_FOR_COLL_FLOAT_TYPES(GSHMEMI_COLL_ARITH)

#undef GSHMEMI_COLL_INT
#undef GSHMEMI_COLL_ARITH
#undef GSHMEMI_COLL_SCOPES
#undef GSHMEMI_COLL_MOVE_ONE
#undef GSHMEMI_COLL_REDUCE_ONE
