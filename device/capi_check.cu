// Compiles every name of the device C API for the device: the wrappers are inline and only
// instantiate their templates when used, so without this a broken type variant would surface
// only in a user's kernel. Also checks that host code in a .cu sees the same names as host calls.
#include "gshmem/device/capi.cuh"

namespace {

// clang-format off
#define GSHMEMI_ADDR(fn) out[i++] = reinterpret_cast<void*>(&fn);

#define GSHMEMI_RMA_NAMES(NAME, T)                                                         \
  GSHMEMI_ADDR(gshmem_##NAME##_put) GSHMEMI_ADDR(gshmem_##NAME##_put_nbi)                 \
  GSHMEMI_ADDR(gshmem_##NAME##_get) GSHMEMI_ADDR(gshmem_##NAME##_get_nbi)                 \
  GSHMEMI_ADDR(gshmem_##NAME##_p) GSHMEMI_ADDR(gshmem_##NAME##_g)                         \
  GSHMEMI_ADDR(gshmem_##NAME##_iput) GSHMEMI_ADDR(gshmem_##NAME##_iget)                   \
  GSHMEMI_ADDR(gshmem_##NAME##_put_signal) GSHMEMI_ADDR(gshmem_##NAME##_put_signal_nbi)   \
  GSHMEMI_RMA_GROUP_NAMES(NAME, warp) GSHMEMI_RMA_GROUP_NAMES(NAME, block)
#define GSHMEMI_RMA_GROUP_NAMES(NAME, S)                                                   \
  GSHMEMI_ADDR(gshmem_##NAME##_put_##S) GSHMEMI_ADDR(gshmem_##NAME##_put_nbi_##S)         \
  GSHMEMI_ADDR(gshmem_##NAME##_get_##S) GSHMEMI_ADDR(gshmem_##NAME##_get_nbi_##S)         \
  GSHMEMI_ADDR(gshmem_##NAME##_put_signal_##S)                                             \
  GSHMEMI_ADDR(gshmem_##NAME##_put_signal_nbi_##S)
#define GSHMEMI_SIZED_NAMES(B)                                                             \
  GSHMEMI_ADDR(gshmem_put##B) GSHMEMI_ADDR(gshmem_put##B##_nbi) GSHMEMI_ADDR(gshmem_get##B) \
  GSHMEMI_ADDR(gshmem_get##B##_nbi) GSHMEMI_ADDR(gshmem_iput##B) GSHMEMI_ADDR(gshmem_iget##B) \
  GSHMEMI_ADDR(gshmem_put##B##_warp) GSHMEMI_ADDR(gshmem_put##B##_nbi_warp)                \
  GSHMEMI_ADDR(gshmem_get##B##_warp) GSHMEMI_ADDR(gshmem_get##B##_nbi_warp)                \
  GSHMEMI_ADDR(gshmem_put##B##_block) GSHMEMI_ADDR(gshmem_put##B##_nbi_block)              \
  GSHMEMI_ADDR(gshmem_get##B##_block) GSHMEMI_ADDR(gshmem_get##B##_nbi_block)
#define GSHMEMI_AMO_EXT_NAMES(NAME, T)                                                     \
  GSHMEMI_ADDR(gshmem_##NAME##_atomic_fetch) GSHMEMI_ADDR(gshmem_##NAME##_atomic_set)     \
  GSHMEMI_ADDR(gshmem_##NAME##_atomic_swap)
#define GSHMEMI_AMO_NAMES(NAME, T)                                                         \
  GSHMEMI_AMO_EXT_NAMES(NAME, T)                                                           \
  GSHMEMI_ADDR(gshmem_##NAME##_atomic_compare_swap)                                        \
  GSHMEMI_ADDR(gshmem_##NAME##_atomic_fetch_inc) GSHMEMI_ADDR(gshmem_##NAME##_atomic_inc) \
  GSHMEMI_ADDR(gshmem_##NAME##_atomic_fetch_add) GSHMEMI_ADDR(gshmem_##NAME##_atomic_add)
#define GSHMEMI_AMO_BIT_NAMES(NAME, T)                                                     \
  GSHMEMI_ADDR(gshmem_##NAME##_atomic_fetch_and) GSHMEMI_ADDR(gshmem_##NAME##_atomic_and) \
  GSHMEMI_ADDR(gshmem_##NAME##_atomic_fetch_or) GSHMEMI_ADDR(gshmem_##NAME##_atomic_or)   \
  GSHMEMI_ADDR(gshmem_##NAME##_atomic_fetch_xor) GSHMEMI_ADDR(gshmem_##NAME##_atomic_xor)
#define GSHMEMI_WAIT_NAMES(NAME, T)                                                        \
  GSHMEMI_ADDR(gshmem_##NAME##_wait_until) GSHMEMI_ADDR(gshmem_##NAME##_wait_until_all)   \
  GSHMEMI_ADDR(gshmem_##NAME##_wait_until_any) GSHMEMI_ADDR(gshmem_##NAME##_wait_until_some) \
  GSHMEMI_ADDR(gshmem_##NAME##_wait_until_all_vector)                                      \
  GSHMEMI_ADDR(gshmem_##NAME##_wait_until_any_vector)                                      \
  GSHMEMI_ADDR(gshmem_##NAME##_wait_until_some_vector) GSHMEMI_ADDR(gshmem_##NAME##_test) \
  GSHMEMI_ADDR(gshmem_##NAME##_test_all) GSHMEMI_ADDR(gshmem_##NAME##_test_any)           \
  GSHMEMI_ADDR(gshmem_##NAME##_test_some) GSHMEMI_ADDR(gshmem_##NAME##_test_all_vector)   \
  GSHMEMI_ADDR(gshmem_##NAME##_test_any_vector) GSHMEMI_ADDR(gshmem_##NAME##_test_some_vector)
#define GSHMEMI_GROUP_NAMES(S, G)                                                          \
  GSHMEMI_ADDR(gshmem_putmem_##S) GSHMEMI_ADDR(gshmem_putmem_nbi_##S)                     \
  GSHMEMI_ADDR(gshmem_getmem_##S) GSHMEMI_ADDR(gshmem_getmem_nbi_##S)                     \
  GSHMEMI_ADDR(gshmem_putmem_signal_##S) GSHMEMI_ADDR(gshmem_putmem_signal_nbi_##S)       \
  GSHMEMI_ADDR(gshmem_barrier_all_##S) GSHMEMI_ADDR(gshmem_sync_all_##S)                  \
  GSHMEMI_ADDR(gshmem_barrier_##S) GSHMEMI_ADDR(gshmem_team_sync_##S)                     \
  GSHMEMI_ADDR(gshmem_quiet_##S)

__global__ void every_device_name(void** out) {
  int i = 0;
  GSHMEMI_ADDR(gshmem_putmem) GSHMEMI_ADDR(gshmem_putmem_nbi) GSHMEMI_ADDR(gshmem_getmem)
  GSHMEMI_ADDR(gshmem_getmem_nbi) GSHMEMI_ADDR(gshmem_putmem_signal)
  GSHMEMI_ADDR(gshmem_putmem_signal_nbi) GSHMEMI_ADDR(gshmem_signal_op)
  GSHMEMI_ADDR(gshmem_signal_fetch) GSHMEMI_ADDR(gshmem_signal_wait_until)
  GSHMEMI_ADDR(gshmem_fence) GSHMEMI_ADDR(gshmem_quiet) GSHMEMI_ADDR(gshmem_barrier_all)
  GSHMEMI_ADDR(gshmem_sync_all) GSHMEMI_ADDR(gshmem_barrier) GSHMEMI_ADDR(gshmem_team_sync)
  GSHMEMI_ADDR(gshmem_my_pe) GSHMEMI_ADDR(gshmem_n_pes) GSHMEMI_ADDR(gshmem_ptr)
  GSHMEMI_ADDR(gshmem_team_my_pe) GSHMEMI_ADDR(gshmem_team_n_pes)
  GSHMEMI_FOR_GROUPS(GSHMEMI_GROUP_NAMES)
  GSHMEM_FOR_RMA_TYPES(GSHMEMI_RMA_NAMES)
  GSHMEM_FOR_SIZES(GSHMEMI_SIZED_NAMES)
  GSHMEM_FOR_AMO_TYPES(GSHMEMI_AMO_NAMES)
  GSHMEM_FOR_AMO_BITWISE_TYPES(GSHMEMI_AMO_BIT_NAMES)
  GSHMEM_FOR_AMO_EXTENDED_TYPES(GSHMEMI_AMO_EXT_NAMES)
  GSHMEM_FOR_WAIT_TYPES(GSHMEMI_WAIT_NAMES)
}
// clang-format on

}  // namespace

// Host code of a .cu file calling the same names: these resolve to libgshmem's functions.
void capi_check_host_calls(void* buf, int pe) {
  gshmem_putmem(buf, buf, 8, pe);
  gshmem_int_p(static_cast<int*>(buf), 1, pe);
  gshmem_barrier_all();
  every_device_name<<<1, 1>>>(nullptr);
}
