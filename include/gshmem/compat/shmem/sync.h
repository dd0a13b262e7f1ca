/* OpenSHMEM 1.5 ordering, completion, synchronisation, signals and locks.
 *
 * fence: puts, atomics and signals to one PE issued before it are delivered before those issued
 * after it. quiet: everything issued before it is complete when it returns. A context's fence
 * and quiet cover every context of the PE (gshmem has one channel per PE: stronger than asked).
 * Waits return once the condition holds; their loads acquire, so data written before a signal
 * or a fenced update is visible afterwards. `status`, when not NULL, excludes ivars[i] whose
 * status[i] is non-zero.
 */
#ifndef GSHMEM_COMPAT_SHMEM_SYNC_H
#define GSHMEM_COMPAT_SHMEM_SYNC_H

#include <stddef.h>
#include <stdint.h>

#include "constants.h"
#include "typelist.h"

#ifdef __cplusplus
extern "C" {
#endif

void shmem_fence(void);
void shmem_quiet(void);
void shmem_ctx_fence(shmem_ctx_t ctx);
void shmem_ctx_quiet(shmem_ctx_t ctx);
/* OpenSHMEM 1.6: completes the operations to target_pes[0 .. npes) (and, here, to every PE). */
void shmem_pe_quiet(const int* target_pes, size_t npes);
void shmem_ctx_pe_quiet(shmem_ctx_t ctx, const int* target_pes, size_t npes);
/* Collective over the world: quiet, then synchronise. */
void shmem_barrier_all(void);
/* Collective over the world: synchronise only. */
void shmem_sync_all(void);

/* Signals: 64-bit words updated by put_signal (SHMEM_SIGNAL_SET or SHMEM_SIGNAL_ADD). */
uint64_t shmem_signal_fetch(const uint64_t* sig_addr);
uint64_t shmem_signal_wait_until(uint64_t* sig_addr, int cmp, uint64_t cmp_value);

/* wait_until_any returns an index or SIZE_MAX when no element is eligible; wait_until_some the
 * number of indices written. test returns 1 when the condition holds; test_all 1 when it holds
 * for every eligible element; test_any an index or SIZE_MAX; test_some a count. */
#define GSHMEM_COMPAT_DECL_WAIT(NAME, T, A)                                                        \
  void shmem_##NAME##_wait_until(T* ivar, int cmp, T cmp_value);                                   \
  void shmem_##NAME##_wait_until_all(T* ivars, size_t nelems, const int* status, int cmp,          \
                                     T cmp_value);                                                 \
  size_t shmem_##NAME##_wait_until_any(T* ivars, size_t nelems, const int* status, int cmp,        \
                                       T cmp_value);                                               \
  size_t shmem_##NAME##_wait_until_some(T* ivars, size_t nelems, size_t* indices,                  \
                                        const int* status, int cmp, T cmp_value);                  \
  void shmem_##NAME##_wait_until_all_vector(T* ivars, size_t nelems, const int* status, int cmp,   \
                                            T* cmp_values);                                        \
  size_t shmem_##NAME##_wait_until_any_vector(T* ivars, size_t nelems, const int* status, int cmp, \
                                              T* cmp_values);                                      \
  size_t shmem_##NAME##_wait_until_some_vector(T* ivars, size_t nelems, size_t* indices,           \
                                               const int* status, int cmp, T* cmp_values);         \
  int shmem_##NAME##_test(T* ivar, int cmp, T cmp_value);                                          \
  int shmem_##NAME##_test_all(T* ivars, size_t nelems, const int* status, int cmp, T cmp_value);   \
  size_t shmem_##NAME##_test_any(T* ivars, size_t nelems, const int* status, int cmp,              \
                                 T cmp_value);                                                     \
  size_t shmem_##NAME##_test_some(T* ivars, size_t nelems, size_t* indices, const int* status,     \
                                  int cmp, T cmp_value);                                           \
  int shmem_##NAME##_test_all_vector(T* ivars, size_t nelems, const int* status, int cmp,          \
                                     T* cmp_values);                                               \
  size_t shmem_##NAME##_test_any_vector(T* ivars, size_t nelems, const int* status, int cmp,       \
                                        T* cmp_values);                                            \
  size_t shmem_##NAME##_test_some_vector(T* ivars, size_t nelems, size_t* indices,                 \
                                         const int* status, int cmp, T* cmp_values);
GSHMEM_COMPAT_SYNC_TYPES(GSHMEM_COMPAT_DECL_WAIT, )
#undef GSHMEM_COMPAT_DECL_WAIT

/* Distributed locks on a symmetric long that starts at 0. A lock is held by a PE (not a thread).
 * clear_lock completes the holder's puts and atomics (quiet) before the next holder gets it.
 * test_lock takes the lock only if it is free and returns 0 then, else 1; it never waits. */
void shmem_set_lock(long* lock);
int shmem_test_lock(long* lock);
void shmem_clear_lock(long* lock);

#ifdef __cplusplus
}
#endif

#endif /* GSHMEM_COMPAT_SHMEM_SYNC_H */
