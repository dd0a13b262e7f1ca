/* OpenSHMEM 1.5: library setup and query, the symmetric heap, and accessibility. */
#ifndef GSHMEM_COMPAT_SHMEM_SETUP_H
#define GSHMEM_COMPAT_SHMEM_SETUP_H

#include <stddef.h>

#include "constants.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Collective. Calling it again while initialised does nothing. The program's global and static
 * variables become symmetric here (remote targets of RMA and atomics). */
void shmem_init(void);
/* Collective. Every level is provided as asked: gshmem's data path is safe for concurrent use
 * from any number of threads. Returns 0. */
int shmem_init_thread(int requested, int* provided);
/* The level shmem_init_thread granted; SHMEM_THREAD_MULTIPLE after shmem_init. */
void shmem_query_thread(int* provided);
/* Collective: quiet, barrier, tear down. A program that returns 0 from main without it gets it
 * implicitly. */
void shmem_finalize(void);
int shmem_my_pe(void);
int shmem_n_pes(void);
/* Ends every PE; the job's exit status is `status`. */
void shmem_global_exit(int status);
/* 1 when RMA and atomics can reach pe (mapped or through the network transport), else 0. */
int shmem_pe_accessible(int pe);
/* 1 when addr is symmetric (heap or static data) and pe is accessible, else 0. */
int shmem_addr_accessible(const void* addr, int pe);
/* dest's copy on pe when it can be loaded and stored directly from here, else NULL. */
void* shmem_ptr(const void* dest, int pe);
/* As shmem_ptr with pe numbered in team. */
void* shmem_team_ptr(shmem_team_t team, const void* dest, int pe);
void shmem_info_get_version(int* major, int* minor);
/* Writes SHMEM_VENDOR_STRING (at most SHMEM_MAX_NAME_LEN bytes with the terminator). */
void shmem_info_get_name(char* name);
/* The profiling interface's control (OpenSHMEM 1.5, "Profiling Interface"): level 0 disables
 * profiling, 1 enables it, 2 flushes profile buffers, other levels mean what a tool says. The
 * library itself profiles nothing, so it has no effect here; a profiling tool defines its own
 * shmem_pcontrol (and shmem_ routines, calling the pshmem_ names of pshmem.h) to receive it. */
void shmem_pcontrol(const int level, ...);

/* Symmetric heap: collective, same arguments on every PE. */
void* shmem_malloc(size_t size);
void* shmem_malloc_with_hints(size_t size, long hints);
void* shmem_calloc(size_t count, size_t size);
void* shmem_align(size_t alignment, size_t size);
void* shmem_realloc(void* ptr, size_t size);
void shmem_free(void* ptr);

#ifdef __cplusplus
}
#endif

#endif /* GSHMEM_COMPAT_SHMEM_SETUP_H */
