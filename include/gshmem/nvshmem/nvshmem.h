/* NVSHMEM source compatibility: programs written for NVSHMEM build unchanged against gshmem.
 *
 * This directory is not on gshmem's default include path (it would shadow a real NVSHMEM): add
 * <prefix>/include/gshmem/nvshmem first (find_package(NVSHMEM) with gshmem's NVSHMEMConfig.cmake,
 * or pkg-config nvshmem, does it). nvshmem.h and nvshmemx.h are the same header.
 *
 * Every name below is an explicit entry of the table in gshmem/nvshmem/names.h: an inline
 * function that calls the gshmem function doing the same thing (converting NVSHMEM's types and
 * constants where they differ), so an NVSHMEM name gshmem does not implement is simply absent and
 * a program using it fails to compile naming it. Types, handles and constants carry NVSHMEM's
 * numeric values (NVSHMEM_SIGNAL_SET is 9, NVSHMEM_SIGNAL_ADD 10, NVSHMEM_CMP_EQ 0, ...).
 *
 * In a .cu file the names work in kernels as in NVSHMEM (device API: gshmem/device/capi.cuh;
 * link gshmem::device), and the headers NVSHMEM's own bring in under nvcc (cuda_runtime.h,
 * cooperative_groups.h) come with them. Host-only names called from a kernel fail to compile
 * ("calling a __host__ function from a __global__ function"), naming the call.
 */
#ifndef GSHMEM_NVSHMEM_H
#define GSHMEM_NVSHMEM_H

#include "names.h"

#endif /* GSHMEM_NVSHMEM_H */
