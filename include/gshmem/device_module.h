/* CUDA modules and libraries a program loads itself with the driver API (cuModuleLoad*,
 * cuLibraryLoad*: cubins, JIT-compiled code), given the kernels' default context: after
 * gshmemx_cumodule_init(module) the module's kernels may call the device API, and the module's
 * copy of the context is kept current (init, heap growth, finalize) until its _finalize. The
 * module must have been compiled with -rdc=true and device-linked against gshmem::device (its
 * copy is the extern __constant__ gshmemi_device_ctx). Part of gshmem::device
 * (libgshmem_device). NVSHMEM's nvshmemx_cumodule_init and nvshmemx_culibrary_init.
 *
 * module is a CUmodule, library a CUlibrary (as void*). Returns 0, or GSHMEM_ERROR_INVALID_ARGUMENT
 * after printing why (no GPU, no such symbol in the module, a context of another size). */
#ifndef GSHMEM_DEVICE_MODULE_H
#define GSHMEM_DEVICE_MODULE_H

#ifdef __cplusplus
extern "C" {
#endif

int gshmemx_cumodule_init(void* module);
int gshmemx_cumodule_finalize(void* module);
int gshmemx_culibrary_init(void* library);
int gshmemx_culibrary_finalize(void* library);

#ifdef __cplusplus
}
#endif

#endif /* GSHMEM_DEVICE_MODULE_H */
