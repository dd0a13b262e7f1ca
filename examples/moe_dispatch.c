/* MoE dispatch and combine through the C API (README, "MoE"), on CPU PEs:
 *
 *   gshmemrun -n 4 build/gshmem_moe_example
 *
 * Every PE holds a different number of tokens and owns 2 experts; each token goes to 2 experts.
 * The stand-in expert e multiplies its rows by e + 1, so the combined token t must come back as
 * x[t] * (w0 * (e0 + 1) + w1 * (e1 + 1)): every value is checked. Then a capacity-sized handle
 * meets a routing that sends every token to expert 0: the dispatch reports the overflow on every
 * PE (the library prints it) with the smallest factor that fits, and a handle made with that
 * factor runs the same call. */
#include <gshmem/collectives.h>
#include <gshmem/gshmem.h>
#include <gshmem/moe.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

enum { kMaxTokens = 16, kTopK = 2, kHidden = 32 };

static int g_me, g_npes;

static void fail(const char* what, int status) {
  fprintf(stderr, "PE %d: %s failed (status %d)\n", g_me, what, status);
  gshmem_global_exit(1);
}

/* Runs one dispatch, the stand-in experts and one combine; returns the values that came back
 * wrong, or -1 when the dispatch reported GSHMEM_ERROR_CAPACITY. */
static int exchange(gshmem_moe_handle_t h, int num_experts, int skewed) {
  static float x[kMaxTokens][kHidden], out[kMaxTokens][kHidden], w[kMaxTokens][kTopK];
  static int32_t idx[kMaxTokens][kTopK];
  const int32_t tokens = kMaxTokens - g_me % kMaxTokens;
  for (int t = 0; t < tokens; ++t) {
    for (int v = 0; v < kHidden; ++v) x[t][v] = (float)(g_me * 100 + t + v);
    idx[t][0] = skewed ? 0 : (g_me + t) % num_experts;
    idx[t][1] = skewed ? 1 : (g_me + t + 1) % num_experts;
    w[t][0] = 0.25f;
    w[t][1] = 0.75f;
  }

  gshmem_moe_expert_batch_t batch;
  int rc = gshmem_moe_dispatch(h, &batch, x, NULL, &idx[0][0], &tokens, NULL);
  if (rc == GSHMEM_ERROR_CAPACITY) return -1;
  if (rc != GSHMEM_SUCCESS) fail("gshmem_moe_dispatch", rc);

  /* The experts: local expert e of this PE is global expert g_me * L + e. */
  const size_t row = (size_t)kHidden;
  float* y = malloc((size_t)batch.num_local_experts * batch.expert_capacity * row * sizeof(float));
  for (int e = 0; e < batch.num_local_experts; ++e) {
    const float factor = (float)(g_me * batch.num_local_experts + e + 1);
    for (int r = 0; r < batch.counts[e]; ++r) {
      const size_t at = ((size_t)e * batch.expert_capacity + r) * row;
      for (size_t v = 0; v < row; ++v) y[at + v] = ((const float*)batch.x)[at + v] * factor;
    }
  }
  rc = gshmem_moe_combine(h, out, y, &w[0][0], NULL);
  free(y);
  if (rc != GSHMEM_SUCCESS) fail("gshmem_moe_combine", rc);

  int wrong = 0;
  for (int t = 0; t < tokens; ++t) {
    const float scale = w[t][0] * (float)(idx[t][0] + 1) + w[t][1] * (float)(idx[t][1] + 1);
    for (int v = 0; v < kHidden; ++v) wrong += out[t][v] != x[t][v] * scale;
  }
  return wrong;
}

static gshmem_moe_handle_t create(int num_experts, double capacity_factor) {
  gshmem_moe_config_t c;
  gshmem_moe_config_init(&c);
  c.max_tokens = kMaxTokens;
  c.num_experts = num_experts;
  c.experts_per_token = kTopK;
  c.hidden = kHidden;
  c.dispatch_type = GSHMEM_MOE_FLOAT32;
  c.combine_type = GSHMEM_MOE_FLOAT32;
  c.capacity_factor = capacity_factor;
  gshmem_moe_handle_t h;
  int rc = gshmem_moe_create(&c, &h);
  if (rc != GSHMEM_SUCCESS) fail("gshmem_moe_create", rc);
  return h;
}

/* The sum of v over every PE (symmetric ints and the library's AllReduce). */
static int sum_over_pes(int v) {
  int* in = gshmem_malloc(2 * sizeof(int));
  in[0] = v;
  if (gshmem_allreduce(GSHMEM_TEAM_WORLD, in + 1, in, 1, GSHMEM_INT32, GSHMEM_SUM, NULL) != 0)
    fail("gshmem_allreduce", 1);
  const int total = in[1];
  gshmem_free(in);
  return total;
}

/* A capacity-sized handle (factor 1: the average load per expert) meets a routing that sends
 * every token to experts 0 and 1: the dispatch must report the overflow, and a handle made with
 * the factor it names must run the same call. Returns nonzero when either does not happen. */
static int overflow_and_retry(int num_experts) {
  gshmem_moe_handle_t h = create(num_experts, 1.0);
  if (exchange(h, num_experts, 1) != -1) {
    if (g_me == 0) printf("expected GSHMEM_ERROR_CAPACITY from the skewed dispatch\n");
    gshmem_global_exit(1);
  }
  gshmem_moe_overflow_t o;
  gshmem_moe_last_overflow(h, &o);
  gshmem_moe_destroy(h);
  const double factor = ceil(o.min_capacity_factor * 100) / 100;
  if (g_me == 0) {
    printf(
        "capacity factor 1: expert %d would get %d rows, room for %d; retrying with factor "
        "%.2f\n",
        o.expert, o.count, o.capacity, factor);
  }
  h = create(num_experts, factor);
  const int r = exchange(h, num_experts, 1);
  gshmem_moe_destroy(h);
  const int failed = sum_over_pes(r != 0);
  if (g_me == 0) printf("retry: %s\n", failed ? "WRONG VALUES or overflow" : "every value right");
  return failed;
}

int main(void) {
  gshmem_init();
  g_me = gshmem_my_pe();
  g_npes = gshmem_n_pes();
  const int num_experts = 2 * g_npes;

  /* Worst-case buffers: no routing can overflow them. */
  gshmem_moe_handle_t h = create(num_experts, 0);
  gshmem_moe_info_t info;
  gshmem_moe_get_info(h, &info);
  int wrong = 0;
  for (int iter = 0; iter < 3; ++iter) wrong += exchange(h, num_experts, 0);
  wrong = sum_over_pes(wrong);
  if (g_me == 0) {
    printf(
        "%d PEs x %d experts, top-%d, up to %d tokens of %d floats per PE: 3 dispatch/combine "
        "rounds, %s (%zu symmetric bytes per PE)\n",
        g_npes, info.num_local_experts, kTopK, kMaxTokens, kHidden,
        wrong ? "WRONG VALUES" : "every value right", info.symmetric_bytes);
  }
  gshmem_moe_destroy(h);

  int retry_failed = 0;
  if (g_npes < 2) { /* one PE's experts share its tokens evenly: nothing can overflow */
    if (g_me == 0) printf("(the overflow part needs 2 or more PEs)\n");
  } else {
    retry_failed = overflow_and_retry(num_experts);
  }

  gshmem_finalize();
  return wrong || retry_failed ? 1 : 0;
}
