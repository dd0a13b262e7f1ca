// The one default context of -rdc builds (see gshmem/device/default_context.cuh), attached at
// load so the runtime's hook fills it from gshmem_init on.
#include "gshmem/device/default_context.cuh"

__constant__ gshmem::DeviceContext gshmemi_device_ctx;

extern "C" const int gshmemi_device_ctx_anchor = gshmemi_device_attach(&gshmemi_device_ctx);
