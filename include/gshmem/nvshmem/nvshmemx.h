/* NVSHMEM's nvshmemx.h: the extension names (nvshmemx_*) come with nvshmem.h in gshmem; see
 * there. */
#ifndef GSHMEM_NVSHMEMX_H
#define GSHMEM_NVSHMEMX_H

#include "nvshmem.h"

#endif /* GSHMEM_NVSHMEMX_H */
