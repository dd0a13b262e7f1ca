/* Teams and contexts through the OpenSHMEM API: the predefined teams, split_strided and
 * split_2d with their configs, translate_pe, team_ptr, team_sync and destroy; contexts made with
 * shmem_ctx_create and shmem_team_create_ctx, whose RMA and atomics number PEs in their team,
 * ctx_get_team, and the invalid handles. */
#include <shmemx.h>

#include "check.h"

static int me, npes;
static int slot[64];      /* written through team contexts: slot[writer's world PE] */
static long team_counter; /* fetch-added through a team context on the team's PE 0 */

static void predefined(void) {
  CHECK_EQ(shmem_team_my_pe(SHMEM_TEAM_WORLD), me);
  CHECK_EQ(shmem_team_n_pes(SHMEM_TEAM_WORLD), npes);
  CHECK_EQ(shmem_team_my_pe(SHMEM_TEAM_INVALID), -1);
  CHECK_EQ(shmem_team_n_pes(SHMEM_TEAM_INVALID), -1);
  int shared = shmem_team_n_pes(SHMEM_TEAM_SHARED);
  CHECK(shared >= 1 && shared <= npes);
  CHECK(shmem_team_my_pe(SHMEM_TEAM_SHARED) >= 0);
  CHECK(shmem_team_n_pes(SHMEMX_TEAM_NODE) >= shared);
  for (int i = 0; i < shared; ++i) {
    int world = shmem_team_translate_pe(SHMEM_TEAM_SHARED, i, SHMEM_TEAM_WORLD);
    CHECK(world >= 0 && world < npes);
    /* Shared peers are mapped: their copy of slot can be loaded directly. */
    CHECK(shmem_team_ptr(SHMEM_TEAM_SHARED, slot, i) != NULL);
    CHECK(shmem_ptr(slot, world) == shmem_team_ptr(SHMEM_TEAM_SHARED, slot, i));
  }
  CHECK(shmem_team_ptr(SHMEM_TEAM_WORLD, slot, me) == (void*)slot);
  shmem_team_config_t config = {-1};
  CHECK_EQ(shmem_team_get_config(SHMEM_TEAM_WORLD, SHMEM_TEAM_NUM_CONTEXTS, &config), 0);
  CHECK_EQ(config.num_contexts, 0);
  CHECK(shmem_team_get_config(SHMEM_TEAM_INVALID, 0, &config) != 0);
  CHECK_EQ(shmem_team_sync(SHMEM_TEAM_WORLD), 0);
  CHECK_EQ(shmem_team_sync(SHMEM_TEAM_SHARED), 0);
  /* An invalid parent makes no team, without involving the other PEs, and is no error (the PE
   * is simply in no parent). */
  shmem_team_t none = SHMEM_TEAM_WORLD;
  CHECK_EQ(shmem_team_split_strided(SHMEM_TEAM_INVALID, 0, 1, 1, NULL, 0, &none), 0);
  CHECK(none == SHMEM_TEAM_INVALID);
}

/* The even world PEs, with a context each: pe arguments of its operations are team indices. */
static void evens(void) {
  shmem_team_config_t config = {2};
  shmem_team_t team = SHMEM_TEAM_INVALID;
  CHECK_EQ(shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 2, (npes + 1) / 2, &config,
                                    SHMEM_TEAM_NUM_CONTEXTS, &team),
           0);
  if (me % 2) {
    CHECK(team == SHMEM_TEAM_INVALID);
    shmem_ctx_t ctx = SHMEM_CTX_DEFAULT;
    CHECK(shmem_team_create_ctx(team, 0, &ctx) != 0);
    CHECK(ctx == SHMEM_CTX_INVALID);
    shmem_barrier_all();
    shmem_barrier_all();
    return;
  }
  int n = shmem_team_n_pes(team), t = shmem_team_my_pe(team);
  CHECK_EQ(n, (npes + 1) / 2);
  CHECK_EQ(t, me / 2);
  for (int i = 0; i < n; ++i) CHECK_EQ(shmem_team_translate_pe(team, i, SHMEM_TEAM_WORLD), 2 * i);
  CHECK_EQ(shmem_team_translate_pe(SHMEM_TEAM_WORLD, 1, team), -1);
  config.num_contexts = -1;
  CHECK_EQ(shmem_team_get_config(team, SHMEM_TEAM_NUM_CONTEXTS, &config), 0);
  CHECK_EQ(config.num_contexts, 2);

  shmem_ctx_t ctx = SHMEM_CTX_INVALID;
  CHECK_EQ(shmem_team_create_ctx(team, SHMEM_CTX_PRIVATE, &ctx), 0);
  CHECK(ctx != SHMEM_CTX_INVALID);
  shmem_team_t back = SHMEM_TEAM_INVALID;
  CHECK_EQ(shmem_ctx_get_team(ctx, &back), 0);
  CHECK(back == team);
  int next = (t + 1) % n; /* a team index: world PE 2 * next */
  shmem_ctx_int_p(ctx, &slot[me], me + 100, next);
  shmem_ctx_quiet(ctx);
  (void)shmem_ctx_long_atomic_fetch_add(ctx, &team_counter, 1, 0);
  CHECK_EQ(shmem_team_sync(team), 0);
  int prev = (t + n - 1) % n;
  CHECK_EQ(slot[2 * prev], 2 * prev + 100);
  CHECK_EQ(shmem_ctx_int_g(ctx, &slot[me], next), me + 100);
  if (me == 0) CHECK_EQ(team_counter, n);
  shmem_barrier_all();
  shmem_ctx_destroy(ctx);
  shmem_team_destroy(team);
  shmem_barrier_all();
}

/* Rows of two consecutive PEs and their columns. */
static void grid(void) {
  shmem_team_t x = SHMEM_TEAM_INVALID, y = SHMEM_TEAM_INVALID;
  shmem_team_config_t xc = {1}, yc = {3};
  CHECK_EQ(shmem_team_split_2d(SHMEM_TEAM_WORLD, 2, &xc, SHMEM_TEAM_NUM_CONTEXTS, &x, &yc,
                               SHMEM_TEAM_NUM_CONTEXTS, &y),
           0);
  CHECK(x != SHMEM_TEAM_INVALID && y != SHMEM_TEAM_INVALID);
  CHECK_EQ(shmem_team_my_pe(x), me % 2);
  CHECK_EQ(shmem_team_n_pes(x), (me / 2 * 2 + 1 < npes) ? 2 : 1);
  CHECK_EQ(shmem_team_my_pe(y), me / 2);
  CHECK_EQ(shmem_team_translate_pe(y, 0, SHMEM_TEAM_WORLD), me % 2);
  shmem_team_config_t got = {0};
  CHECK_EQ(shmem_team_get_config(y, SHMEM_TEAM_NUM_CONTEXTS, &got), 0);
  CHECK_EQ(got.num_contexts, 3);
  CHECK_EQ(shmem_team_sync(x), 0);
  CHECK_EQ(shmem_team_sync(y), 0);
  shmem_team_destroy(x);
  shmem_team_destroy(y);
  shmem_team_destroy(SHMEM_TEAM_INVALID);
  shmem_barrier_all();
}

/* World contexts: the default one and created ones number PEs as the world does. */
static long world_target[4];
static void world_contexts(void) {
  shmem_ctx_t ctx[3];
  long options[3] = {0, SHMEM_CTX_SERIALIZED | SHMEM_CTX_PRIVATE, SHMEM_CTX_NOSTORE};
  for (int i = 0; i < 3; ++i) {
    CHECK_EQ(shmem_ctx_create(options[i], &ctx[i]), 0);
    shmem_team_t team = SHMEM_TEAM_INVALID;
    CHECK_EQ(shmem_ctx_get_team(ctx[i], &team), 0);
    CHECK(team == SHMEM_TEAM_WORLD);
  }
  shmem_team_t team = SHMEM_TEAM_INVALID;
  CHECK_EQ(shmem_ctx_get_team(SHMEM_CTX_DEFAULT, &team), 0);
  CHECK(team == SHMEM_TEAM_WORLD);
  CHECK(shmem_ctx_get_team(SHMEM_CTX_INVALID, &team) != 0);
  CHECK(team == SHMEM_TEAM_INVALID);
  int right = (me + 1) % npes, left = (me + npes - 1) % npes;
  for (int i = 0; i < 3; ++i) shmem_ctx_long_p(ctx[i], &world_target[i], me * 10 + i, right);
  shmem_ctx_long_atomic_add(SHMEM_CTX_DEFAULT, &world_target[3], 1, 0);
  for (int i = 0; i < 3; ++i) shmem_ctx_quiet(ctx[i]);
  shmem_ctx_quiet(SHMEM_CTX_DEFAULT);
  shmem_barrier_all();
  for (int i = 0; i < 3; ++i) CHECK_EQ(world_target[i], left * 10 + i);
  if (me == 0) CHECK_EQ(world_target[3], npes);
  for (int i = 0; i < 3; ++i) shmem_ctx_destroy(ctx[i]);
  shmem_ctx_destroy(SHMEM_CTX_DEFAULT); /* left alone */
  shmem_ctx_destroy(SHMEM_CTX_INVALID);
  shmem_barrier_all();
}

/* Every 2-D split of the world and of the even PEs' team at xrange 1, 2 and 3 (past the team's
 * size too), on every PE: members translate each row and column member back to the parent and
 * the world; odd PEs, whose parent is SHMEM_TEAM_INVALID, get two invalid teams and 0. Then
 * shmem_sync in its team form (C11: by the number of arguments). */
static void grids_of(shmem_team_t parent) {
  int pme = shmem_team_my_pe(parent), pn = shmem_team_n_pes(parent);
  for (int xr = 1; xr <= 3; ++xr) {
    shmem_team_t x = SHMEM_TEAM_INVALID, y = SHMEM_TEAM_INVALID;
    CHECK_EQ(shmem_team_split_2d(parent, xr, NULL, 0, &x, NULL, 0, &y), 0);
    if (parent == SHMEM_TEAM_INVALID) {
      CHECK(x == SHMEM_TEAM_INVALID && y == SHMEM_TEAM_INVALID);
      continue;
    }
    int cols = xr < pn ? xr : pn;
    int mx = shmem_team_my_pe(x), my = shmem_team_my_pe(y);
    CHECK_EQ(mx, pme % cols);
    CHECK_EQ(my, pme / cols);
    for (int i = 0; i < shmem_team_n_pes(x); ++i) {
      CHECK_EQ(shmem_team_translate_pe(x, i, parent), my * cols + i);
      CHECK_EQ(shmem_team_translate_pe(x, i, SHMEM_TEAM_WORLD),
               shmem_team_translate_pe(parent, my * cols + i, SHMEM_TEAM_WORLD));
    }
    for (int i = 0; i < shmem_team_n_pes(y); ++i)
      CHECK_EQ(shmem_team_translate_pe(y, i, parent), i * cols + mx);
    CHECK_EQ(shmem_sync(x), 0);
    CHECK_EQ(shmem_sync(y), 0);
    shmem_team_destroy(x);
    shmem_team_destroy(y);
  }
}

static void grids(void) {
  grids_of(SHMEM_TEAM_WORLD);
  shmem_team_t even = SHMEM_TEAM_INVALID;
  CHECK_EQ(shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 2, (npes - 1) / 2 + 1, NULL, 0, &even), 0);
  CHECK((even != SHMEM_TEAM_INVALID) == (me % 2 == 0));
  grids_of(even);
  shmem_team_destroy(even);
  CHECK_EQ(shmem_sync(SHMEM_TEAM_WORLD), 0);
}

int main(void) {
  shmem_init();
  me = shmem_my_pe();
  npes = shmem_n_pes();
  predefined();
  evens();
  grid();
  grids();
  world_contexts();
  if (me == 0) printf("team_ctx: %d PEs OK\n", npes);
  shmem_finalize();
  return 0;
}
