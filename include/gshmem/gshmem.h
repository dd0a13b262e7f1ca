/* gshmem C API (host). NVSHMEM names under the gshmem_ prefix, NVSHMEM argument order.
 *
 * Who calls what: "collective" calls must be made by every PE (of the team, where one is named)
 * in the same order with the same arguments. Everything else is called by one thread of one PE.
 *
 * Errors: calls with a return value report bad input through it (NULL, a status, -1) after
 * printing a message naming the call and the argument. Calls without one print the message and
 * end the job (gshmemx_set_error_mode can make them throw gshmem::Error in C++ instead). Bad input
 * never touches a peer's memory.
 */
#ifndef GSHMEM_GSHMEM_H
#define GSHMEM_GSHMEM_H

#include <stddef.h>
#include <stdint.h>

#include "gshmem/typelist.h"
#include "gshmem/types.h"

#ifdef __cplusplus
extern "C" {
#endif

#define GSHMEM_MAX_NAME_LEN 64

/* ---- Setup and query ------------------------------------------------------------------------ */

/* Collective. Starts the runtime: bootstrap (launcher, PMIx, unique id, or one PE alone), the
 * symmetric heap, the predefined teams. Calling it again while initialised does nothing. */
void gshmem_init(void);
/* Collective. As gshmem_init; GSHMEMX_INIT_WITH_UNIQUEID takes rank, size and the unique id from
 * attr (torchrun-style launches); GSHMEMX_INIT_WITH_MPI_COMM makes the ranks of the MPI
 * communicator *attr->mpi_comm the PEs (the program has called MPI_Init; MPI is found in the
 * process, libgshmem does not link it). Returns a gshmem_status. */
int gshmemx_init_attr(unsigned int flags, gshmemx_init_attr_t* attr);
/* Collective. Quiet, barrier, then tears everything down. Safe to call more than once. */
void gshmem_finalize(void);
/* 1 between gshmem_init and gshmem_finalize, else 0. */
int gshmem_initialized(void);

int gshmem_my_pe(void);
int gshmem_n_pes(void);
/* Address of dest's copy on pe when it is mapped here (load/store works), else NULL. */
void* gshmem_ptr(const void* dest, int pe);
/* Local buffers need no registration here: RMA from and into any memory this process reaches
 * works (the network path stages through registered memory where the provider needs it). These
 * record a range for programs written for NVSHMEM (nvshmemx_buffer_register): register checks the
 * arguments (addr not NULL, length > 0, no overlap with a registered range) and returns 0, else
 * GSHMEM_ERROR_INVALID_ARGUMENT with a message; unregister takes the address register got and
 * returns 1 for one it did not; unregister_all forgets every range. Not collective. */
int gshmemx_buffer_register(void* addr, size_t length);
int gshmemx_buffer_unregister(void* addr);
void gshmemx_buffer_unregister_all(void);
void gshmem_info_get_version(int* major, int* minor);
void gshmem_info_get_name(char* name);
/* Ends every PE of the job; the job's exit status is `status`. */
void gshmem_global_exit(int status);

/* Rank 0 makes the id (it names rank 0's listening address) and shares it out of band. */
int gshmemx_get_uniqueid(gshmemx_uniqueid_t* uid);
int gshmemx_set_attr_uniqueid_args(int rank, int nranks, const gshmemx_uniqueid_t* uid,
                                   gshmemx_init_attr_t* attr);
/* GSHMEMX_ERROR_ABORT (default) or GSHMEMX_ERROR_THROW. */
void gshmemx_set_error_mode(int mode);
/* The message of the last error this thread reported (what the call printed), or "" if none:
 * after a call returned a status other than GSHMEM_SUCCESS, it says why (like NCCL's
 * ncclGetLastError). Valid until this thread's next failing call. */
const char* gshmemx_get_last_error(void);

/* ---- Symmetric heap: collective, the same arguments on every PE, same offsets everywhere ---- */

void* gshmem_malloc(size_t size);
void* gshmem_calloc(size_t count, size_t size);
void* gshmem_align(size_t alignment, size_t size);
void* gshmem_realloc(void* ptr, size_t size);
void gshmem_free(void* ptr);

/* ---- RMA ------------------------------------------------------------------------------------ */

void gshmem_putmem(void* dest, const void* source, size_t bytes, int pe);
void gshmem_putmem_nbi(void* dest, const void* source, size_t bytes, int pe);
void gshmem_getmem(void* dest, const void* source, size_t bytes, int pe);
void gshmem_getmem_nbi(void* dest, const void* source, size_t bytes, int pe);

#define GSHMEM_DECL_RMA(NAME, T)                                                                   \
  void gshmem_##NAME##_put(T* dest, const T* source, size_t nelems, int pe);                       \
  void gshmem_##NAME##_put_nbi(T* dest, const T* source, size_t nelems, int pe);                   \
  void gshmem_##NAME##_get(T* dest, const T* source, size_t nelems, int pe);                       \
  void gshmem_##NAME##_get_nbi(T* dest, const T* source, size_t nelems, int pe);                   \
  void gshmem_##NAME##_p(T* dest, T value, int pe);                                                \
  T gshmem_##NAME##_g(const T* source, int pe);                                                    \
  void gshmem_##NAME##_iput(T* dest, const T* source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems, \
                            int pe);                                                               \
  void gshmem_##NAME##_iget(T* dest, const T* source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems, \
                            int pe);                                                               \
  void gshmem_##NAME##_put_signal(T* dest, const T* source, size_t nelems, uint64_t* sig_addr,     \
                                  uint64_t signal, int sig_op, int pe);                            \
  void gshmem_##NAME##_put_signal_nbi(T* dest, const T* source, size_t nelems, uint64_t* sig_addr, \
                                      uint64_t signal, int sig_op, int pe);
GSHMEM_FOR_RMA_TYPES(GSHMEM_DECL_RMA)
#undef GSHMEM_DECL_RMA

#define GSHMEM_DECL_SIZED(BITS)                                                        \
  void gshmem_put##BITS(void* dest, const void* source, size_t nelems, int pe);        \
  void gshmem_put##BITS##_nbi(void* dest, const void* source, size_t nelems, int pe);  \
  void gshmem_get##BITS(void* dest, const void* source, size_t nelems, int pe);        \
  void gshmem_get##BITS##_nbi(void* dest, const void* source, size_t nelems, int pe);  \
  void gshmem_iput##BITS(void* dest, const void* source, ptrdiff_t dst, ptrdiff_t sst, \
                         size_t nelems, int pe);                                       \
  void gshmem_iget##BITS(void* dest, const void* source, ptrdiff_t dst, ptrdiff_t sst, \
                         size_t nelems, int pe);
GSHMEM_FOR_SIZES(GSHMEM_DECL_SIZED)
#undef GSHMEM_DECL_SIZED

/* ---- Atomics (relaxed; order them with fence or quiet) --------------------------------------- */

#define GSHMEM_DECL_AMO(NAME, T)                                           \
  T gshmem_##NAME##_atomic_fetch(const T* source, int pe);                 \
  void gshmem_##NAME##_atomic_set(T* dest, T value, int pe);               \
  T gshmem_##NAME##_atomic_swap(T* dest, T value, int pe);                 \
  T gshmem_##NAME##_atomic_compare_swap(T* dest, T cond, T value, int pe); \
  T gshmem_##NAME##_atomic_fetch_inc(T* dest, int pe);                     \
  void gshmem_##NAME##_atomic_inc(T* dest, int pe);                        \
  T gshmem_##NAME##_atomic_fetch_add(T* dest, T value, int pe);            \
  void gshmem_##NAME##_atomic_add(T* dest, T value, int pe);
GSHMEM_FOR_AMO_TYPES(GSHMEM_DECL_AMO)
#undef GSHMEM_DECL_AMO

#define GSHMEM_DECL_AMO_BITWISE(NAME, T)                        \
  T gshmem_##NAME##_atomic_fetch_and(T* dest, T value, int pe); \
  void gshmem_##NAME##_atomic_and(T* dest, T value, int pe);    \
  T gshmem_##NAME##_atomic_fetch_or(T* dest, T value, int pe);  \
  void gshmem_##NAME##_atomic_or(T* dest, T value, int pe);     \
  T gshmem_##NAME##_atomic_fetch_xor(T* dest, T value, int pe); \
  void gshmem_##NAME##_atomic_xor(T* dest, T value, int pe);
GSHMEM_FOR_AMO_BITWISE_TYPES(GSHMEM_DECL_AMO_BITWISE)
#undef GSHMEM_DECL_AMO_BITWISE

#define GSHMEM_DECL_AMO_EXTENDED(NAME, T)                    \
  T gshmem_##NAME##_atomic_fetch(const T* source, int pe);   \
  void gshmem_##NAME##_atomic_set(T* dest, T value, int pe); \
  T gshmem_##NAME##_atomic_swap(T* dest, T value, int pe);
GSHMEM_FOR_AMO_EXTENDED_TYPES(GSHMEM_DECL_AMO_EXTENDED)
#undef GSHMEM_DECL_AMO_EXTENDED

/* ---- Signals --------------------------------------------------------------------------------- */

/* The signal is updated only after the data is visible at the target. */
void gshmem_putmem_signal(void* dest, const void* source, size_t bytes, uint64_t* sig_addr,
                          uint64_t signal, int sig_op, int pe);
void gshmem_putmem_signal_nbi(void* dest, const void* source, size_t bytes, uint64_t* sig_addr,
                              uint64_t signal, int sig_op, int pe);
void gshmem_signal_op(uint64_t* sig_addr, uint64_t signal, int sig_op, int pe);
uint64_t gshmem_signal_fetch(const uint64_t* sig_addr);
uint64_t gshmem_signal_wait_until(uint64_t* sig_addr, int cmp, uint64_t cmp_value);

/* ---- Point-to-point synchronisation ---------------------------------------------------------- */

#define GSHMEM_DECL_WAIT(NAME, T)                                                                 \
  void gshmem_##NAME##_wait_until(T* ivar, int cmp, T cmp_value);                                 \
  void gshmem_##NAME##_wait_until_all(T* ivars, size_t nelems, const int* status, int cmp,        \
                                      T cmp_value);                                               \
  size_t gshmem_##NAME##_wait_until_any(T* ivars, size_t nelems, const int* status, int cmp,      \
                                        T cmp_value);                                             \
  size_t gshmem_##NAME##_wait_until_some(T* ivars, size_t nelems, size_t* indices,                \
                                         const int* status, int cmp, T cmp_value);                \
  void gshmem_##NAME##_wait_until_all_vector(T* ivars, size_t nelems, const int* status, int cmp, \
                                             T* cmp_values);                                      \
  size_t gshmem_##NAME##_wait_until_any_vector(T* ivars, size_t nelems, const int* status,        \
                                               int cmp, T* cmp_values);                           \
  size_t gshmem_##NAME##_wait_until_some_vector(T* ivars, size_t nelems, size_t* indices,         \
                                                const int* status, int cmp, T* cmp_values);       \
  int gshmem_##NAME##_test(T* ivar, int cmp, T cmp_value);                                        \
  int gshmem_##NAME##_test_all(T* ivars, size_t nelems, const int* status, int cmp, T cmp_value); \
  size_t gshmem_##NAME##_test_any(T* ivars, size_t nelems, const int* status, int cmp,            \
                                  T cmp_value);                                                   \
  size_t gshmem_##NAME##_test_some(T* ivars, size_t nelems, size_t* indices, const int* status,   \
                                   int cmp, T cmp_value);                                         \
  int gshmem_##NAME##_test_all_vector(T* ivars, size_t nelems, const int* status, int cmp,        \
                                      T* cmp_values);                                             \
  size_t gshmem_##NAME##_test_any_vector(T* ivars, size_t nelems, const int* status, int cmp,     \
                                         T* cmp_values);                                          \
  size_t gshmem_##NAME##_test_some_vector(T* ivars, size_t nelems, size_t* indices,               \
                                          const int* status, int cmp, T* cmp_values);
GSHMEM_FOR_WAIT_TYPES(GSHMEM_DECL_WAIT)
#undef GSHMEM_DECL_WAIT

/* ---- Ordering, completion, synchronisation --------------------------------------------------- */

void gshmem_fence(void);
void gshmem_quiet(void);
/* Completes this PE's operations to the PEs target_pes[0 .. npes) (OpenSHMEM 1.6's
 * shmem_pe_quiet). It may complete operations to other PEs too (today it does: one channel
 * serves every peer). A PE out of range is bad input. */
void gshmem_pe_quiet(const int* target_pes, size_t npes);
/* Collective over the world: quiet, then synchronise. */
void gshmem_barrier_all(void);
/* Collective over the world: synchronise only. */
void gshmem_sync_all(void);
/* Collective over the team. Returns 0, or non-zero for a bad team. */
int gshmem_barrier(gshmem_team_t team);
int gshmem_team_sync(gshmem_team_t team);
/* Collective. Returns once every PE has called it, waiting asleep in the bootstrap (its sockets
 * or PMIx): it touches neither the heap nor the GPU, and orders no memory operation (it is not a
 * quiet; follow it with gshmem_barrier_all when data must be visible). For PEs that wait idle
 * while a peer has the GPU they share, such as a benchmark's idle PEs: a host barrier on a GPU
 * heap runs a kernel, which would take the peer's GPU time. Bounded by the bootstrap's timeout. */
void gshmemx_host_barrier_all(void);

/* ---- GPU ------------------------------------------------------------------------------------- */

/* What host calls order with respect to the GPU, with a GPU heap (NVSHMEM's rules):
 *   - RMA, atomics, signals, quiet and waits made from host code run on gshmem's own
 *     non-blocking stream and are complete (as their contract says) when they return; they are
 *     not ordered with the application's streams: synchronise the stream whose kernel produced
 *     a source before passing it, and the stream of a kernel that reads a destination after.
 *   - gshmem_barrier_all, gshmem_barrier and gshmem_finalize first wait for all GPU work this
 *     process issued before them, on every stream (cudaDeviceSynchronize), so a kernel's puts
 *     are complete and visible when the barrier returns on every PE. gshmem_sync_all and
 *     gshmem_team_sync do not wait for the application's streams.
 *   - gshmem_malloc and the other heap calls never wait for the application's kernels (their
 *     GPU work goes on private streams): a kernel may be spinning on a peer while they run.
 *   - The *_on_stream calls are ordered on the given stream, like a kernel launched there. */

/* Not collective; any time, also before init. 1 when this process can use a GPU; else 0, and
 * (when why is not NULL) the reason, NUL-terminated in len bytes: "no CUDA driver ...", "no CUDA
 * device", "gshmem was built without CUDA", a CUDA error string. Empty reason when 1. */
int gshmemx_gpu_available(char* why, size_t len);
/* GSHMEMX_HEAP_HOST or GSHMEMX_HEAP_DEVICE between init and finalize, else GSHMEMX_HEAP_NONE.
 * GSHMEM_HEAP=auto (default) picks the GPU when one is usable. */
int gshmemx_heap_kind(void);
/* The CUDA device (this process's ordinal) the heap is on; -1 for a host heap or outside init. */
int gshmemx_cuda_device(void);
/* For the device library: hook(ctx, sizeof(gshmem::DeviceContext)) receives a context kernels
 * can use (everything it points to is GPU-reachable), copied out before hook returns. Called
 * after gshmem_init, after every collective heap call that grew the heap (inside that call, on
 * every PE), and with an all-zero context (n_pes 0) at gshmem_finalize; with a host heap it
 * always gets the zero context. Registering during init..finalize calls it at once. Calls come
 * from the thread making the gshmem call; a hook must not call gshmem. Registering the same
 * hook twice registers it once. */
void gshmemx_register_context_hook(void (*hook)(const void* ctx, size_t bytes));

/* Stream-ordered calls. `stream` is a cudaStream_t (NULL: the legacy default stream). They need a
 * GPU heap: with a host heap they print why and return GSHMEM_ERROR_INVALID_ARGUMENT. Otherwise
 * they enqueue the operation and return GSHMEM_SUCCESS without waiting; nothing synchronises the
 * host, so they can be captured in a CUDA graph. Addresses must be in the symmetric heap; a
 * source or destination that is not symmetric must be GPU-reachable (device or pinned memory).
 * Completion is as for the host call, at the point the stream reaches:
 *   putmem: the source may be reused; visible at the target after quiet_on_stream.
 *   getmem: the data is in dest.
 *   putmem_signal: the signal is updated after the data is visible at the target.
 *   quiet: every put and signal enqueued before it on this PE is complete at its target.
 *   barrier_all: quiet, then all PEs' streams have reached their barrier_all (collective).
 *   sync_all: as barrier_all without the quiet (collective).
 *   signal_wait_until: later work on the stream waits until the local sig_addr satisfies cmp
 *   (a stream memory operation for GSHMEM_CMP_EQ/GE where the driver offers it, else a
 *   one-thread wait kernel). */
int gshmem_putmem_on_stream(void* dest, const void* source, size_t bytes, int pe, void* stream);
int gshmem_getmem_on_stream(void* dest, const void* source, size_t bytes, int pe, void* stream);
int gshmem_putmem_signal_on_stream(void* dest, const void* source, size_t bytes, uint64_t* sig_addr,
                                   uint64_t signal, int sig_op, int pe, void* stream);
int gshmem_signal_op_on_stream(uint64_t* sig_addr, uint64_t signal, int sig_op, int pe,
                               void* stream);
int gshmem_signal_wait_until_on_stream(uint64_t* sig_addr, int cmp, uint64_t cmp_value,
                                       void* stream);
int gshmem_quiet_on_stream(void* stream);
int gshmem_barrier_all_on_stream(void* stream);
int gshmem_sync_all_on_stream(void* stream);
/* barrier and team_sync of a team (collective over it: every member enqueues one), and the
 * typed waits on a local ivar (later work on the stream waits until it satisfies cmp). */
int gshmem_barrier_on_stream(gshmem_team_t team, void* stream);
int gshmem_team_sync_on_stream(gshmem_team_t team, void* stream);
/* p of one element on a stream: the value is taken when the call is made. */
#define GSHMEM_DECL_P_ON_STREAM(NAME, T) \
  int gshmem_##NAME##_p_on_stream(T* dest, T value, int pe, void* stream);
GSHMEM_FOR_RMA_TYPES(GSHMEM_DECL_P_ON_STREAM)
#undef GSHMEM_DECL_P_ON_STREAM
#define GSHMEM_DECL_WAIT_ON_STREAM(NAME, T) \
  int gshmem_##NAME##_wait_until_on_stream(T* ivar, int cmp, T cmp_value, void* stream);
GSHMEM_FOR_WAIT_TYPES(GSHMEM_DECL_WAIT_ON_STREAM)
#undef GSHMEM_DECL_WAIT_ON_STREAM

/* ---- Teams ----------------------------------------------------------------------------------- */

/* -1 when the calling PE is not a member or the team is invalid. */
int gshmem_team_my_pe(gshmem_team_t team);
int gshmem_team_n_pes(gshmem_team_t team);
int gshmem_team_get_config(gshmem_team_t team, long config_mask, gshmem_team_config_t* config);
/* Collective over parent. PEs start, start+stride, ... (size of them, indices in parent) form the
 * new team; the others get GSHMEM_TEAM_INVALID. Returns 0 on success. A PE that passes
 * GSHMEM_TEAM_INVALID as the parent (it is in no parent) gets GSHMEM_TEAM_INVALID and 0, so that
 * every PE may make the same call; so does split_2d. */
int gshmem_team_split_strided(gshmem_team_t parent, int start, int stride, int size,
                              const gshmem_team_config_t* config, long config_mask,
                              gshmem_team_t* new_team);
/* Collective over parent. Rows of xrange consecutive PEs (x teams) and their columns (y teams). */
int gshmem_team_split_2d(gshmem_team_t parent, int xrange, const gshmem_team_config_t* xaxis_config,
                         long xaxis_mask, gshmem_team_t* xaxis_team,
                         const gshmem_team_config_t* yaxis_config, long yaxis_mask,
                         gshmem_team_t* yaxis_team);
/* Index in dest_team of src_team's member src_pe, or -1. */
int gshmem_team_translate_pe(gshmem_team_t src_team, int src_pe, gshmem_team_t dest_team);
/* Collective over the team. */
void gshmem_team_destroy(gshmem_team_t team);

#ifdef __cplusplus
}
#endif

/* Collective kernel launch, where the CUDA runtime is in scope (include cuda_runtime.h first, or
 * compile with nvcc). */
#if defined(__CUDACC__) || defined(CUDART_VERSION)
#include "gshmem/launch.h"
#endif

#endif /* GSHMEM_GSHMEM_H */
