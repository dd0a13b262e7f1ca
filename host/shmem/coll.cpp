// OpenSHMEM team collectives over gshmem's NCCL-style API (gshmem/collectives.h).
//
// Data movement does not depend on the element type: broadcast, fcollect and alltoall move bytes
// (GSHMEM_UINT8, nelems * sizeof(T)), so one function per routine serves every typed wrapper.
// collect (sizes may differ) exchanges the sizes with an allgather, then each member puts its
// block at its offset in every member's dest and a team barrier completes them. alltoalls packs
// the strided elements, runs alltoall, and unpacks. Reductions pass the element type and the
// operation through.
#include <complex>
#include <cstring>
#include <string>
#include <type_traits>
#include <vector>

#include "gshmem/collectives.h"
#include "host/shmem/common.hpp"
#include "host/shmem/reduce_ops.hpp"

using gshmem::compat::ctx;
namespace compat = gshmem::compat;

namespace {

// The calling PE's view of the team, or nullptr after printing why (the routine then returns
// non-zero, as the spec has collectives report errors).
const gshmem::TeamInfo* member_team(shmem_team_t team, const char* call) {
  const gshmem::DeviceContext& c = ctx();
  gshmem_team_t t = compat::team_of(team);
  const gshmem::TeamInfo* info = c.teams && t >= 0 && t < GSHMEM_MAX_TEAMS ? &c.teams[t] : nullptr;
  if (!info || info->size <= 0 || info->my_index < 0) {
    gshmem::log::error("%s: %s", call,
                       !c.n_pes                     ? "called outside shmem_init..shmem_finalize"
                       : team == SHMEM_TEAM_INVALID ? "team is SHMEM_TEAM_INVALID"
                                                    : "team is not a team this PE belongs to");
    return nullptr;
  }
  return info;
}

// nelems elements of `size` bytes, or false (after printing why) when that overflows.
bool bytes_of(size_t nelems, size_t size, size_t* bytes, const char* call) {
  if (__builtin_mul_overflow(nelems, size, bytes)) {
    gshmem::log::error("%s: nelems=%zu elements of %zu bytes overflow", call, nelems, size);
    return false;
  }
  return true;
}

int broadcast(shmem_team_t team, void* dest, const void* source, size_t nelems, size_t size,
              int root, const char* call) {
  size_t bytes;
  if (!member_team(team, call) || !bytes_of(nelems, size, &bytes, call)) return -1;
  return gshmem_broadcast(compat::team_of(team), dest, source, bytes, GSHMEM_UINT8, root, nullptr);
}

int fcollect(shmem_team_t team, void* dest, const void* source, size_t nelems, size_t size,
             const char* call) {
  size_t bytes;
  if (!member_team(team, call) || !bytes_of(nelems, size, &bytes, call)) return -1;
  return gshmem_allgather(compat::team_of(team), dest, source, bytes, GSHMEM_UINT8, nullptr);
}

int alltoall(shmem_team_t team, void* dest, const void* source, size_t nelems, size_t size,
             const char* call) {
  size_t bytes;
  if (!member_team(team, call) || !bytes_of(nelems, size, &bytes, call)) return -1;
  return gshmem_alltoall(compat::team_of(team), dest, source, bytes, GSHMEM_UINT8, nullptr);
}

int collect(shmem_team_t team, void* dest, const void* source, size_t nelems, size_t size,
            const char* call) {
  const gshmem::TeamInfo* t = member_team(team, call);
  size_t bytes;
  if (!t || !bytes_of(nelems, size, &bytes, call)) return -1;
  gshmem_team_t handle = compat::team_of(team);
  std::vector<uint64_t> sizes(size_t(t->size));
  uint64_t mine = bytes;
  // Once this returns every member has entered the call, so its dest may be written.
  int rc = gshmem_allgather(handle, sizes.data(), &mine, 1, GSHMEM_UINT64, nullptr);
  if (rc != GSHMEM_SUCCESS) return rc;
  uint64_t offset = 0;
  for (int i = 0; i < t->my_index; ++i) offset += sizes[size_t(i)];
  char* at = static_cast<char*>(dest) + offset;
  for (int k = 1; k < t->size; ++k) {
    int i = (t->my_index + k) % t->size;
    gshmem::hostops::putmem_nbi(ctx(), at, source, bytes, t->world_pe(i), {call});
  }
  if (bytes) std::memmove(at, source, bytes);
  // quiet, then sync: every block is in place everywhere before any member returns.
  return gshmem_barrier(handle);
}

// Element k of block j sits at source[sst * (j * nelems + k)] and lands at
// dest[dst * (i * nelems + k)] on member j (i: the sender). Contiguous blocks go straight
// through alltoall; strided ones are packed around it.
template <class T>
int alltoalls(shmem_team_t team, T* dest, const T* source, ptrdiff_t dst, ptrdiff_t sst,
              size_t nelems, const char* call) {
  const gshmem::TeamInfo* t = member_team(team, call);
  if (!t) return -1;
  if (dst < 1 || sst < 1) {
    gshmem::log::error("%s: dst=%td and sst=%td must be at least 1", call, dst, sst);
    return -1;
  }
  if (dst == 1 && sst == 1) return alltoall(team, dest, source, nelems, sizeof(T), call);
  size_t total;
  if (!bytes_of(nelems, size_t(t->size), &total, call)) return -1;
  std::vector<T> packed(total), landed(total);
  for (size_t e = 0; e < total; ++e) packed[e] = source[ptrdiff_t(e) * sst];
  int rc = alltoall(team, landed.data(), packed.data(), nelems, sizeof(T), call);
  if (rc != 0) return rc;
  for (size_t e = 0; e < total; ++e) dest[ptrdiff_t(e) * dst] = landed[e];
  return 0;
}

template <class T>
constexpr gshmem_datatype_t dtype_of() {
  if constexpr (std::is_same_v<T, float>) {
    return GSHMEM_FLOAT;
  } else if constexpr (std::is_same_v<T, double>) {
    return GSHMEM_DOUBLE;
  } else if constexpr (std::is_same_v<T, long double>) {
    return GSHMEM_LONGDOUBLE;
  } else if constexpr (std::is_same_v<T, std::complex<float>>) {
    return GSHMEM_COMPLEXF;
  } else if constexpr (std::is_same_v<T, std::complex<double>>) {
    return GSHMEM_COMPLEXD;
  } else {
    static_assert(std::is_integral_v<T> && sizeof(T) <= 8);
    constexpr bool s = std::is_signed_v<T>;
    if constexpr (sizeof(T) == 1) return s ? GSHMEM_INT8 : GSHMEM_UINT8;
    if constexpr (sizeof(T) == 2) return s ? GSHMEM_INT16 : GSHMEM_UINT16;
    if constexpr (sizeof(T) == 4) return s ? GSHMEM_INT32 : GSHMEM_UINT32;
    if constexpr (sizeof(T) == 8) return s ? GSHMEM_INT64 : GSHMEM_UINT64;
  }
}

constexpr gshmem_redop_t redop_of(compat::RedOp op) {
  switch (op) {
    case compat::RedOp::And:
      return GSHMEM_BAND;
    case compat::RedOp::Or:
      return GSHMEM_BOR;
    case compat::RedOp::Xor:
      return GSHMEM_BXOR;
    case compat::RedOp::Max:
      return GSHMEM_MAX;
    case compat::RedOp::Min:
      return GSHMEM_MIN;
    case compat::RedOp::Sum:
      return GSHMEM_SUM;
    default:
      return GSHMEM_PROD;
  }
}

template <compat::RedOp Op, class T>
int reduce(shmem_team_t team, T* dest, const T* source, size_t nreduce, const char* call) {
  if (!member_team(team, call)) return -1;
  return gshmem_allreduce(compat::team_of(team), dest, source, nreduce, dtype_of<T>(), redop_of(Op),
                          nullptr);
}

}  // namespace

extern "C" {

#define GSHMEM_COMPAT_DEF_COLL(NAME, T, A)                                                      \
  int shmem_##NAME##_broadcast(shmem_team_t team, T* dest, const T* source, size_t nelems,      \
                               int root) {                                                      \
    return broadcast(team, dest, source, nelems, sizeof(T), root, "shmem_" #NAME "_broadcast"); \
  }                                                                                             \
  int shmem_##NAME##_collect(shmem_team_t team, T* dest, const T* source, size_t nelems) {      \
    return collect(team, dest, source, nelems, sizeof(T), "shmem_" #NAME "_collect");           \
  }                                                                                             \
  int shmem_##NAME##_fcollect(shmem_team_t team, T* dest, const T* source, size_t nelems) {     \
    return fcollect(team, dest, source, nelems, sizeof(T), "shmem_" #NAME "_fcollect");         \
  }                                                                                             \
  int shmem_##NAME##_alltoall(shmem_team_t team, T* dest, const T* source, size_t nelems) {     \
    return alltoall(team, dest, source, nelems, sizeof(T), "shmem_" #NAME "_alltoall");         \
  }                                                                                             \
  int shmem_##NAME##_alltoalls(shmem_team_t team, T* dest, const T* source, ptrdiff_t dst,      \
                               ptrdiff_t sst, size_t nelems) {                                  \
    return alltoalls(team, dest, source, dst, sst, nelems, "shmem_" #NAME "_alltoalls");        \
  }
GSHMEM_COMPAT_RMA_TYPES(GSHMEM_COMPAT_DEF_COLL, )
#undef GSHMEM_COMPAT_DEF_COLL

int shmem_broadcastmem(shmem_team_t team, void* dest, const void* source, size_t nelems, int root) {
  return broadcast(team, dest, source, nelems, 1, root, "shmem_broadcastmem");
}
int shmem_collectmem(shmem_team_t team, void* dest, const void* source, size_t nelems) {
  return collect(team, dest, source, nelems, 1, "shmem_collectmem");
}
int shmem_fcollectmem(shmem_team_t team, void* dest, const void* source, size_t nelems) {
  return fcollect(team, dest, source, nelems, 1, "shmem_fcollectmem");
}
int shmem_alltoallmem(shmem_team_t team, void* dest, const void* source, size_t nelems) {
  return alltoall(team, dest, source, nelems, 1, "shmem_alltoallmem");
}
int shmem_alltoallsmem(shmem_team_t team, void* dest, const void* source, ptrdiff_t dst,
                       ptrdiff_t sst, size_t nelems) {
  return alltoalls(team, static_cast<char*>(dest), static_cast<const char*>(source), dst, sst,
                   nelems, "shmem_alltoallsmem");
}

#define GSHMEM_COMPAT_DEF_REDUCE(NAME, T, OP)                                                    \
  int shmem_##NAME##_##OP##_reduce(shmem_team_t team, T* dest, const T* source, size_t n) {      \
    return reduce<compat::kRedOp_##OP>(team, dest, source, n, "shmem_" #NAME "_" #OP "_reduce"); \
  }
#define GSHMEM_COMPAT_DEF_REDUCE_BITWISE(OP, A) \
  GSHMEM_COMPAT_REDUCE_BITWISE(GSHMEM_COMPAT_DEF_REDUCE, OP)
#define GSHMEM_COMPAT_DEF_REDUCE_MINMAX(OP, A) \
  GSHMEM_COMPAT_REDUCE_MINMAX(GSHMEM_COMPAT_DEF_REDUCE, OP)
#define GSHMEM_COMPAT_DEF_REDUCE_ARITH(OP, A) \
  GSHMEM_COMPAT_REDUCE_ARITH(GSHMEM_COMPAT_DEF_REDUCE, OP)
GSHMEM_COMPAT_OPS_BITWISE(GSHMEM_COMPAT_DEF_REDUCE_BITWISE, )
GSHMEM_COMPAT_OPS_MINMAX(GSHMEM_COMPAT_DEF_REDUCE_MINMAX, )
GSHMEM_COMPAT_OPS_ARITH(GSHMEM_COMPAT_DEF_REDUCE_ARITH, )
#undef GSHMEM_COMPAT_DEF_REDUCE_BITWISE
#undef GSHMEM_COMPAT_DEF_REDUCE_MINMAX
#undef GSHMEM_COMPAT_DEF_REDUCE_ARITH
#undef GSHMEM_COMPAT_DEF_REDUCE

}  // extern "C"
