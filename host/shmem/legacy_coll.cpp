// The active-set entry points (deprecated in 1.5, still listed): thin wrappers over the
// participant-set collectives of active_set.hpp, generated from the spec's type lists.
#include "host/shmem/active_set.hpp"

using gshmem::compat::active_set;
namespace compat = gshmem::compat;

extern "C" {

void shmem_barrier(int PE_start, int logPE_stride, int PE_size, long* pSync) {
  compat::as_barrier(active_set(PE_start, logPE_stride, PE_size, pSync, "shmem_barrier"));
}

void shmem_sync(int PE_start, int logPE_stride, int PE_size, long* pSync) {
  compat::as_sync(active_set(PE_start, logPE_stride, PE_size, pSync, "shmem_sync"));
}

#define GSHMEM_COMPAT_DEF_ACTIVE_SET(BITS)                                                         \
  void shmem_broadcast##BITS(void* dest, const void* source, size_t nelems, int PE_root,           \
                             int PE_start, int logPE_stride, int PE_size, long* pSync) {           \
    compat::as_broadcast(                                                                          \
        active_set(PE_start, logPE_stride, PE_size, pSync, "shmem_broadcast" #BITS), dest, source, \
        nelems*(BITS / 8), PE_root);                                                               \
  }                                                                                                \
  void shmem_collect##BITS(void* dest, const void* source, size_t nelems, int PE_start,            \
                           int logPE_stride, int PE_size, long* pSync) {                           \
    compat::as_collect(active_set(PE_start, logPE_stride, PE_size, pSync, "shmem_collect" #BITS),  \
                       dest, source, nelems*(BITS / 8));                                           \
  }                                                                                                \
  void shmem_fcollect##BITS(void* dest, const void* source, size_t nelems, int PE_start,           \
                            int logPE_stride, int PE_size, long* pSync) {                          \
    compat::as_fcollect(                                                                           \
        active_set(PE_start, logPE_stride, PE_size, pSync, "shmem_fcollect" #BITS), dest, source,  \
        nelems*(BITS / 8));                                                                        \
  }                                                                                                \
  void shmem_alltoall##BITS(void* dest, const void* source, size_t nelems, int PE_start,           \
                            int logPE_stride, int PE_size, long* pSync) {                          \
    compat::as_alltoall(                                                                           \
        active_set(PE_start, logPE_stride, PE_size, pSync, "shmem_alltoall" #BITS), dest, source,  \
        nelems*(BITS / 8));                                                                        \
  }                                                                                                \
  void shmem_alltoalls##BITS(void* dest, const void* source, ptrdiff_t dst, ptrdiff_t sst,         \
                             size_t nelems, int PE_start, int logPE_stride, int PE_size,           \
                             long* pSync) {                                                        \
    using T = gshmem::detail::SizedElem<BITS>::type;                                               \
    compat::as_alltoalls(                                                                          \
        active_set(PE_start, logPE_stride, PE_size, pSync, "shmem_alltoalls" #BITS),               \
        static_cast<T*>(dest), static_cast<const T*>(source), dst, sst, nelems);                   \
  }
GSHMEM_COMPAT_DEF_ACTIVE_SET(32)
GSHMEM_COMPAT_DEF_ACTIVE_SET(64)
#undef GSHMEM_COMPAT_DEF_ACTIVE_SET

#define GSHMEM_COMPAT_DEF_TO_ALL(NAME, T, OP)                                                 \
  void shmem_##NAME##_##OP##_to_all(T* dest, const T* source, int nreduce, int PE_start,      \
                                    int logPE_stride, int PE_size, T*, long* pSync) {         \
    compat::as_reduce<compat::kRedOp_##OP>(                                                   \
        active_set(PE_start, logPE_stride, PE_size, pSync, "shmem_" #NAME "_" #OP "_to_all"), \
        dest, source, nreduce);                                                               \
  }
#define GSHMEM_COMPAT_DEF_TO_ALL_BITWISE(OP, A) \
  GSHMEM_COMPAT_TO_ALL_BITWISE(GSHMEM_COMPAT_DEF_TO_ALL, OP)
#define GSHMEM_COMPAT_DEF_TO_ALL_MINMAX(OP, A) \
  GSHMEM_COMPAT_TO_ALL_MINMAX(GSHMEM_COMPAT_DEF_TO_ALL, OP)
#define GSHMEM_COMPAT_DEF_TO_ALL_ARITH(OP, A) \
  GSHMEM_COMPAT_TO_ALL_ARITH(GSHMEM_COMPAT_DEF_TO_ALL, OP)
GSHMEM_COMPAT_OPS_BITWISE(GSHMEM_COMPAT_DEF_TO_ALL_BITWISE, )
GSHMEM_COMPAT_OPS_MINMAX(GSHMEM_COMPAT_DEF_TO_ALL_MINMAX, )
GSHMEM_COMPAT_OPS_ARITH(GSHMEM_COMPAT_DEF_TO_ALL_ARITH, )
#undef GSHMEM_COMPAT_DEF_TO_ALL_BITWISE
#undef GSHMEM_COMPAT_DEF_TO_ALL_MINMAX
#undef GSHMEM_COMPAT_DEF_TO_ALL_ARITH
#undef GSHMEM_COMPAT_DEF_TO_ALL

}  // extern "C"
