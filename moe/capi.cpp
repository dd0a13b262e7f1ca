// The C API of gshmem/moe.h: thin wrappers over gshmem::moe::AllToAll that turn its exceptions
// into printed messages and status codes, and keep the last overflow for
// gshmem_moe_last_overflow.
#include <new>

#include "gshmem/moe.h"
#include "gshmem/moe.hpp"
#include "host/base/log.hpp"

struct gshmem_moe_a2a {
  explicit gshmem_moe_a2a(const gshmem::moe::Config& c) : a2a(c) {}
  gshmem::moe::AllToAll a2a;
  gshmem_moe_overflow_t last_overflow{};
};

namespace {

using gshmem::Error;
using gshmem::moe::CapacityError;

// Runs fn, returning its failure as a status after printing why.
template <class Fn>
int guarded(const char* call, gshmem_moe_handle_t h, Fn&& fn) {
  try {
    fn();
    return GSHMEM_SUCCESS;
  } catch (const CapacityError& e) {
    if (h) h->last_overflow = e.overflow();
    gshmem::log::error("%s", e.what());
    return e.status();
  } catch (const Error& e) {
    gshmem::log::error("%s", e.what());
    return e.status();
  } catch (const std::bad_alloc&) {
    gshmem::log::error("%s: out of memory", call);
    return GSHMEM_ERROR_OUT_OF_MEMORY;
  }
}

int null_argument(const char* call, const char* what) {
  gshmem::log::error("%s: %s is NULL", call, what);
  return GSHMEM_ERROR_INVALID_ARGUMENT;
}

}  // namespace

extern "C" {

void gshmem_moe_config_init(gshmem_moe_config_t* config) {
  if (!config) return;
  gshmem::moe::Config d;
  *config = gshmem_moe_config_t{};
  config->dispatch_type = gshmem_moe_dtype_t(d.dispatch_type);
  config->combine_type = gshmem_moe_dtype_t(d.combine_type);
  config->scale_block = d.scale_block;
  config->team = d.team;
  config->dp_size = d.dp_size;
  config->capacity_factor = d.capacity_factor;
}

int gshmem_moe_create(const gshmem_moe_config_t* config, gshmem_moe_handle_t* handle) {
  const char* call = "gshmem_moe_create";
  if (!config) return null_argument(call, "config");
  if (!handle) return null_argument(call, "handle");
  *handle = nullptr;
  gshmem::moe::Config c;
  c.max_tokens = config->max_tokens;
  c.num_experts = config->num_experts;
  c.experts_per_token = config->experts_per_token;
  c.hidden = config->hidden;
  c.dispatch_type = gshmem::moe::DType(config->dispatch_type);
  c.combine_type = gshmem::moe::DType(config->combine_type);
  c.scale_block = config->scale_block;
  c.team = config->team;
  c.dp_size = config->dp_size;
  c.capacity_factor = config->capacity_factor;
  return guarded(call, nullptr, [&] { *handle = new gshmem_moe_a2a(c); });
}

int gshmem_moe_destroy(gshmem_moe_handle_t handle) {
  delete handle;
  return GSHMEM_SUCCESS;
}

int gshmem_moe_get_info(gshmem_moe_handle_t handle, gshmem_moe_info_t* info) {
  if (!handle) return null_argument("gshmem_moe_get_info", "handle");
  if (!info) return null_argument("gshmem_moe_get_info", "info");
  *info = handle->a2a.info();
  return GSHMEM_SUCCESS;
}

int gshmem_moe_dispatch_send(gshmem_moe_handle_t handle, const void* x, const float* scales,
                             const int32_t* indices, const int32_t* num_tokens, void* stream) {
  const char* call = "gshmem_moe_dispatch_send";
  if (!handle) return null_argument(call, "handle");
  return guarded(call, handle,
                 [&] { handle->a2a.dispatch_send(x, scales, indices, num_tokens, stream); });
}

int gshmem_moe_dispatch_recv(gshmem_moe_handle_t handle, gshmem_moe_expert_batch_t* batch,
                             void* stream) {
  const char* call = "gshmem_moe_dispatch_recv";
  if (!handle) return null_argument(call, "handle");
  if (!batch) return null_argument(call, "batch");
  return guarded(call, handle, [&] { *batch = handle->a2a.dispatch_recv(stream); });
}

int gshmem_moe_dispatch(gshmem_moe_handle_t handle, gshmem_moe_expert_batch_t* batch, const void* x,
                        const float* scales, const int32_t* indices, const int32_t* num_tokens,
                        void* stream) {
  const char* call = "gshmem_moe_dispatch";
  if (!handle) return null_argument(call, "handle");
  if (!batch) return null_argument(call, "batch");
  return guarded(call, handle,
                 [&] { *batch = handle->a2a.dispatch(x, scales, indices, num_tokens, stream); });
}

int gshmem_moe_combine_send(gshmem_moe_handle_t handle, const void* expert_y, void* stream) {
  const char* call = "gshmem_moe_combine_send";
  if (!handle) return null_argument(call, "handle");
  return guarded(call, handle, [&] { handle->a2a.combine_send(expert_y, stream); });
}

int gshmem_moe_combine_recv(gshmem_moe_handle_t handle, void* out, const float* weights,
                            void* stream) {
  const char* call = "gshmem_moe_combine_recv";
  if (!handle) return null_argument(call, "handle");
  return guarded(call, handle, [&] { handle->a2a.combine_recv(out, weights, stream); });
}

int gshmem_moe_combine(gshmem_moe_handle_t handle, void* out, const void* expert_y,
                       const float* weights, void* stream) {
  const char* call = "gshmem_moe_combine";
  if (!handle) return null_argument(call, "handle");
  return guarded(call, handle, [&] { handle->a2a.combine(out, expert_y, weights, stream); });
}

int gshmem_moe_sync(gshmem_moe_handle_t handle, void* stream) {
  const char* call = "gshmem_moe_sync";
  if (!handle) return null_argument(call, "handle");
  return guarded(call, handle, [&] { handle->a2a.sync(stream); });
}

int gshmem_moe_last_overflow(gshmem_moe_handle_t handle, gshmem_moe_overflow_t* overflow) {
  if (!handle) return null_argument("gshmem_moe_last_overflow", "handle");
  if (!overflow) return null_argument("gshmem_moe_last_overflow", "overflow");
  *overflow = handle->last_overflow;
  return GSHMEM_SUCCESS;
}

size_t gshmem_moe_dtype_size(gshmem_moe_dtype_t type) {
  return gshmem::moe::dtype_size(gshmem::moe::DType(type));
}

}  // extern "C"
