// OpenSHMEM teams and contexts over gshmem's teams. A team handle is a gshmem team slot plus one;
// a context is a small object naming its team (every context shares the PE's one channel).
#include <array>
#include <new>
#include <string>

#include "host/shmem/common.hpp"

using gshmem::compat::ctx;
using gshmem::compat::handle_of;
using gshmem::compat::team_of;

extern "C" {
// The default context: the world team, no options.
struct gshmem_compat_ctx gshmem_compat_ctx_default = {GSHMEM_TEAM_WORLD, 0};
}

namespace {

// What shmem_team_get_config reports: the num_contexts each team was created with.
std::array<int, GSHMEM_MAX_TEAMS> g_num_contexts{};

bool member(shmem_team_t team) {
  return gshmem_team_my_pe(team_of(team)) >= 0;
}

void remember_config(gshmem_team_t team, const shmem_team_config_t* config, long mask) {
  if (team < 0 || team >= GSHMEM_MAX_TEAMS) return;
  g_num_contexts[size_t(team)] =
      (config && (mask & SHMEM_TEAM_NUM_CONTEXTS)) ? config->num_contexts : 0;
}

int make_ctx(gshmem_team_t team, long options, shmem_ctx_t* out) {
  *out = new (std::nothrow) gshmem_compat_ctx{team, options};
  return *out ? 0 : GSHMEM_ERROR_OUT_OF_MEMORY;
}

}  // namespace

namespace gshmem::compat {

int ctx_pe_slow(shmem_ctx_t c, int pe, const char* call) {
  if (!c) fail(call, "ctx", "ctx is SHMEM_CTX_INVALID");
  const DeviceContext& d = ctx();
  const TeamInfo* t =
      d.teams && c->team >= 0 && c->team < GSHMEM_MAX_TEAMS ? &d.teams[c->team] : nullptr;
  if (!t || t->size <= 0 || t->my_index < 0) {
    fail(call, "ctx",
         d.n_pes ? "the context's team (slot " + std::to_string(c->team) + ") was destroyed"
                 : std::string("called outside shmem_init..shmem_finalize"));
  }
  if (pe < 0 || pe >= t->size) {
    fail(call, "pe",
         "pe=" + std::to_string(pe) + " is out of range for the context's team (valid PEs are 0.." +
             std::to_string(t->size - 1) + ")");
  }
  return t->world_pe(pe);
}

}  // namespace gshmem::compat

extern "C" {

int shmem_team_my_pe(shmem_team_t team) {
  return gshmem_team_my_pe(team_of(team));
}
int shmem_team_n_pes(shmem_team_t team) {
  return gshmem_team_n_pes(team_of(team));
}

int shmem_team_get_config(shmem_team_t team, long config_mask, shmem_team_config_t* config) {
  if (!member(team)) return -1;
  if (config_mask & SHMEM_TEAM_NUM_CONTEXTS) {
    if (!config) return -1;
    config->num_contexts = g_num_contexts[size_t(team_of(team))];
  }
  return 0;
}

int shmem_team_translate_pe(shmem_team_t src_team, int src_pe, shmem_team_t dest_team) {
  return gshmem_team_translate_pe(team_of(src_team), src_pe, team_of(dest_team));
}

// An invalid parent makes no team and involves no other PE (the spec's rule), so it returns
// before the collective part.
int shmem_team_split_strided(shmem_team_t parent_team, int start, int stride, int size,
                             const shmem_team_config_t* config, long config_mask,
                             shmem_team_t* new_team) {
  if (!new_team) return -1;
  *new_team = SHMEM_TEAM_INVALID;
  // A PE outside the parent (one that got SHMEM_TEAM_INVALID from an earlier split) takes part
  // by getting no team: the specification's "no new team is created", not an error, so that
  // every PE may make the same calls.
  if (parent_team == SHMEM_TEAM_INVALID) return 0;
  gshmem_team_t out = GSHMEM_TEAM_INVALID;
  int rc = gshmem_team_split_strided(team_of(parent_team), start, stride, size, nullptr, 0, &out);
  if (out != GSHMEM_TEAM_INVALID) {
    remember_config(out, config, config_mask);
    *new_team = handle_of(out);
  }
  return rc;
}

int shmem_team_split_2d(shmem_team_t parent_team, int xrange,
                        const shmem_team_config_t* xaxis_config, long xaxis_mask,
                        shmem_team_t* xaxis_team, const shmem_team_config_t* yaxis_config,
                        long yaxis_mask, shmem_team_t* yaxis_team) {
  if (!xaxis_team || !yaxis_team) return -1;
  *xaxis_team = *yaxis_team = SHMEM_TEAM_INVALID;
  if (parent_team == SHMEM_TEAM_INVALID) return 0;  // as in split_strided
  gshmem_team_t x = GSHMEM_TEAM_INVALID, y = GSHMEM_TEAM_INVALID;
  int rc = gshmem_team_split_2d(team_of(parent_team), xrange, nullptr, 0, &x, nullptr, 0, &y);
  if (x != GSHMEM_TEAM_INVALID) {
    remember_config(x, xaxis_config, xaxis_mask);
    *xaxis_team = handle_of(x);
  }
  if (y != GSHMEM_TEAM_INVALID) {
    remember_config(y, yaxis_config, yaxis_mask);
    *yaxis_team = handle_of(y);
  }
  return rc;
}

void shmem_team_destroy(shmem_team_t team) {
  if (team == SHMEM_TEAM_INVALID) return;
  gshmem_team_destroy(team_of(team));
}

int shmem_team_sync(shmem_team_t team) {
  return gshmem_team_sync(team_of(team));
}

int shmem_ctx_create(long options, shmem_ctx_t* ctx_out) {
  if (!ctx_out) return -1;
  *ctx_out = SHMEM_CTX_INVALID;
  if (!ctx().n_pes) return GSHMEM_ERROR_NOT_INITIALIZED;
  return make_ctx(GSHMEM_TEAM_WORLD, options, ctx_out);
}

int shmem_team_create_ctx(shmem_team_t team, long options, shmem_ctx_t* ctx_out) {
  if (!ctx_out) return -1;
  *ctx_out = SHMEM_CTX_INVALID;
  if (!member(team)) return -1;
  return make_ctx(team_of(team), options, ctx_out);
}

void shmem_ctx_destroy(shmem_ctx_t c) {
  if (!c || c == SHMEM_CTX_DEFAULT) return;
  gshmem::hostops::quiet(ctx());
  delete c;
}

int shmem_ctx_get_team(shmem_ctx_t c, shmem_team_t* team) {
  if (!team) return -1;
  *team = c ? handle_of(c->team) : SHMEM_TEAM_INVALID;
  return c ? 0 : -1;
}

}  // extern "C"
