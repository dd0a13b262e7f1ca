/* The OpenSHMEM names perftest/baselines/shmem_latency.c uses, mapped straight onto the gshmem C
 * API. Building that program against this header instead of gshmem's shmem.h gives the same
 * source and the same loops without the OpenSHMEM layer, so perftest/shmem_compare.sh can show
 * what the layer costs. Not an OpenSHMEM implementation: only these names exist. */
#ifndef GSHMEM_PERFTEST_CAPI_SHMEM_H
#define GSHMEM_PERFTEST_CAPI_SHMEM_H

#include <gshmem/gshmem.h>

#define SHMEM_CMP_EQ GSHMEM_CMP_EQ
#define shmem_init gshmem_init
#define shmem_finalize gshmem_finalize
#define shmem_my_pe gshmem_my_pe
#define shmem_n_pes gshmem_n_pes
#define shmem_malloc gshmem_malloc
#define shmem_calloc gshmem_calloc
#define shmem_free gshmem_free
#define shmem_putmem gshmem_putmem
#define shmem_getmem gshmem_getmem
#define shmem_quiet gshmem_quiet
#define shmem_barrier_all gshmem_barrier_all
#define shmem_sync_all gshmem_sync_all
#define shmem_long_p gshmem_long_p
#define shmem_long_wait_until gshmem_long_wait_until
#define shmem_long_atomic_fetch_add gshmem_long_atomic_fetch_add
#define shmem_long_atomic_add gshmem_long_atomic_add
#define shmem_long_atomic_compare_swap gshmem_long_atomic_compare_swap
#define shmem_long_atomic_swap gshmem_long_atomic_swap
#define shmem_long_atomic_fetch gshmem_long_atomic_fetch

#endif /* GSHMEM_PERFTEST_CAPI_SHMEM_H */
