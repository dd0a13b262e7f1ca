// An NVSHMEM host program, unchanged: built with the compatibility headers (nvshmem.h first on
// the include path) and run under gshmemrun. Every check names the line and ends the job on the
// first failure.
#include <nvshmem.h>
#include <nvshmemx.h>

#include <cstdio>
#include <cstdlib>

#define CHECK(c)                                                                          \
  do {                                                                                    \
    if (!(c)) {                                                                           \
      std::fprintf(stderr, "PE %d: %s:%d: CHECK(%s) failed\n", nvshmem_my_pe(), __FILE__, \
                   __LINE__, #c);                                                         \
      nvshmem_global_exit(1);                                                             \
    }                                                                                     \
  } while (0)

int main() {
  CHECK(nvshmemx_init_status() == NVSHMEM_STATUS_NOT_INITIALIZED);
  int provided = -1;
  CHECK(nvshmem_init_thread(NVSHMEM_THREAD_MULTIPLE, &provided) == 0);
  CHECK(provided == NVSHMEM_THREAD_MULTIPLE);
  CHECK(nvshmemx_init_status() == NVSHMEM_STATUS_IS_INITIALIZED);
  int major = 0, minor = -1;
  nvshmem_info_get_version(&major, &minor);
  CHECK(major == NVSHMEM_MAJOR_VERSION && minor == NVSHMEM_MINOR_VERSION);
  // As NVSHMEM: the OpenSHMEM level (1.3) there, the NVSHMEM release in the vendor numbers.
  static_assert(NVSHMEM_MAJOR_VERSION == 1 && NVSHMEM_MINOR_VERSION == 3, "the spec level");
  static_assert(NVSHMEM_VENDOR_MAJOR_VERSION >= 3 && NVSHMEM_VENDOR_VERSION >= 30000,
                "the NVSHMEM API level");
  int vmajor = 0, vminor = -1, vpatch = -1;
  nvshmemx_vendor_get_version_info(&vmajor, &vminor, &vpatch);
  CHECK(vmajor == NVSHMEM_VENDOR_MAJOR_VERSION && vminor == NVSHMEM_VENDOR_MINOR_VERSION &&
        vpatch == NVSHMEM_VENDOR_PATCH_VERSION);
  // NVSHMEM's enum type names.
  nvshmemx_cmp_type_t cmp = NVSHMEM_CMP_GE;
  nvshmemx_thread_support_t level = NVSHMEM_THREAD_MULTIPLE;
  nvshmemx_init_status_t status = NVSHMEM_STATUS_IS_INITIALIZED;
  CHECK(cmp == NVSHMEM_CMP_GE && level == provided && status == nvshmemx_init_status());
  char name[NVSHMEM_MAX_NAME_LEN];
  nvshmem_info_get_name(name);
  const int me = nvshmem_my_pe(), n = nvshmem_n_pes();
  const int right = (me + 1) % n, left = (me + n - 1) % n;

  // RMA, typed and sized, and a signal with NVSHMEM's values (NVSHMEM_SIGNAL_ADD is 10).
  int* buf = static_cast<int*>(nvshmem_malloc(64 * sizeof(int)));
  uint64_t* sig = static_cast<uint64_t*>(nvshmem_calloc(1, sizeof(uint64_t)));
  int src[64];
  for (int i = 0; i < 64; ++i) src[i] = me * 100 + i;
  nvshmem_barrier_all();
  nvshmem_int_put_signal(buf, src, 64, sig, 1, NVSHMEM_SIGNAL_ADD, right);
  nvshmem_signal_wait_until(sig, NVSHMEM_CMP_EQ, 1);
  for (int i = 0; i < 64; ++i) CHECK(buf[i] == left * 100 + i);
  nvshmemx_signal_op(sig, 5, NVSHMEM_SIGNAL_SET, me);
  CHECK(nvshmem_signal_fetch(sig) == 5);
  nvshmem_barrier_all();
  int got[64];
  nvshmem_getmem(got, buf, sizeof got, right);  // right's buf holds my values
  for (int i = 0; i < 64; ++i) CHECK(got[i] == me * 100 + i);
  nvshmem_put32(buf, src, 1, right);
  nvshmem_quiet();
  CHECK(nvshmem_int_g(buf, right) == me * 100);
  nvshmem_barrier_all();

  // Atomics and waits.
  long* counter = static_cast<long*>(nvshmem_calloc(1, sizeof(long)));
  nvshmem_barrier_all();
  nvshmem_long_atomic_add(counter, me + 1, 0);
  CHECK(nvshmem_long_atomic_fetch_add(counter, 0, 0) >= 0);
  nvshmem_barrier_all();
  if (me == 0) nvshmem_long_wait_until(counter, NVSHMEM_CMP_EQ, long(n) * (n + 1) / 2);
  CHECK(nvshmem_long_atomic_fetch(counter, 0) == long(n) * (n + 1) / 2);
  nvshmem_barrier_all();

  // Teams, with NVSHMEM's config struct, and collectives on them.
  nvshmem_team_config_t cfg = NVSHMEM_TEAM_CONFIG_INITIALIZER;
  cfg.num_contexts = 1;
  nvshmem_team_t even = NVSHMEM_TEAM_INVALID;
  CHECK(nvshmem_team_split_strided(NVSHMEM_TEAM_WORLD, 0, 2, (n + 1) / 2, &cfg,
                                   NVSHMEM_TEAM_CONFIG_MASK_NUM_CONTEXTS, &even) == 0);
  CHECK((even != NVSHMEM_TEAM_INVALID) == (me % 2 == 0));
  if (even != NVSHMEM_TEAM_INVALID) {
    CHECK(nvshmem_team_my_pe(even) == me / 2);
    CHECK(nvshmem_team_translate_pe(even, nvshmem_team_my_pe(even), NVSHMEM_TEAM_WORLD) == me);
    CHECK(nvshmem_team_sync(even) == 0);
    nvshmem_team_destroy(even);
  }
  // The predefined team of the PEs with this PE's index on their node: one PE per node (this PE
  // alone on one node; every PE where each is a node of its own, as with NVSHMEM_DISABLE_P2P).
  const int per_node = nvshmem_team_n_pes(NVSHMEMX_TEAM_NODE);
  CHECK(nvshmem_team_n_pes(NVSHMEMX_TEAM_SAME_MYPE_NODE) * per_node == n);
  CHECK(nvshmem_team_my_pe(NVSHMEMX_TEAM_SAME_MYPE_NODE) == me / per_node);
  CHECK(nvshmem_team_translate_pe(NVSHMEMX_TEAM_SAME_MYPE_NODE,
                                  nvshmem_team_my_pe(NVSHMEMX_TEAM_SAME_MYPE_NODE),
                                  NVSHMEM_TEAM_WORLD) == me);
  CHECK(nvshmem_team_sync(NVSHMEMX_TEAM_SAME_MYPE_NODE) == 0);
  void (*get_config)(nvshmem_team_t, nvshmem_team_config_t*) = nvshmem_team_get_config;
  nvshmem_team_config_t got_cfg;
  got_cfg.num_contexts = -1;
  get_config(NVSHMEM_TEAM_WORLD, &got_cfg);
  CHECK(got_cfg.num_contexts >= 0);
  // Local buffers registered as NVSHMEM programs do (gshmem needs no registration).
  alignas(64) static char local[4096];
  CHECK(nvshmemx_buffer_register(local, sizeof local) == 0);
  CHECK(nvshmemx_buffer_register(local + 100, 10) != 0);  // overlaps
  CHECK(nvshmemx_buffer_register(nullptr, 10) != 0);
  nvshmem_getmem(local, buf, 64 * sizeof(int), right);
  CHECK(reinterpret_cast<int*>(local)[0] == me * 100);
  CHECK(nvshmemx_buffer_unregister(local) == 0);
  CHECK(nvshmemx_buffer_unregister(local) != 0);  // no longer registered
  CHECK(nvshmemx_buffer_register(local, 16) == 0);
  nvshmemx_buffer_unregister_all();
  CHECK(nvshmemx_buffer_unregister(local) != 0);
  nvshmem_team_t x = NVSHMEM_TEAM_INVALID, y = NVSHMEM_TEAM_INVALID;
  CHECK(nvshmem_team_split_2d(NVSHMEM_TEAM_WORLD, 2, nullptr, 0, &x, nullptr, 0, &y) == 0);
  CHECK(nvshmem_team_my_pe(x) == me % 2 && nvshmem_team_my_pe(y) == me / 2);
  nvshmem_team_destroy(x);
  nvshmem_team_destroy(y);

  int* in = static_cast<int*>(nvshmem_malloc(4 * n * sizeof(int)));
  int* out = static_cast<int*>(nvshmem_malloc(4 * n * sizeof(int)));
  for (int i = 0; i < 4 * n; ++i) in[i] = me + i;
  nvshmem_barrier_all();
  CHECK(nvshmem_int_sum_reduce(NVSHMEM_TEAM_WORLD, out, in, 4) == 0);
  for (int i = 0; i < 4; ++i) CHECK(out[i] == n * (n - 1) / 2 + n * i);
  CHECK(nvshmem_int_max_reduce(NVSHMEM_TEAM_WORLD, out, in, 4) == 0);
  CHECK(out[0] == n - 1);
  CHECK(nvshmem_int_fcollect(NVSHMEM_TEAM_WORLD, out, in, 4) == 0);
  for (int p = 0; p < n; ++p) CHECK(out[4 * p + 1] == p + 1);
  CHECK(nvshmem_int_alltoall(NVSHMEM_TEAM_WORLD, out, in, 4) == 0);
  for (int p = 0; p < n; ++p) CHECK(out[4 * p] == p + 4 * me);
  CHECK(nvshmem_int_broadcast(NVSHMEM_TEAM_WORLD, out, in, 4 * n, n - 1) == 0);
  CHECK(out[0] == n - 1);
  CHECK(nvshmem_barrier(NVSHMEM_TEAM_WORLD) == 0);

  nvshmem_free(out);
  nvshmem_free(in);
  nvshmem_free(counter);
  nvshmem_free(sig);
  nvshmem_free(buf);
  if (me == 0) std::printf("nvshmem host program: %d PEs OK (%s)\n", n, name);
  nvshmem_finalize();
  CHECK(nvshmemx_init_status() == NVSHMEM_STATUS_NOT_INITIALIZED);
  return 0;
}
