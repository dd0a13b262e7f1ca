/* Compiled as C, so gshmem/moe.h is proven to be a C header; the CApi test makes its handle
 * through here. */
#include "gshmem/moe.h"

int moe_c_create(int n_pes, gshmem_moe_handle_t* handle) {
  gshmem_moe_config_t c;
  gshmem_moe_config_init(&c);
  c.max_tokens = 8;
  c.num_experts = 2 * n_pes;
  c.experts_per_token = 2;
  c.hidden = 16;
  c.dispatch_type = GSHMEM_MOE_FLOAT32;
  c.combine_type = GSHMEM_MOE_FLOAT32;
  return gshmem_moe_create(&c, handle);
}
