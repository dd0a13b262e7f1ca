/* gshmem extensions to the OpenSHMEM 1.5 API (the specification reserves the shmemx_ prefix for
 * them). */
#ifndef GSHMEM_COMPAT_SHMEMX_H
#define GSHMEM_COMPAT_SHMEMX_H

#include "shmem.h"

/* The PEs on this (virtual) node, mapped or not: with gshmemrun --ppn every virtual node is one
 * SHMEMX_TEAM_NODE. On one real node it equals SHMEM_TEAM_SHARED. */
#define SHMEMX_TEAM_NODE ((shmem_team_t)(uintptr_t)3)

#endif /* GSHMEM_COMPAT_SHMEMX_H */
