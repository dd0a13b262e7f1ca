/* OpenSHMEM 1.5 teams and contexts.
 *
 * Teams: SHMEM_TEAM_WORLD, SHMEM_TEAM_SHARED (PEs whose memory is mapped here; shmem_ptr works
 * between them) and the ones split off; split and destroy are collective over the parent team.
 * Contexts: ordering domains. gshmem has one lock-free channel per PE that every context shares,
 * so any context may be used from any thread, and a context's quiet also completes the others'
 * operations. RMA and atomics on a context made from a team number PEs in that team.
 */
#ifndef GSHMEM_COMPAT_SHMEM_TEAM_H
#define GSHMEM_COMPAT_SHMEM_TEAM_H

#include "constants.h"

#ifdef __cplusplus
extern "C" {
#endif

/* -1 for SHMEM_TEAM_INVALID or a team the calling PE is not in. */
int shmem_team_my_pe(shmem_team_t team);
int shmem_team_n_pes(shmem_team_t team);
/* Returns 0 and fills the fields config_mask names, or non-zero for an invalid team. */
int shmem_team_get_config(shmem_team_t team, long config_mask, shmem_team_config_t* config);
/* src_pe of src_team numbered in dest_team, or -1. */
int shmem_team_translate_pe(shmem_team_t src_team, int src_pe, shmem_team_t dest_team);
/* Collective over parent_team. Returns 0; PEs left out get SHMEM_TEAM_INVALID. A PE whose
 * parent_team is SHMEM_TEAM_INVALID creates no team: it gets SHMEM_TEAM_INVALID and 0 (and so
 * for split_2d, both teams), so every PE may make the same calls. */
int shmem_team_split_strided(shmem_team_t parent_team, int start, int stride, int size,
                             const shmem_team_config_t* config, long config_mask,
                             shmem_team_t* new_team);
int shmem_team_split_2d(shmem_team_t parent_team, int xrange,
                        const shmem_team_config_t* xaxis_config, long xaxis_mask,
                        shmem_team_t* xaxis_team, const shmem_team_config_t* yaxis_config,
                        long yaxis_mask, shmem_team_t* yaxis_team);
/* Collective over the team. Destroying SHMEM_TEAM_INVALID does nothing. */
void shmem_team_destroy(shmem_team_t team);
/* Collective over the team: synchronise (no completion of outstanding operations). Returns 0. */
int shmem_team_sync(shmem_team_t team);

/* Returns 0, or non-zero (and SHMEM_CTX_INVALID in *ctx) when the team is invalid. */
int shmem_ctx_create(long options, shmem_ctx_t* ctx);
int shmem_team_create_ctx(shmem_team_t team, long options, shmem_ctx_t* ctx);
/* Quiets, then frees the context. SHMEM_CTX_DEFAULT and SHMEM_CTX_INVALID are left alone. */
void shmem_ctx_destroy(shmem_ctx_t ctx);
/* Returns 0, or non-zero (and SHMEM_TEAM_INVALID in *team) for SHMEM_CTX_INVALID. */
int shmem_ctx_get_team(shmem_ctx_t ctx, shmem_team_t* team);

#ifdef __cplusplus
}
#endif

#endif /* GSHMEM_COMPAT_SHMEM_TEAM_H */
