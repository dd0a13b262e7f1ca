/* The table of NVSHMEM names gshmem implements (included by nvshmem.h and nvshmemx.h; see there).
 *
 * Each entry is an inline function named as in NVSHMEM that calls the gshmem function doing the
 * same thing. Where NVSHMEM's values differ from gshmem's (the signal operations, the unique id,
 * the init attributes, team configs) the entry converts them; where they agree (comparison
 * operators, team handles) a static assertion below says so. Families over a type list are
 * written once per family over gshmem's lists (gshmem/typelist.h), whose type names are
 * NVSHMEM's.
 *
 * Scope markers: NVSHMEMI_HOST entries are host-only; NVSHMEMI_BOTH ones work in host code and in
 * kernels (their gshmem function is __host__ __device__ under nvcc); NVSHMEMI_DEVICE ones (the
 * _warp and _block forms) exist in kernels only.
 */
#ifndef GSHMEM_NVSHMEM_NAMES_H
#define GSHMEM_NVSHMEM_NAMES_H

#include <limits.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#if defined(__CUDACC__)
#include <cooperative_groups.h>
#include <cuda_runtime.h>
#include <gshmem/coll/capi.cuh>
#include <gshmem/device/capi.cuh>
#define NVSHMEMI_HOST static inline __host__
#define NVSHMEMI_BOTH static inline __host__ __device__
#define NVSHMEMI_DEVICE static inline __device__
#else
#include <gshmem/gshmem.h>
#define NVSHMEMI_HOST static inline
#define NVSHMEMI_BOTH static inline
#endif
#include <gshmem/collectives.h>

/* The on-stream names take a cudaStream_t: they exist where the CUDA runtime's header does. */
#if defined(__CUDACC__) || (defined(__has_include) && __has_include(<cuda_runtime_api.h>))
#include <cuda_runtime_api.h>
#include <gshmem/launch.h>
#define NVSHMEMI_HAVE_STREAMS 1
#else
#define NVSHMEMI_HAVE_STREAMS 0
#endif

#ifdef __cplusplus
#define NVSHMEMI_STATIC_ASSERT(c, m) static_assert(c, m)
#else
#define NVSHMEMI_STATIC_ASSERT(c, m) _Static_assert(c, m)
#endif

/* ---- Versions, limits ------------------------------------------------------------------------ */

/* As in NVSHMEM: NVSHMEM_MAJOR/MINOR_VERSION are the OpenSHMEM specification level (1.3, what
 * nvshmem_info_get_version reports), the VENDOR numbers the NVSHMEM release whose API this table
 * follows (what programs test to pick APIs, e.g. NVSHMEM_VENDOR_MAJOR_VERSION >= 3). gshmem's own
 * version is GSHMEM_MAJOR_VERSION etc. */
#define NVSHMEM_MAJOR_VERSION 1
#define NVSHMEM_MINOR_VERSION 3
#define NVSHMEM_VENDOR_MAJOR_VERSION 3
#define NVSHMEM_VENDOR_MINOR_VERSION 0
#define NVSHMEM_VENDOR_PATCH_VERSION 0
#define NVSHMEM_VENDOR_VERSION                                                 \
  ((NVSHMEM_VENDOR_MAJOR_VERSION)*10000 + (NVSHMEM_VENDOR_MINOR_VERSION)*100 + \
   (NVSHMEM_VENDOR_PATCH_VERSION))
#define NVSHMEM_VENDOR_STRING "gshmem (NVSHMEM 3.0 API)"
#define NVSHMEM_MAX_NAME_LEN 256

/* ---- Types and constants, with NVSHMEM's values -------------------------------------------- */

typedef gshmem_team_t nvshmem_team_t;
typedef nvshmem_team_t nvshmemx_team_t;
enum {
  NVSHMEM_TEAM_INVALID = -1,
  NVSHMEM_TEAM_WORLD = 0,
  NVSHMEM_TEAM_SHARED = 1,
  NVSHMEMX_TEAM_NODE = 2,
  NVSHMEMX_TEAM_SAME_MYPE_NODE = 3
};
NVSHMEMI_STATIC_ASSERT(GSHMEM_TEAM_INVALID == NVSHMEM_TEAM_INVALID &&
                           GSHMEM_TEAM_WORLD == NVSHMEM_TEAM_WORLD &&
                           GSHMEM_TEAM_SHARED == NVSHMEM_TEAM_SHARED &&
                           GSHMEM_TEAM_NODE == NVSHMEMX_TEAM_NODE &&
                           GSHMEM_TEAM_SAME_MYPE_NODE == NVSHMEMX_TEAM_SAME_MYPE_NODE,
                       "team handles pass through unchanged");

typedef struct {
  int version;
  int num_contexts;
  uint64_t uniqueid;
  char padding[48];
} nvshmem_team_config_t;
#define NVSHMEM_TEAM_CONFIG_INITIALIZER                          \
  {                                                              \
    (2 << 16) + (int)sizeof(nvshmem_team_config_t), -1, ~0ull, { \
      0                                                          \
    }                                                            \
  }
#define NVSHMEM_TEAM_CONFIG_MASK_NUM_CONTEXTS 0x0000000000000001
#define NVSHMEM_TEAM_CONFIG_MASK_UNIQUEID 0x0000000000000002

typedef enum nvshmemi_cmp_type {
  NVSHMEM_CMP_EQ = 0,
  NVSHMEM_CMP_NE = 1,
  NVSHMEM_CMP_GT = 2,
  NVSHMEM_CMP_LE = 3,
  NVSHMEM_CMP_LT = 4,
  NVSHMEM_CMP_GE = 5,
  NVSHMEM_CMP_SENTINEL = INT_MAX
} nvshmemx_cmp_type_t;
NVSHMEMI_STATIC_ASSERT((int)GSHMEM_CMP_EQ == (int)NVSHMEM_CMP_EQ &&
                           (int)GSHMEM_CMP_NE == (int)NVSHMEM_CMP_NE &&
                           (int)GSHMEM_CMP_GT == (int)NVSHMEM_CMP_GT &&
                           (int)GSHMEM_CMP_LE == (int)NVSHMEM_CMP_LE &&
                           (int)GSHMEM_CMP_LT == (int)NVSHMEM_CMP_LT &&
                           (int)GSHMEM_CMP_GE == (int)NVSHMEM_CMP_GE,
                       "comparison operators pass through unchanged");

typedef enum { NVSHMEM_SIGNAL_SET = 9, NVSHMEM_SIGNAL_ADD = 10 } nvshmemx_signal_op_t;

/* NVSHMEM's signal operation as gshmem's (another value goes through as it is, for gshmem to
 * refuse by name). */
NVSHMEMI_BOTH int nvshmemi_gshmem_sig_op(int sig_op) {
  return sig_op == NVSHMEM_SIGNAL_SET   ? GSHMEM_SIGNAL_SET
         : sig_op == NVSHMEM_SIGNAL_ADD ? GSHMEM_SIGNAL_ADD
                                        : sig_op;
}

enum nvshmemx_status {
  NVSHMEMX_SUCCESS = 0,
  NVSHMEMX_ERROR_INVALID_VALUE,
  NVSHMEMX_ERROR_OUT_OF_MEMORY,
  NVSHMEMX_ERROR_NOT_SUPPORTED,
  NVSHMEMX_ERROR_SYMMETRY,
  NVSHMEMX_ERROR_GPU_NOT_SELECTED,
  NVSHMEMX_ERROR_COLLECTIVE_LAUNCH_FAILED,
  NVSHMEMX_ERROR_INTERNAL,
  NVSHMEMX_ERROR_SENTINEL = INT_MAX
};

typedef enum nvshmemx_init_status {
  NVSHMEM_STATUS_NOT_INITIALIZED = 0,
  NVSHMEM_STATUS_IS_BOOTSTRAPPED,
  NVSHMEM_STATUS_IS_INITIALIZED,
  NVSHMEM_STATUS_LIMITED_MPG,
  NVSHMEM_STATUS_FULL_MPG,
  NVSHMEM_STATUS_INVALID = INT_MAX
} nvshmemx_init_status_t;

typedef enum nvshmemx_thread_support {
  NVSHMEM_THREAD_SINGLE = 0,
  NVSHMEM_THREAD_FUNNELED,
  NVSHMEM_THREAD_SERIALIZED,
  NVSHMEM_THREAD_MULTIPLE,
  NVSHMEM_THREAD_TYPE_SENTINEL = INT_MAX
} nvshmemx_thread_support_t;

/* nvshmemx_init_attr flags. */
#define NVSHMEMX_INIT_THREAD_PES 1
#define NVSHMEMX_INIT_WITH_MPI_COMM (1 << 1)
#define NVSHMEMX_INIT_WITH_UNIQUEID (1 << 3)

/* The unique id and init attributes, laid out as NVSHMEM's (version words included). */
#define NVSHMEM_UNIQUEID_BYTES_RESERVED 124
typedef struct {
  int version;
  char internal[NVSHMEM_UNIQUEID_BYTES_RESERVED];
} nvshmemx_uniqueid_t;
typedef struct {
  int version;
  nvshmemx_uniqueid_t* id;
  int myrank;
  int nranks;
} nvshmemx_uniqueid_args_t;
typedef struct {
  int version;
  nvshmemx_uniqueid_args_t uid_args;
  int reserved;
  char content[92];
} nvshmemx_init_args_t;
typedef struct {
  int version;
  void* mpi_comm; /* NVSHMEMX_INIT_WITH_MPI_COMM: &comm, a pointer to the MPI_Comm */
  nvshmemx_init_args_t args;
} nvshmemx_init_attr_t;
NVSHMEMI_STATIC_ASSERT(sizeof(nvshmemx_uniqueid_t) == 128, "NVSHMEM's unique id is 128 bytes");
NVSHMEMI_STATIC_ASSERT(sizeof(nvshmemx_init_attr_t) == 144, "NVSHMEM's init attr is 144 bytes");
NVSHMEMI_STATIC_ASSERT(sizeof(gshmemx_uniqueid_t) >= NVSHMEM_UNIQUEID_BYTES_RESERVED,
                       "gshmem's unique id text fits NVSHMEM's");

#define NVSHMEMX_UNIQUEID_INITIALIZER               \
  {                                                 \
    (1 << 16) + (int)sizeof(nvshmemx_uniqueid_t), { \
      0                                             \
    }                                               \
  }
#define NVSHMEMX_UNIQUEID_ARGS_INITIALIZER \
  { (1 << 16) + (int)sizeof(nvshmemx_uniqueid_args_t), NULL, -1, -1 }
#define NVSHMEMX_INIT_ARGS_INITIALIZER                                                       \
  {                                                                                          \
    (2 << 16) + (int)sizeof(nvshmemx_init_args_t), NVSHMEMX_UNIQUEID_ARGS_INITIALIZER, -1, { \
      0                                                                                      \
    }                                                                                        \
  }
#define NVSHMEMX_INIT_ATTR_INITIALIZER \
  { (2 << 16) + (int)sizeof(nvshmemx_init_attr_t), NULL, NVSHMEMX_INIT_ARGS_INITIALIZER }

/* ---- Set-up, heap, queries (host) ------------------------------------------------------------ */

NVSHMEMI_HOST void nvshmem_init(void) {
  gshmem_init();
}
NVSHMEMI_HOST int nvshmem_init_thread(int requested, int* provided) {
  (void)requested;
  gshmem_init();
  if (provided) *provided = NVSHMEM_THREAD_MULTIPLE;
  return gshmem_initialized() ? 0 : NVSHMEMX_ERROR_INTERNAL;
}
NVSHMEMI_HOST void nvshmem_query_thread(int* provided) {
  if (provided) *provided = NVSHMEM_THREAD_MULTIPLE;
}
NVSHMEMI_HOST int nvshmemx_init_status(void) {
  return gshmem_initialized() ? NVSHMEM_STATUS_IS_INITIALIZED : NVSHMEM_STATUS_NOT_INITIALIZED;
}
NVSHMEMI_HOST void nvshmem_finalize(void) {
  gshmem_finalize();
}
NVSHMEMI_BOTH void nvshmem_info_get_version(int* major, int* minor) {
  if (major) *major = NVSHMEM_MAJOR_VERSION;
  if (minor) *minor = NVSHMEM_MINOR_VERSION;
}
NVSHMEMI_BOTH void nvshmemx_vendor_get_version_info(int* major, int* minor, int* patch) {
  if (major) *major = NVSHMEM_VENDOR_MAJOR_VERSION;
  if (minor) *minor = NVSHMEM_VENDOR_MINOR_VERSION;
  if (patch) *patch = NVSHMEM_VENDOR_PATCH_VERSION;
}
NVSHMEMI_HOST void nvshmem_info_get_name(char* name) {
  gshmem_info_get_name(name);
}
NVSHMEMI_HOST void nvshmem_global_exit(int status) {
  gshmem_global_exit(status);
}

NVSHMEMI_HOST int nvshmemx_get_uniqueid(nvshmemx_uniqueid_t* uid) {
  gshmemx_uniqueid_t g;
  int rc;
  if (!uid) return NVSHMEMX_ERROR_INVALID_VALUE;
  rc = gshmemx_get_uniqueid(&g);
  uid->version = (1 << 16) + (int)sizeof(nvshmemx_uniqueid_t);
  memcpy(uid->internal, g.internal, sizeof uid->internal);
  return rc;
}
NVSHMEMI_HOST int nvshmemx_set_attr_uniqueid_args(int myrank, int nranks,
                                                  const nvshmemx_uniqueid_t* uid,
                                                  nvshmemx_init_attr_t* attr) {
  if (!attr || !uid) return NVSHMEMX_ERROR_INVALID_VALUE;
  attr->args.uid_args.version = (1 << 16) + (int)sizeof(nvshmemx_uniqueid_args_t);
  attr->args.uid_args.id = (nvshmemx_uniqueid_t*)uid;
  attr->args.uid_args.myrank = myrank;
  attr->args.uid_args.nranks = nranks;
  return NVSHMEMX_SUCCESS;
}
NVSHMEMI_HOST int nvshmemx_init_attr(unsigned int flags, nvshmemx_init_attr_t* attr) {
  gshmemx_init_attr_t g;
  unsigned int gflags = 0;
  memset(&g, 0, sizeof g);
  if ((flags & NVSHMEMX_INIT_WITH_UNIQUEID) && attr && attr->args.uid_args.id) {
    gshmemx_uniqueid_t uid;
    memset(&uid, 0, sizeof uid);
    memcpy(uid.internal, attr->args.uid_args.id->internal, NVSHMEM_UNIQUEID_BYTES_RESERVED);
    if (gshmemx_set_attr_uniqueid_args(attr->args.uid_args.myrank, attr->args.uid_args.nranks, &uid,
                                       &g) != 0) {
      return NVSHMEMX_ERROR_INVALID_VALUE;
    }
    gflags |= GSHMEMX_INIT_WITH_UNIQUEID;
  } else if (flags & NVSHMEMX_INIT_WITH_UNIQUEID) {
    gflags |= GSHMEMX_INIT_WITH_UNIQUEID; /* gshmem reports the missing arguments */
  }
  if (flags & NVSHMEMX_INIT_WITH_MPI_COMM) {
    g.mpi_comm = attr ? attr->mpi_comm : NULL;
    gflags |= GSHMEMX_INIT_WITH_MPI_COMM;
  }
  /* NVSHMEMX_INIT_THREAD_PES (one process per PE) is how gshmem always runs. */
  return gshmemx_init_attr(gflags, &g) == 0 ? NVSHMEMX_SUCCESS : NVSHMEMX_ERROR_INTERNAL;
}

NVSHMEMI_HOST void* nvshmem_malloc(size_t size) {
  return gshmem_malloc(size);
}
NVSHMEMI_HOST void* nvshmem_calloc(size_t count, size_t size) {
  return gshmem_calloc(count, size);
}
NVSHMEMI_HOST void* nvshmem_align(size_t alignment, size_t size) {
  return gshmem_align(alignment, size);
}
NVSHMEMI_HOST void nvshmem_free(void* ptr) {
  gshmem_free(ptr);
}

/* Local buffers need no registration in gshmem (see gshmemx_buffer_register). */
NVSHMEMI_HOST int nvshmemx_buffer_register(void* addr, size_t length) {
  return gshmemx_buffer_register(addr, length) == 0 ? NVSHMEMX_SUCCESS
                                                    : NVSHMEMX_ERROR_INVALID_VALUE;
}
NVSHMEMI_HOST int nvshmemx_buffer_unregister(void* addr) {
  return gshmemx_buffer_unregister(addr) == 0 ? NVSHMEMX_SUCCESS : NVSHMEMX_ERROR_INVALID_VALUE;
}
NVSHMEMI_HOST void nvshmemx_buffer_unregister_all(void) {
  gshmemx_buffer_unregister_all();
}

NVSHMEMI_BOTH int nvshmem_my_pe(void) {
  return gshmem_my_pe();
}
NVSHMEMI_BOTH int nvshmem_n_pes(void) {
  return gshmem_n_pes();
}
NVSHMEMI_BOTH void* nvshmem_ptr(const void* ptr, int pe) {
  return gshmem_ptr(ptr, pe);
}

/* ---- Teams ----------------------------------------------------------------------------------- */

NVSHMEMI_BOTH int nvshmem_team_my_pe(nvshmem_team_t team) {
  return gshmem_team_my_pe(team);
}
NVSHMEMI_BOTH int nvshmem_team_n_pes(nvshmem_team_t team) {
  return gshmem_team_n_pes(team);
}
NVSHMEMI_HOST int nvshmem_team_translate_pe(nvshmem_team_t src_team, int src_pe,
                                            nvshmem_team_t dest_team) {
  return gshmem_team_translate_pe(src_team, src_pe, dest_team);
}
NVSHMEMI_HOST void nvshmem_team_get_config(nvshmem_team_t team, nvshmem_team_config_t* config) {
  gshmem_team_config_t g;
  if (config && gshmem_team_get_config(team, GSHMEM_TEAM_NUM_CONTEXTS, &g) == 0) {
    config->version = (2 << 16) + (int)sizeof(nvshmem_team_config_t);
    config->num_contexts = g.num_contexts;
  }
}
/* gshmem_team_config_t from NVSHMEM's (num_contexts is the field both have). */
NVSHMEMI_HOST long nvshmemi_gshmem_team_config(const nvshmem_team_config_t* c, long mask,
                                               gshmem_team_config_t* out) {
  out->num_contexts = c ? c->num_contexts : 0;
  return (c && (mask & NVSHMEM_TEAM_CONFIG_MASK_NUM_CONTEXTS)) ? GSHMEM_TEAM_NUM_CONTEXTS : 0;
}
NVSHMEMI_HOST int nvshmem_team_split_strided(nvshmem_team_t parent, int start, int stride, int size,
                                             const nvshmem_team_config_t* config, long config_mask,
                                             nvshmem_team_t* new_team) {
  gshmem_team_config_t g;
  long m = nvshmemi_gshmem_team_config(config, config_mask, &g);
  return gshmem_team_split_strided(parent, start, stride, size, &g, m, new_team);
}
NVSHMEMI_HOST int nvshmem_team_split_2d(nvshmem_team_t parent, int xrange,
                                        const nvshmem_team_config_t* xaxis_config, long xaxis_mask,
                                        nvshmem_team_t* xaxis_team,
                                        const nvshmem_team_config_t* yaxis_config, long yaxis_mask,
                                        nvshmem_team_t* yaxis_team) {
  gshmem_team_config_t gx, gy;
  long mx = nvshmemi_gshmem_team_config(xaxis_config, xaxis_mask, &gx);
  long my = nvshmemi_gshmem_team_config(yaxis_config, yaxis_mask, &gy);
  return gshmem_team_split_2d(parent, xrange, &gx, mx, xaxis_team, &gy, my, yaxis_team);
}
NVSHMEMI_HOST void nvshmem_team_destroy(nvshmem_team_t team) {
  gshmem_team_destroy(team);
}

/* ---- RMA ------------------------------------------------------------------------------------- */

NVSHMEMI_BOTH void nvshmem_putmem(void* dest, const void* source, size_t bytes, int pe) {
  gshmem_putmem(dest, source, bytes, pe);
}
NVSHMEMI_BOTH void nvshmem_putmem_nbi(void* dest, const void* source, size_t bytes, int pe) {
  gshmem_putmem_nbi(dest, source, bytes, pe);
}
NVSHMEMI_BOTH void nvshmem_getmem(void* dest, const void* source, size_t bytes, int pe) {
  gshmem_getmem(dest, source, bytes, pe);
}
NVSHMEMI_BOTH void nvshmem_getmem_nbi(void* dest, const void* source, size_t bytes, int pe) {
  gshmem_getmem_nbi(dest, source, bytes, pe);
}
NVSHMEMI_BOTH void nvshmemx_putmem_signal(void* dest, const void* source, size_t bytes,
                                          uint64_t* sig_addr, uint64_t signal, int sig_op, int pe) {
  gshmem_putmem_signal(dest, source, bytes, sig_addr, signal, nvshmemi_gshmem_sig_op(sig_op), pe);
}
NVSHMEMI_BOTH void nvshmem_putmem_signal(void* dest, const void* source, size_t bytes,
                                         uint64_t* sig_addr, uint64_t signal, int sig_op, int pe) {
  gshmem_putmem_signal(dest, source, bytes, sig_addr, signal, nvshmemi_gshmem_sig_op(sig_op), pe);
}
NVSHMEMI_BOTH void nvshmem_putmem_signal_nbi(void* dest, const void* source, size_t bytes,
                                             uint64_t* sig_addr, uint64_t signal, int sig_op,
                                             int pe) {
  gshmem_putmem_signal_nbi(dest, source, bytes, sig_addr, signal, nvshmemi_gshmem_sig_op(sig_op),
                           pe);
}

#define NVSHMEMI_RMA(NAME, T)                                                                      \
  NVSHMEMI_BOTH void nvshmem_##NAME##_put(T* dest, const T* source, size_t nelems, int pe) {       \
    gshmem_##NAME##_put(dest, source, nelems, pe);                                                 \
  }                                                                                                \
  NVSHMEMI_BOTH void nvshmem_##NAME##_put_nbi(T* dest, const T* source, size_t nelems, int pe) {   \
    gshmem_##NAME##_put_nbi(dest, source, nelems, pe);                                             \
  }                                                                                                \
  NVSHMEMI_BOTH void nvshmem_##NAME##_get(T* dest, const T* source, size_t nelems, int pe) {       \
    gshmem_##NAME##_get(dest, source, nelems, pe);                                                 \
  }                                                                                                \
  NVSHMEMI_BOTH void nvshmem_##NAME##_get_nbi(T* dest, const T* source, size_t nelems, int pe) {   \
    gshmem_##NAME##_get_nbi(dest, source, nelems, pe);                                             \
  }                                                                                                \
  NVSHMEMI_BOTH void nvshmem_##NAME##_p(T* dest, T value, int pe) {                                \
    gshmem_##NAME##_p(dest, value, pe);                                                            \
  }                                                                                                \
  NVSHMEMI_BOTH T nvshmem_##NAME##_g(const T* source, int pe) {                                    \
    return gshmem_##NAME##_g(source, pe);                                                          \
  }                                                                                                \
  NVSHMEMI_BOTH void nvshmem_##NAME##_iput(T* dest, const T* source, ptrdiff_t dst, ptrdiff_t sst, \
                                           size_t nelems, int pe) {                                \
    gshmem_##NAME##_iput(dest, source, dst, sst, nelems, pe);                                      \
  }                                                                                                \
  NVSHMEMI_BOTH void nvshmem_##NAME##_iget(T* dest, const T* source, ptrdiff_t dst, ptrdiff_t sst, \
                                           size_t nelems, int pe) {                                \
    gshmem_##NAME##_iget(dest, source, dst, sst, nelems, pe);                                      \
  }                                                                                                \
  NVSHMEMI_BOTH void nvshmem_##NAME##_put_signal(T* dest, const T* source, size_t nelems,          \
                                                 uint64_t* sig_addr, uint64_t signal, int sig_op,  \
                                                 int pe) {                                         \
    gshmem_##NAME##_put_signal(dest, source, nelems, sig_addr, signal,                             \
                               nvshmemi_gshmem_sig_op(sig_op), pe);                                \
  }                                                                                                \
  NVSHMEMI_BOTH void nvshmem_##NAME##_put_signal_nbi(T* dest, const T* source, size_t nelems,      \
                                                     uint64_t* sig_addr, uint64_t signal,          \
                                                     int sig_op, int pe) {                         \
    gshmem_##NAME##_put_signal_nbi(dest, source, nelems, sig_addr, signal,                         \
                                   nvshmemi_gshmem_sig_op(sig_op), pe);                            \
  }
GSHMEM_FOR_RMA_TYPES(NVSHMEMI_RMA)
#undef NVSHMEMI_RMA

#define NVSHMEMI_SIZED(BITS)                                                                    \
  NVSHMEMI_BOTH void nvshmem_put##BITS(void* dest, const void* source, size_t nelems, int pe) { \
    gshmem_put##BITS(dest, source, nelems, pe);                                                 \
  }                                                                                             \
  NVSHMEMI_BOTH void nvshmem_put##BITS##_nbi(void* dest, const void* source, size_t nelems,     \
                                             int pe) {                                          \
    gshmem_put##BITS##_nbi(dest, source, nelems, pe);                                           \
  }                                                                                             \
  NVSHMEMI_BOTH void nvshmem_get##BITS(void* dest, const void* source, size_t nelems, int pe) { \
    gshmem_get##BITS(dest, source, nelems, pe);                                                 \
  }                                                                                             \
  NVSHMEMI_BOTH void nvshmem_get##BITS##_nbi(void* dest, const void* source, size_t nelems,     \
                                             int pe) {                                          \
    gshmem_get##BITS##_nbi(dest, source, nelems, pe);                                           \
  }                                                                                             \
  NVSHMEMI_BOTH void nvshmem_iput##BITS(void* dest, const void* source, ptrdiff_t dst,          \
                                        ptrdiff_t sst, size_t nelems, int pe) {                 \
    gshmem_iput##BITS(dest, source, dst, sst, nelems, pe);                                      \
  }                                                                                             \
  NVSHMEMI_BOTH void nvshmem_iget##BITS(void* dest, const void* source, ptrdiff_t dst,          \
                                        ptrdiff_t sst, size_t nelems, int pe) {                 \
    gshmem_iget##BITS(dest, source, dst, sst, nelems, pe);                                      \
  }
GSHMEM_FOR_SIZES(NVSHMEMI_SIZED)
#undef NVSHMEMI_SIZED

/* ---- Atomics --------------------------------------------------------------------------------- */

#define NVSHMEMI_AMO_EXT(NAME, T)                                            \
  NVSHMEMI_BOTH T nvshmem_##NAME##_atomic_fetch(const T* source, int pe) {   \
    return gshmem_##NAME##_atomic_fetch(source, pe);                         \
  }                                                                          \
  NVSHMEMI_BOTH void nvshmem_##NAME##_atomic_set(T* dest, T value, int pe) { \
    gshmem_##NAME##_atomic_set(dest, value, pe);                             \
  }                                                                          \
  NVSHMEMI_BOTH T nvshmem_##NAME##_atomic_swap(T* dest, T value, int pe) {   \
    return gshmem_##NAME##_atomic_swap(dest, value, pe);                     \
  }
#define NVSHMEMI_AMO(NAME, T)                                                              \
  NVSHMEMI_AMO_EXT(NAME, T)                                                                \
  NVSHMEMI_BOTH T nvshmem_##NAME##_atomic_compare_swap(T* dest, T cond, T value, int pe) { \
    return gshmem_##NAME##_atomic_compare_swap(dest, cond, value, pe);                     \
  }                                                                                        \
  NVSHMEMI_BOTH T nvshmem_##NAME##_atomic_fetch_inc(T* dest, int pe) {                     \
    return gshmem_##NAME##_atomic_fetch_inc(dest, pe);                                     \
  }                                                                                        \
  NVSHMEMI_BOTH void nvshmem_##NAME##_atomic_inc(T* dest, int pe) {                        \
    gshmem_##NAME##_atomic_inc(dest, pe);                                                  \
  }                                                                                        \
  NVSHMEMI_BOTH T nvshmem_##NAME##_atomic_fetch_add(T* dest, T value, int pe) {            \
    return gshmem_##NAME##_atomic_fetch_add(dest, value, pe);                              \
  }                                                                                        \
  NVSHMEMI_BOTH void nvshmem_##NAME##_atomic_add(T* dest, T value, int pe) {               \
    gshmem_##NAME##_atomic_add(dest, value, pe);                                           \
  }
#define NVSHMEMI_AMO_BITWISE(NAME, T)                                           \
  NVSHMEMI_BOTH T nvshmem_##NAME##_atomic_fetch_and(T* dest, T value, int pe) { \
    return gshmem_##NAME##_atomic_fetch_and(dest, value, pe);                   \
  }                                                                             \
  NVSHMEMI_BOTH void nvshmem_##NAME##_atomic_and(T* dest, T value, int pe) {    \
    gshmem_##NAME##_atomic_and(dest, value, pe);                                \
  }                                                                             \
  NVSHMEMI_BOTH T nvshmem_##NAME##_atomic_fetch_or(T* dest, T value, int pe) {  \
    return gshmem_##NAME##_atomic_fetch_or(dest, value, pe);                    \
  }                                                                             \
  NVSHMEMI_BOTH void nvshmem_##NAME##_atomic_or(T* dest, T value, int pe) {     \
    gshmem_##NAME##_atomic_or(dest, value, pe);                                 \
  }                                                                             \
  NVSHMEMI_BOTH T nvshmem_##NAME##_atomic_fetch_xor(T* dest, T value, int pe) { \
    return gshmem_##NAME##_atomic_fetch_xor(dest, value, pe);                   \
  }                                                                             \
  NVSHMEMI_BOTH void nvshmem_##NAME##_atomic_xor(T* dest, T value, int pe) {    \
    gshmem_##NAME##_atomic_xor(dest, value, pe);                                \
  }
GSHMEM_FOR_AMO_TYPES(NVSHMEMI_AMO)
GSHMEM_FOR_AMO_BITWISE_TYPES(NVSHMEMI_AMO_BITWISE)
GSHMEM_FOR_AMO_EXTENDED_TYPES(NVSHMEMI_AMO_EXT)
#undef NVSHMEMI_AMO_BITWISE
#undef NVSHMEMI_AMO
#undef NVSHMEMI_AMO_EXT

/* ---- Signals, waits, ordering, synchronisation ------------------------------------------------
 */

NVSHMEMI_BOTH void nvshmemx_signal_op(uint64_t* sig_addr, uint64_t signal, int sig_op, int pe) {
  gshmem_signal_op(sig_addr, signal, nvshmemi_gshmem_sig_op(sig_op), pe);
}
NVSHMEMI_BOTH uint64_t nvshmem_signal_fetch(uint64_t* sig_addr) {
  return gshmem_signal_fetch(sig_addr);
}
NVSHMEMI_BOTH uint64_t nvshmem_signal_wait_until(uint64_t* sig_addr, int cmp, uint64_t cmp_value) {
  return gshmem_signal_wait_until(sig_addr, cmp, cmp_value);
}

#define NVSHMEMI_WAIT(NAME, T)                                                                     \
  NVSHMEMI_BOTH void nvshmem_##NAME##_wait_until(T* ivar, int cmp, T cmp_value) {                  \
    gshmem_##NAME##_wait_until(ivar, cmp, cmp_value);                                              \
  }                                                                                                \
  NVSHMEMI_BOTH void nvshmem_##NAME##_wait_until_all(T* ivars, size_t nelems, const int* status,   \
                                                     int cmp, T cmp_value) {                       \
    gshmem_##NAME##_wait_until_all(ivars, nelems, status, cmp, cmp_value);                         \
  }                                                                                                \
  NVSHMEMI_BOTH size_t nvshmem_##NAME##_wait_until_any(T* ivars, size_t nelems, const int* status, \
                                                       int cmp, T cmp_value) {                     \
    return gshmem_##NAME##_wait_until_any(ivars, nelems, status, cmp, cmp_value);                  \
  }                                                                                                \
  NVSHMEMI_BOTH size_t nvshmem_##NAME##_wait_until_some(T* ivars, size_t nelems, size_t* indices,  \
                                                        const int* status, int cmp, T cmp_value) { \
    return gshmem_##NAME##_wait_until_some(ivars, nelems, indices, status, cmp, cmp_value);        \
  }                                                                                                \
  NVSHMEMI_BOTH void nvshmem_##NAME##_wait_until_all_vector(                                       \
      T* ivars, size_t nelems, const int* status, int cmp, T* cmp_values) {                        \
    gshmem_##NAME##_wait_until_all_vector(ivars, nelems, status, cmp, cmp_values);                 \
  }                                                                                                \
  NVSHMEMI_BOTH size_t nvshmem_##NAME##_wait_until_any_vector(                                     \
      T* ivars, size_t nelems, const int* status, int cmp, T* cmp_values) {                        \
    return gshmem_##NAME##_wait_until_any_vector(ivars, nelems, status, cmp, cmp_values);          \
  }                                                                                                \
  NVSHMEMI_BOTH size_t nvshmem_##NAME##_wait_until_some_vector(                                    \
      T* ivars, size_t nelems, size_t* indices, const int* status, int cmp, T* cmp_values) {       \
    return gshmem_##NAME##_wait_until_some_vector(ivars, nelems, indices, status, cmp,             \
                                                  cmp_values);                                     \
  }                                                                                                \
  NVSHMEMI_BOTH int nvshmem_##NAME##_test(T* ivar, int cmp, T cmp_value) {                         \
    return gshmem_##NAME##_test(ivar, cmp, cmp_value);                                             \
  }                                                                                                \
  NVSHMEMI_BOTH int nvshmem_##NAME##_test_all(T* ivars, size_t nelems, const int* status, int cmp, \
                                              T cmp_value) {                                       \
    return gshmem_##NAME##_test_all(ivars, nelems, status, cmp, cmp_value);                        \
  }                                                                                                \
  NVSHMEMI_BOTH size_t nvshmem_##NAME##_test_any(T* ivars, size_t nelems, const int* status,       \
                                                 int cmp, T cmp_value) {                           \
    return gshmem_##NAME##_test_any(ivars, nelems, status, cmp, cmp_value);                        \
  }                                                                                                \
  NVSHMEMI_BOTH size_t nvshmem_##NAME##_test_some(T* ivars, size_t nelems, size_t* indices,        \
                                                  const int* status, int cmp, T cmp_value) {       \
    return gshmem_##NAME##_test_some(ivars, nelems, indices, status, cmp, cmp_value);              \
  }                                                                                                \
  NVSHMEMI_BOTH int nvshmem_##NAME##_test_all_vector(T* ivars, size_t nelems, const int* status,   \
                                                     int cmp, T* cmp_values) {                     \
    return gshmem_##NAME##_test_all_vector(ivars, nelems, status, cmp, cmp_values);                \
  }                                                                                                \
  NVSHMEMI_BOTH size_t nvshmem_##NAME##_test_any_vector(                                           \
      T* ivars, size_t nelems, const int* status, int cmp, T* cmp_values) {                        \
    return gshmem_##NAME##_test_any_vector(ivars, nelems, status, cmp, cmp_values);                \
  }                                                                                                \
  NVSHMEMI_BOTH size_t nvshmem_##NAME##_test_some_vector(                                          \
      T* ivars, size_t nelems, size_t* indices, const int* status, int cmp, T* cmp_values) {       \
    return gshmem_##NAME##_test_some_vector(ivars, nelems, indices, status, cmp, cmp_values);      \
  }
GSHMEM_FOR_WAIT_TYPES(NVSHMEMI_WAIT)
#undef NVSHMEMI_WAIT

NVSHMEMI_BOTH void nvshmem_fence(void) {
  gshmem_fence();
}
NVSHMEMI_BOTH void nvshmem_quiet(void) {
  gshmem_quiet();
}
NVSHMEMI_BOTH void nvshmem_barrier_all(void) {
  gshmem_barrier_all();
}
NVSHMEMI_BOTH void nvshmem_sync_all(void) {
  gshmem_sync_all();
}
NVSHMEMI_BOTH int nvshmem_barrier(nvshmem_team_t team) {
  return gshmem_barrier(team);
}
NVSHMEMI_BOTH int nvshmem_team_sync(nvshmem_team_t team) {
  return gshmem_team_sync(team);
}

/* ---- Collectives on teams (host; blocking, or on a stream below) ------------------------------
 */

// The type tables as written: clang-format does not settle on a layout for X-macro lists.
// clang-format off
/* NVSHMEM's integer type names for collectives, X(NAME, T, gshmem_datatype_t). */
#define NVSHMEMI_W(T, S, U)                                                  \
  ((gshmem_datatype_t)(sizeof(T) == 8   ? (S ? GSHMEM_INT64 : GSHMEM_UINT64) \
                       : sizeof(T) == 4 ? (S ? GSHMEM_INT32 : GSHMEM_UINT32) \
                       : sizeof(T) == 2 ? (S ? GSHMEM_INT16 : GSHMEM_UINT16) \
                                        : (S ? GSHMEM_INT8 : GSHMEM_UINT8)))
#define NVSHMEMI_FOR_INT_REDUCE_TYPES(X)                                                       \
  X(char, char, NVSHMEMI_W(char, CHAR_MIN < 0, 0))                                             \
  X(schar, signed char, GSHMEM_INT8)                                                           \
  X(short, short, GSHMEM_INT16)                                                                \
  X(int, int, GSHMEM_INT32) X(long, long, NVSHMEMI_W(long, 1, 0))                              \
      X(longlong, long long, GSHMEM_INT64) X(uchar, unsigned char, GSHMEM_UINT8)               \
          X(ushort, unsigned short, GSHMEM_UINT16) X(uint, unsigned int, GSHMEM_UINT32)        \
              X(ulong, unsigned long, NVSHMEMI_W(unsigned long, 0, 0))                         \
                  X(ulonglong, unsigned long long, GSHMEM_UINT64) X(int8, int8_t, GSHMEM_INT8) \
                      X(int16, int16_t, GSHMEM_INT16) X(int32, int32_t, GSHMEM_INT32)          \
                          X(int64, int64_t, GSHMEM_INT64) X(uint8, uint8_t, GSHMEM_UINT8)      \
                              X(uint16, uint16_t, GSHMEM_UINT16)                               \
                                  X(uint32, uint32_t, GSHMEM_UINT32)                           \
                                      X(uint64, uint64_t, GSHMEM_UINT64)                       \
                                          X(size, size_t, NVSHMEMI_W(size_t, 0, 0))            \
                                              X(ptrdiff, ptrdiff_t, NVSHMEMI_W(ptrdiff_t, 1, 0))
// clang-format on

/* In a .cu file the collectives work in kernels too: the device pass calls the team collectives
 * of gshmem/coll/capi.cuh, the host pass the host API; _warp and _block are kernel-only. */
#if defined(__CUDACC__)
#define NVSHMEMI_COLL NVSHMEMI_BOTH
#if defined(__CUDA_ARCH__)
#define NVSHMEMI_HOST_OR_DEVICE(host, device) device
#else
#define NVSHMEMI_HOST_OR_DEVICE(host, device) host
#endif
#define NVSHMEMI_REDUCE_GROUP(NAME, T, OP, SFX)                                               \
  NVSHMEMI_DEVICE int nvshmemx_##NAME##_##OP##_reduce##SFX(nvshmem_team_t team, T* dest,      \
                                                           const T* source, size_t nreduce) { \
    return gshmem_##NAME##_##OP##_reduce##SFX(team, dest, source, nreduce);                   \
  }
#define NVSHMEMI_MOVE_GROUP(NAME, T, SFX)                                               \
  NVSHMEMI_DEVICE int nvshmemx_##NAME##_fcollect##SFX(nvshmem_team_t team, T* dest,     \
                                                      const T* source, size_t nelems) { \
    return gshmem_##NAME##_fcollect##SFX(team, dest, source, nelems);                   \
  }                                                                                     \
  NVSHMEMI_DEVICE int nvshmemx_##NAME##_alltoall##SFX(nvshmem_team_t team, T* dest,     \
                                                      const T* source, size_t nelems) { \
    return gshmem_##NAME##_alltoall##SFX(team, dest, source, nelems);                   \
  }                                                                                     \
  NVSHMEMI_DEVICE int nvshmemx_##NAME##_broadcast##SFX(                                 \
      nvshmem_team_t team, T* dest, const T* source, size_t nelems, int PE_root) {      \
    return gshmem_##NAME##_broadcast##SFX(team, dest, source, nelems, PE_root);         \
  }
#define NVSHMEMI_REDUCE_GROUPS(NAME, T, OP) \
  NVSHMEMI_REDUCE_GROUP(NAME, T, OP, _warp) NVSHMEMI_REDUCE_GROUP(NAME, T, OP, _block)
#define NVSHMEMI_MOVE_GROUPS(NAME, T) \
  NVSHMEMI_MOVE_GROUP(NAME, T, _warp) NVSHMEMI_MOVE_GROUP(NAME, T, _block)
#else
#define NVSHMEMI_COLL NVSHMEMI_HOST
#define NVSHMEMI_HOST_OR_DEVICE(host, device) host
#define NVSHMEMI_REDUCE_GROUPS(NAME, T, OP)
#define NVSHMEMI_MOVE_GROUPS(NAME, T)
#endif

#define NVSHMEMI_REDUCE_OP(NAME, T, DT, OP, GOP)                                                   \
  NVSHMEMI_COLL int nvshmem_##NAME##_##OP##_reduce(nvshmem_team_t team, T* dest, const T* source,  \
                                                   size_t nreduce) {                               \
    return NVSHMEMI_HOST_OR_DEVICE((gshmem_allreduce(team, dest, source, nreduce, DT, GOP, NULL)), \
                                   (gshmem_##NAME##_##OP##_reduce(team, dest, source, nreduce)));  \
  }                                                                                                \
  NVSHMEMI_REDUCE_GROUPS(NAME, T, OP)                                                              \
  NVSHMEMI_REDUCE_OP_STREAM(NAME, T, DT, OP, GOP)
#define NVSHMEMI_MOVE(NAME, T, DT)                                                            \
  NVSHMEMI_COLL int nvshmem_##NAME##_fcollect(nvshmem_team_t team, T* dest, const T* source,  \
                                              size_t nelems) {                                \
    return NVSHMEMI_HOST_OR_DEVICE((gshmem_allgather(team, dest, source, nelems, DT, NULL)),  \
                                   (gshmem_##NAME##_fcollect(team, dest, source, nelems)));   \
  }                                                                                           \
  NVSHMEMI_COLL int nvshmem_##NAME##_alltoall(nvshmem_team_t team, T* dest, const T* source,  \
                                              size_t nelems) {                                \
    return NVSHMEMI_HOST_OR_DEVICE((gshmem_alltoall(team, dest, source, nelems, DT, NULL)),   \
                                   (gshmem_##NAME##_alltoall(team, dest, source, nelems)));   \
  }                                                                                           \
  NVSHMEMI_COLL int nvshmem_##NAME##_broadcast(nvshmem_team_t team, T* dest, const T* source, \
                                               size_t nelems, int PE_root) {                  \
    return NVSHMEMI_HOST_OR_DEVICE(                                                           \
        (gshmem_broadcast(team, dest, source, nelems, DT, PE_root, NULL)),                    \
        (gshmem_##NAME##_broadcast(team, dest, source, nelems, PE_root)));                    \
  }                                                                                           \
  NVSHMEMI_MOVE_GROUPS(NAME, T)                                                               \
  NVSHMEMI_MOVE_STREAM(NAME, T, DT)

#if NVSHMEMI_HAVE_STREAMS
#define NVSHMEMI_REDUCE_OP_STREAM(NAME, T, DT, OP, GOP)                                     \
  NVSHMEMI_HOST int nvshmemx_##NAME##_##OP##_reduce_on_stream(                              \
      nvshmem_team_t team, T* dest, const T* source, size_t nreduce, cudaStream_t stream) { \
    return gshmem_allreduce(team, dest, source, nreduce, DT, GOP, (void*)stream);           \
  }
#define NVSHMEMI_MOVE_STREAM(NAME, T, DT)                                                     \
  NVSHMEMI_HOST int nvshmemx_##NAME##_fcollect_on_stream(                                     \
      nvshmem_team_t team, T* dest, const T* source, size_t nelems, cudaStream_t stream) {    \
    return gshmem_allgather(team, dest, source, nelems, DT, (void*)stream);                   \
  }                                                                                           \
  NVSHMEMI_HOST int nvshmemx_##NAME##_alltoall_on_stream(                                     \
      nvshmem_team_t team, T* dest, const T* source, size_t nelems, cudaStream_t stream) {    \
    return gshmem_alltoall(team, dest, source, nelems, DT, (void*)stream);                    \
  }                                                                                           \
  NVSHMEMI_HOST int nvshmemx_##NAME##_broadcast_on_stream(nvshmem_team_t team, T* dest,       \
                                                          const T* source, size_t nelems,     \
                                                          int PE_root, cudaStream_t stream) { \
    return gshmem_broadcast(team, dest, source, nelems, DT, PE_root, (void*)stream);          \
  }
#else
#define NVSHMEMI_REDUCE_OP_STREAM(NAME, T, DT, OP, GOP)
#define NVSHMEMI_MOVE_STREAM(NAME, T, DT)
#endif

#define NVSHMEMI_INT_COLL(NAME, T, DT)               \
  NVSHMEMI_REDUCE_OP(NAME, T, DT, and, GSHMEM_BAND)  \
  NVSHMEMI_REDUCE_OP(NAME, T, DT, or, GSHMEM_BOR)    \
  NVSHMEMI_REDUCE_OP(NAME, T, DT, xor, GSHMEM_BXOR)  \
  NVSHMEMI_REDUCE_OP(NAME, T, DT, max, GSHMEM_MAX)   \
  NVSHMEMI_REDUCE_OP(NAME, T, DT, min, GSHMEM_MIN)   \
  NVSHMEMI_REDUCE_OP(NAME, T, DT, sum, GSHMEM_SUM)   \
  NVSHMEMI_REDUCE_OP(NAME, T, DT, prod, GSHMEM_PROD) \
  NVSHMEMI_MOVE(NAME, T, DT)
#define NVSHMEMI_FLOAT_COLL(NAME, T, DT)             \
  NVSHMEMI_REDUCE_OP(NAME, T, DT, max, GSHMEM_MAX)   \
  NVSHMEMI_REDUCE_OP(NAME, T, DT, min, GSHMEM_MIN)   \
  NVSHMEMI_REDUCE_OP(NAME, T, DT, sum, GSHMEM_SUM)   \
  NVSHMEMI_REDUCE_OP(NAME, T, DT, prod, GSHMEM_PROD) \
  NVSHMEMI_MOVE(NAME, T, DT)
NVSHMEMI_FOR_INT_REDUCE_TYPES(NVSHMEMI_INT_COLL)
NVSHMEMI_FLOAT_COLL(float, float, GSHMEM_FLOAT)
NVSHMEMI_FLOAT_COLL(double, double, GSHMEM_DOUBLE)
#if defined(__CUDACC__) || defined(__CUDA_FP16_H__)
NVSHMEMI_FLOAT_COLL(half, __half, GSHMEM_HALF)
#endif
#if defined(__CUDACC__) || defined(__CUDA_BF16_H__)
NVSHMEMI_FLOAT_COLL(bfloat16, __nv_bfloat16, GSHMEM_BFLOAT16)
#endif
#undef NVSHMEMI_FLOAT_COLL
#undef NVSHMEMI_INT_COLL
#undef NVSHMEMI_W

/* Byte forms. */
NVSHMEMI_HOST int nvshmem_fcollectmem(nvshmem_team_t team, void* dest, const void* source,
                                      size_t nelems) {
  return gshmem_allgather(team, dest, source, nelems, GSHMEM_UINT8, NULL);
}
NVSHMEMI_HOST int nvshmem_alltoallmem(nvshmem_team_t team, void* dest, const void* source,
                                      size_t nelems) {
  return gshmem_alltoall(team, dest, source, nelems, GSHMEM_UINT8, NULL);
}
NVSHMEMI_HOST int nvshmem_broadcastmem(nvshmem_team_t team, void* dest, const void* source,
                                       size_t nelems, int PE_root) {
  return gshmem_broadcast(team, dest, source, nelems, GSHMEM_UINT8, PE_root, NULL);
}

/* ---- On-stream calls ---------------------------------------------------------------------------
 */

#if NVSHMEMI_HAVE_STREAMS
NVSHMEMI_HOST void nvshmemx_putmem_on_stream(void* dest, const void* source, size_t bytes, int pe,
                                             cudaStream_t stream) {
  gshmem_putmem_on_stream(dest, source, bytes, pe, (void*)stream);
}
NVSHMEMI_HOST void nvshmemx_putmem_nbi_on_stream(void* dest, const void* source, size_t bytes,
                                                 int pe, cudaStream_t stream) {
  gshmem_putmem_on_stream(dest, source, bytes, pe, (void*)stream);
}
NVSHMEMI_HOST void nvshmemx_getmem_on_stream(void* dest, const void* source, size_t bytes, int pe,
                                             cudaStream_t stream) {
  gshmem_getmem_on_stream(dest, source, bytes, pe, (void*)stream);
}
NVSHMEMI_HOST void nvshmemx_getmem_nbi_on_stream(void* dest, const void* source, size_t bytes,
                                                 int pe, cudaStream_t stream) {
  gshmem_getmem_on_stream(dest, source, bytes, pe, (void*)stream);
}
NVSHMEMI_HOST void nvshmemx_putmem_signal_on_stream(void* dest, const void* source, size_t bytes,
                                                    uint64_t* sig_addr, uint64_t signal, int sig_op,
                                                    int pe, cudaStream_t stream) {
  gshmem_putmem_signal_on_stream(dest, source, bytes, sig_addr, signal,
                                 nvshmemi_gshmem_sig_op(sig_op), pe, (void*)stream);
}
NVSHMEMI_HOST void nvshmemx_putmem_signal_nbi_on_stream(void* dest, const void* source,
                                                        size_t bytes, uint64_t* sig_addr,
                                                        uint64_t signal, int sig_op, int pe,
                                                        cudaStream_t stream) {
  gshmem_putmem_signal_on_stream(dest, source, bytes, sig_addr, signal,
                                 nvshmemi_gshmem_sig_op(sig_op), pe, (void*)stream);
}
NVSHMEMI_HOST void nvshmemx_signal_op_on_stream(uint64_t* sig_addr, uint64_t signal, int sig_op,
                                                int pe, cudaStream_t stream) {
  gshmem_signal_op_on_stream(sig_addr, signal, nvshmemi_gshmem_sig_op(sig_op), pe, (void*)stream);
}
NVSHMEMI_HOST void nvshmemx_signal_wait_until_on_stream(uint64_t* sig_addr, int cmp,
                                                        uint64_t cmp_value, cudaStream_t stream) {
  gshmem_signal_wait_until_on_stream(sig_addr, cmp, cmp_value, (void*)stream);
}
NVSHMEMI_HOST void nvshmemx_quiet_on_stream(cudaStream_t stream) {
  gshmem_quiet_on_stream((void*)stream);
}
NVSHMEMI_HOST void nvshmemx_barrier_all_on_stream(cudaStream_t stream) {
  gshmem_barrier_all_on_stream((void*)stream);
}
NVSHMEMI_HOST void nvshmemx_sync_all_on_stream(cudaStream_t stream) {
  gshmem_sync_all_on_stream((void*)stream);
}
NVSHMEMI_HOST int nvshmemx_barrier_on_stream(nvshmem_team_t team, cudaStream_t stream) {
  return gshmem_barrier_on_stream(team, (void*)stream);
}
NVSHMEMI_HOST int nvshmemx_team_sync_on_stream(nvshmem_team_t team, cudaStream_t stream) {
  return gshmem_team_sync_on_stream(team, (void*)stream);
}
#define NVSHMEMI_P_STREAM(NAME, T)                                           \
  NVSHMEMI_HOST void nvshmemx_##NAME##_p_on_stream(T* dest, T value, int pe, \
                                                   cudaStream_t stream) {    \
    gshmem_##NAME##_p_on_stream(dest, value, pe, (void*)stream);             \
  }
GSHMEM_FOR_RMA_TYPES(NVSHMEMI_P_STREAM)
#undef NVSHMEMI_P_STREAM
#define NVSHMEMI_WAIT_STREAM(NAME, T)                                                      \
  NVSHMEMI_HOST void nvshmemx_##NAME##_wait_until_on_stream(T* ivar, int cmp, T cmp_value, \
                                                            cudaStream_t stream) {         \
    gshmem_##NAME##_wait_until_on_stream(ivar, cmp, cmp_value, (void*)stream);             \
  }
GSHMEM_FOR_WAIT_TYPES(NVSHMEMI_WAIT_STREAM)
#undef NVSHMEMI_WAIT_STREAM
/* Typed and sized puts and gets on a stream: the byte forms with nelems of the type. */
#define NVSHMEMI_RMA_STREAM(NAME, T)                                                              \
  NVSHMEMI_HOST void nvshmemx_##NAME##_put_on_stream(T* dest, const T* source, size_t nelems,     \
                                                     int pe, cudaStream_t stream) {               \
    gshmem_putmem_on_stream(dest, source, nelems * sizeof(T), pe, (void*)stream);                 \
  }                                                                                               \
  NVSHMEMI_HOST void nvshmemx_##NAME##_put_nbi_on_stream(T* dest, const T* source, size_t nelems, \
                                                         int pe, cudaStream_t stream) {           \
    gshmem_putmem_on_stream(dest, source, nelems * sizeof(T), pe, (void*)stream);                 \
  }                                                                                               \
  NVSHMEMI_HOST void nvshmemx_##NAME##_get_on_stream(T* dest, const T* source, size_t nelems,     \
                                                     int pe, cudaStream_t stream) {               \
    gshmem_getmem_on_stream(dest, source, nelems * sizeof(T), pe, (void*)stream);                 \
  }                                                                                               \
  NVSHMEMI_HOST void nvshmemx_##NAME##_get_nbi_on_stream(T* dest, const T* source, size_t nelems, \
                                                         int pe, cudaStream_t stream) {           \
    gshmem_getmem_on_stream(dest, source, nelems * sizeof(T), pe, (void*)stream);                 \
  }
GSHMEM_FOR_RMA_TYPES(NVSHMEMI_RMA_STREAM)
#undef NVSHMEMI_RMA_STREAM
#define NVSHMEMI_SIZED_STREAM(BITS)                                                                \
  NVSHMEMI_HOST void nvshmemx_put##BITS##_on_stream(void* dest, const void* source, size_t nelems, \
                                                    int pe, cudaStream_t s) {                      \
    gshmem_putmem_on_stream(dest, source, nelems*(BITS / 8), pe, (void*)s);                        \
  }                                                                                                \
  NVSHMEMI_HOST void nvshmemx_put##BITS##_nbi_on_stream(void* dest, const void* source,            \
                                                        size_t nelems, int pe, cudaStream_t s) {   \
    gshmem_putmem_on_stream(dest, source, nelems*(BITS / 8), pe, (void*)s);                        \
  }                                                                                                \
  NVSHMEMI_HOST void nvshmemx_get##BITS##_on_stream(void* dest, const void* source, size_t nelems, \
                                                    int pe, cudaStream_t s) {                      \
    gshmem_getmem_on_stream(dest, source, nelems*(BITS / 8), pe, (void*)s);                        \
  }                                                                                                \
  NVSHMEMI_HOST void nvshmemx_get##BITS##_nbi_on_stream(void* dest, const void* source,            \
                                                        size_t nelems, int pe, cudaStream_t s) {   \
    gshmem_getmem_on_stream(dest, source, nelems*(BITS / 8), pe, (void*)s);                        \
  }
GSHMEM_FOR_SIZES(NVSHMEMI_SIZED_STREAM)
#undef NVSHMEMI_SIZED_STREAM
/* Typed and sized put-with-signal on a stream: the byte form with nelems of the type. */
#define NVSHMEMI_PUT_SIGNAL_STREAM(NAME, BYTES)                                                  \
  NVSHMEMI_HOST void nvshmemx_##NAME##_signal_on_stream(                                         \
      void* dest, const void* source, size_t nelems, uint64_t* sig_addr, uint64_t signal,        \
      int sig_op, int pe, cudaStream_t stream) {                                                 \
    nvshmemx_putmem_signal_on_stream(dest, source, nelems*(BYTES), sig_addr, signal, sig_op, pe, \
                                     stream);                                                    \
  }                                                                                              \
  NVSHMEMI_HOST void nvshmemx_##NAME##_signal_nbi_on_stream(                                     \
      void* dest, const void* source, size_t nelems, uint64_t* sig_addr, uint64_t signal,        \
      int sig_op, int pe, cudaStream_t stream) {                                                 \
    nvshmemx_putmem_signal_on_stream(dest, source, nelems*(BYTES), sig_addr, signal, sig_op, pe, \
                                     stream);                                                    \
  }
#define NVSHMEMI_TYPED_PUT_SIGNAL_STREAM(NAME, T)                                                \
  NVSHMEMI_HOST void nvshmemx_##NAME##_put_signal_on_stream(                                     \
      T* dest, const T* source, size_t nelems, uint64_t* sig_addr, uint64_t signal, int sig_op,  \
      int pe, cudaStream_t stream) {                                                             \
    nvshmemx_putmem_signal_on_stream(dest, source, nelems * sizeof(T), sig_addr, signal, sig_op, \
                                     pe, stream);                                                \
  }                                                                                              \
  NVSHMEMI_HOST void nvshmemx_##NAME##_put_signal_nbi_on_stream(                                 \
      T* dest, const T* source, size_t nelems, uint64_t* sig_addr, uint64_t signal, int sig_op,  \
      int pe, cudaStream_t stream) {                                                             \
    nvshmemx_putmem_signal_on_stream(dest, source, nelems * sizeof(T), sig_addr, signal, sig_op, \
                                     pe, stream);                                                \
  }
GSHMEM_FOR_RMA_TYPES(NVSHMEMI_TYPED_PUT_SIGNAL_STREAM)
#define NVSHMEMI_SIZED_PUT_SIGNAL_STREAM(BITS) NVSHMEMI_PUT_SIGNAL_STREAM(put##BITS, BITS / 8)
GSHMEM_FOR_SIZES(NVSHMEMI_SIZED_PUT_SIGNAL_STREAM)
#undef NVSHMEMI_SIZED_PUT_SIGNAL_STREAM
#undef NVSHMEMI_TYPED_PUT_SIGNAL_STREAM
#undef NVSHMEMI_PUT_SIGNAL_STREAM

/* A kernel whose blocks wait for each other (device barriers): all resident at once. */
NVSHMEMI_HOST int nvshmemx_collective_launch(const void* func, dim3 grid, dim3 block, void** args,
                                             size_t shared_mem, cudaStream_t stream) {
  gshmemx_dim3_t g = {grid.x, grid.y, grid.z}, b = {block.x, block.y, block.z};
  return gshmemx_collective_launch(func, g, b, args, shared_mem, (void*)stream) == 0
             ? NVSHMEMX_SUCCESS
             : NVSHMEMX_ERROR_COLLECTIVE_LAUNCH_FAILED;
}
NVSHMEMI_HOST int nvshmemx_collective_launch_query_gridsize(const void* func, dim3 block,
                                                            void** args, size_t shared_mem,
                                                            int* gridsize) {
  gshmemx_dim3_t b = {block.x, block.y, block.z};
  (void)args;
  return gshmemx_collective_launch_query_gridsize(func, b, shared_mem, gridsize) == 0
             ? NVSHMEMX_SUCCESS
             : NVSHMEMX_ERROR_INVALID_VALUE;
}
#endif /* NVSHMEMI_HAVE_STREAMS */

/* ---- Modules the program loads itself (cuModuleLoad, cuLibraryLoad; gshmem::device) -------- */

#if defined(__CUDACC__) || (defined(__has_include) && __has_include(<cuda.h>))
#include <cuda.h>
#include <gshmem/device_module.h>
NVSHMEMI_HOST int nvshmemx_cumodule_init(CUmodule module) {
  return gshmemx_cumodule_init((void*)module) == 0 ? NVSHMEMX_SUCCESS : NVSHMEMX_ERROR_INTERNAL;
}
NVSHMEMI_HOST int nvshmemx_cumodule_finalize(CUmodule module) {
  return gshmemx_cumodule_finalize((void*)module) == 0 ? NVSHMEMX_SUCCESS : NVSHMEMX_ERROR_INTERNAL;
}
#if CUDA_VERSION >= 12000
NVSHMEMI_HOST int nvshmemx_culibrary_init(CUlibrary library) {
  return gshmemx_culibrary_init((void*)library) == 0 ? NVSHMEMX_SUCCESS : NVSHMEMX_ERROR_INTERNAL;
}
NVSHMEMI_HOST int nvshmemx_culibrary_finalize(CUlibrary library) {
  return gshmemx_culibrary_finalize((void*)library) == 0 ? NVSHMEMX_SUCCESS
                                                         : NVSHMEMX_ERROR_INTERNAL;
}
#endif
#endif

/* ---- Kernel-only group forms (_warp: a converged warp; _block: every thread of the block) ---- */

#if defined(__CUDACC__)
#define NVSHMEMI_GROUP(SUFFIX)                                                                    \
  NVSHMEMI_DEVICE void nvshmemx_putmem_##SUFFIX(void* dest, const void* source, size_t bytes,     \
                                                int pe) {                                         \
    gshmem_putmem_##SUFFIX(dest, source, bytes, pe);                                              \
  }                                                                                               \
  NVSHMEMI_DEVICE void nvshmemx_putmem_nbi_##SUFFIX(void* dest, const void* source, size_t bytes, \
                                                    int pe) {                                     \
    gshmem_putmem_nbi_##SUFFIX(dest, source, bytes, pe);                                          \
  }                                                                                               \
  NVSHMEMI_DEVICE void nvshmemx_getmem_##SUFFIX(void* dest, const void* source, size_t bytes,     \
                                                int pe) {                                         \
    gshmem_getmem_##SUFFIX(dest, source, bytes, pe);                                              \
  }                                                                                               \
  NVSHMEMI_DEVICE void nvshmemx_getmem_nbi_##SUFFIX(void* dest, const void* source, size_t bytes, \
                                                    int pe) {                                     \
    gshmem_getmem_nbi_##SUFFIX(dest, source, bytes, pe);                                          \
  }                                                                                               \
  NVSHMEMI_DEVICE void nvshmemx_putmem_signal_##SUFFIX(void* dest, const void* source,            \
                                                       size_t bytes, uint64_t* sig_addr,          \
                                                       uint64_t signal, int sig_op, int pe) {     \
    gshmem_putmem_signal_##SUFFIX(dest, source, bytes, sig_addr, signal,                          \
                                  nvshmemi_gshmem_sig_op(sig_op), pe);                            \
  }                                                                                               \
  NVSHMEMI_DEVICE void nvshmemx_putmem_signal_nbi_##SUFFIX(void* dest, const void* source,        \
                                                           size_t bytes, uint64_t* sig_addr,      \
                                                           uint64_t signal, int sig_op, int pe) { \
    gshmem_putmem_signal_nbi_##SUFFIX(dest, source, bytes, sig_addr, signal,                      \
                                      nvshmemi_gshmem_sig_op(sig_op), pe);                        \
  }                                                                                               \
  NVSHMEMI_DEVICE void nvshmemx_barrier_all_##SUFFIX(void) {                                      \
    gshmem_barrier_all_##SUFFIX();                                                                \
  }                                                                                               \
  NVSHMEMI_DEVICE void nvshmemx_sync_all_##SUFFIX(void) {                                         \
    gshmem_sync_all_##SUFFIX();                                                                   \
  }                                                                                               \
  NVSHMEMI_DEVICE int nvshmemx_barrier_##SUFFIX(nvshmem_team_t team) {                            \
    return gshmem_barrier_##SUFFIX(team);                                                         \
  }                                                                                               \
  NVSHMEMI_DEVICE int nvshmemx_team_sync_##SUFFIX(nvshmem_team_t team) {                          \
    return gshmem_team_sync_##SUFFIX(team);                                                       \
  }
NVSHMEMI_GROUP(warp)
NVSHMEMI_GROUP(block)
#undef NVSHMEMI_GROUP

#define NVSHMEMI_RMA_GROUP_OF(NAME, T, SUFFIX)                                                     \
  NVSHMEMI_DEVICE void nvshmemx_##NAME##_put_##SUFFIX(T* dest, const T* source, size_t nelems,     \
                                                      int pe) {                                    \
    gshmem_##NAME##_put_##SUFFIX(dest, source, nelems, pe);                                        \
  }                                                                                                \
  NVSHMEMI_DEVICE void nvshmemx_##NAME##_put_nbi_##SUFFIX(T* dest, const T* source, size_t nelems, \
                                                          int pe) {                                \
    gshmem_##NAME##_put_nbi_##SUFFIX(dest, source, nelems, pe);                                    \
  }                                                                                                \
  NVSHMEMI_DEVICE void nvshmemx_##NAME##_get_##SUFFIX(T* dest, const T* source, size_t nelems,     \
                                                      int pe) {                                    \
    gshmem_##NAME##_get_##SUFFIX(dest, source, nelems, pe);                                        \
  }                                                                                                \
  NVSHMEMI_DEVICE void nvshmemx_##NAME##_get_nbi_##SUFFIX(T* dest, const T* source, size_t nelems, \
                                                          int pe) {                                \
    gshmem_##NAME##_get_nbi_##SUFFIX(dest, source, nelems, pe);                                    \
  }                                                                                                \
  NVSHMEMI_DEVICE void nvshmemx_##NAME##_put_signal_##SUFFIX(                                      \
      T* dest, const T* source, size_t nelems, uint64_t* sig_addr, uint64_t signal, int sig_op,    \
      int pe) {                                                                                    \
    gshmem_##NAME##_put_signal_##SUFFIX(dest, source, nelems, sig_addr, signal,                    \
                                        nvshmemi_gshmem_sig_op(sig_op), pe);                       \
  }                                                                                                \
  NVSHMEMI_DEVICE void nvshmemx_##NAME##_put_signal_nbi_##SUFFIX(                                  \
      T* dest, const T* source, size_t nelems, uint64_t* sig_addr, uint64_t signal, int sig_op,    \
      int pe) {                                                                                    \
    gshmem_##NAME##_put_signal_nbi_##SUFFIX(dest, source, nelems, sig_addr, signal,                \
                                            nvshmemi_gshmem_sig_op(sig_op), pe);                   \
  }
#define NVSHMEMI_RMA_GROUP(NAME, T) \
  NVSHMEMI_RMA_GROUP_OF(NAME, T, warp) NVSHMEMI_RMA_GROUP_OF(NAME, T, block)
GSHMEM_FOR_RMA_TYPES(NVSHMEMI_RMA_GROUP)
#undef NVSHMEMI_RMA_GROUP
#undef NVSHMEMI_RMA_GROUP_OF

#define NVSHMEMI_SIZED_GROUP_OF(BITS, SUFFIX)                                            \
  NVSHMEMI_DEVICE void nvshmemx_put##BITS##_##SUFFIX(void* dest, const void* source,     \
                                                     size_t nelems, int pe) {            \
    gshmem_put##BITS##_##SUFFIX(dest, source, nelems, pe);                               \
  }                                                                                      \
  NVSHMEMI_DEVICE void nvshmemx_put##BITS##_nbi_##SUFFIX(void* dest, const void* source, \
                                                         size_t nelems, int pe) {        \
    gshmem_put##BITS##_nbi_##SUFFIX(dest, source, nelems, pe);                           \
  }                                                                                      \
  NVSHMEMI_DEVICE void nvshmemx_get##BITS##_##SUFFIX(void* dest, const void* source,     \
                                                     size_t nelems, int pe) {            \
    gshmem_get##BITS##_##SUFFIX(dest, source, nelems, pe);                               \
  }                                                                                      \
  NVSHMEMI_DEVICE void nvshmemx_get##BITS##_nbi_##SUFFIX(void* dest, const void* source, \
                                                         size_t nelems, int pe) {        \
    gshmem_get##BITS##_nbi_##SUFFIX(dest, source, nelems, pe);                           \
  }
#define NVSHMEMI_SIZED_GROUP(BITS) \
  NVSHMEMI_SIZED_GROUP_OF(BITS, warp) NVSHMEMI_SIZED_GROUP_OF(BITS, block)
GSHMEM_FOR_SIZES(NVSHMEMI_SIZED_GROUP)
#undef NVSHMEMI_SIZED_GROUP
#undef NVSHMEMI_SIZED_GROUP_OF
#endif /* __CUDACC__ */

#endif /* GSHMEM_NVSHMEM_NAMES_H */
