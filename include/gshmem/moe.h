/* gshmem MoE dispatch and combine (C API): the dynamic, asymmetric all-to-all of expert
 * parallelism. C++ callers use gshmem::moe::AllToAll (gshmem/moe.hpp), which this wraps.
 *
 * Each member of the expert-parallel team holds up to max_tokens tokens and owns
 * num_experts / team size experts (member r owns experts r*L .. r*L+L-1). dispatch sends every
 * token to its top-k experts and hands each member its experts' tokens, packed per expert;
 * combine sends the experts' outputs back and gives each token the weighted sum of its top-k
 * outputs, accumulated in fp32.
 *
 * Who calls what: create and destroy are collective over the world (the symmetric heap is
 * world-wide): every PE calls them with the same sizes; `team` may be a different team on
 * different PEs (e.g. the rows of a 2-D split) as long as all have the same size. Every other call
 * is collective over the team, made by one thread per PE, in the order dispatch_send,
 * dispatch_recv, combine_send, combine_recv (dispatch = the first two, combine = the last two);
 * back-to-back iterations need no barrier. A call out of that order returns
 * GSHMEM_ERROR_INVALID_ARGUMENT without communicating.
 *
 * `stream` is a cudaStream_t (as void*). On CPU PEs (a host heap) pass NULL: the calls run on
 * the calling thread and return when done, as described below. On a GPU heap each call enqueues
 * its kernels on `stream` and returns: the token count is read on the device when the dispatch
 * runs (num_tokens may point to device memory that an earlier kernel on the stream writes),
 * nothing waits on the host between dispatch and combine, and the whole sequence (dispatch,
 * expert kernels, combine) may be captured in a CUDA graph and replayed: each replay is a new
 * call. "Returns once ..." below then means "completes, in stream order, once ...": inputs may
 * be reused by work enqueued after the call; the batch's counts, x and scales are device memory
 * that kernels after dispatch_recv read. Every pointer argument must be memory the GPU reaches
 * (device, managed or pinned mapped host memory). stream NULL on a GPU heap: the legacy default
 * stream, and the call returns once its kernels are done (and reports failures itself).
 *
 * Errors: every call returns GSHMEM_SUCCESS or a gshmem_status after printing a message naming
 * the call and the argument. Bad input in a dispatch (an expert index out of range, a token count
 * above max_tokens, an expert repeated within a token) is reported on every member of the team, not
 * only where it was made, so no member is left waiting; the handle stays usable.
 * GSHMEM_ERROR_CAPACITY: the call would have overflowed a receive buffer sized by capacity_factor;
 * every member reports it (with the same details, see gshmem_moe_last_overflow), no byte of token
 * data was sent, and the handle stays usable; create a new one with at least min_capacity_factor to
 * retry the same call.
 *
 * On a GPU heap with a stream, a dispatch's bad token count or expert index and an overflow are
 * found on the device: every member's kernels find the same failure, write nothing out of bounds,
 * and the call's remaining kernels (dispatch_recv, combine_send, combine_recv) do nothing (out is
 * not written). The host learns of it at gshmem_moe_sync, which returns the status (and sets
 * gshmem_moe_last_overflow) the CPU path returns, naming gshmem_moe_dispatch_send. The handle
 * stays usable. Host-side checks (NULL where a pointer is needed, memory the GPU cannot reach,
 * calls out of order) are reported by the call itself.
 */
#ifndef GSHMEM_MOE_H
#define GSHMEM_MOE_H

#include <stddef.h>
#include <stdint.h>

#include "gshmem/types.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Element types of the payloads. BYTES is raw bytes (fp8 e4m3, int8, ...): dispatch only,
 * usually with per-block fp32 scales. */
typedef enum {
  GSHMEM_MOE_FLOAT32 = 0,
  GSHMEM_MOE_BFLOAT16 = 1,
  GSHMEM_MOE_FLOAT16 = 2,
  GSHMEM_MOE_BYTES = 3
} gshmem_moe_dtype_t;

/* Values per fp32 scale when scale_block is GSHMEM_MOE_SCALE_BLOCK_AUTO and the dispatch type
 * is BYTES (the DeepSeek-V3 fp8 recipe). */
#define GSHMEM_MOE_DEFAULT_SCALE_BLOCK 128
#define GSHMEM_MOE_SCALE_BLOCK_AUTO (-1)

typedef struct {
  int max_tokens;        /* tokens a member (a DP group, see dp_size) holds at most */
  int num_experts;       /* a multiple of the team size */
  int experts_per_token; /* top-k: 1 .. num_experts */
  int hidden;            /* values per token */
  gshmem_moe_dtype_t dispatch_type;
  gshmem_moe_dtype_t combine_type; /* expert outputs and combined tokens; not BYTES */
  /* Values per fp32 scale sent with each token: 0 none; AUTO: 128 for BYTES, none otherwise.
   * A token carries ceil(hidden / scale_block) scales. */
  int scale_block;
  gshmem_team_t team; /* the expert-parallel team */
  /* Members i*dp_size .. i*dp_size + dp_size-1 of the team form a data-parallel group that holds
   * the same tokens (same count, values and indices on each). Member q of a group sends the
   * tokens t with t % dp_size == q; every member gets the combined result of every token. */
  int dp_size;
  /* 0: receive buffers for the worst case (every token to one expert), no overflow possible.
   * > 0: rows per local expert = ceil(factor x the average load), and landing rows per network
   * peer likewise; a call that would not fit returns GSHMEM_ERROR_CAPACITY. */
  double capacity_factor;
} gshmem_moe_config_t;

/* What dispatch delivers: per local expert, its token count and its tokens packed from row 0.
 * The memory belongs to the handle; it stays valid until this PE's next combine_send (peers
 * write the next call's tokens into it only after that). Rows of a local expert are ordered by
 * sending member (team index), then token index, then top-k slot. */
typedef struct {
  int num_local_experts;
  int expert_capacity;   /* rows per local expert in x and scales */
  const int32_t* counts; /* [num_local_experts] rows received per local expert */
  void* x;               /* [num_local_experts][expert_capacity][hidden] dispatch_type */
  float* scales;         /* [num_local_experts][expert_capacity][scales_per_token], or NULL */
  int scales_per_token;
  size_t token_bytes; /* bytes of one row of x */
} gshmem_moe_expert_batch_t;

/* Sizes chosen at creation, and what they cost. */
typedef struct {
  int num_local_experts;
  int expert_capacity;    /* rows per local expert */
  int landing_capacity;   /* rows per network source (0: the team is on one node) */
  size_t symmetric_bytes; /* this PE's share of the symmetric heap */
  size_t private_bytes;   /* this PE's private routing tables */
} gshmem_moe_info_t;

typedef enum {
  GSHMEM_MOE_OVERFLOW_NONE = 0,
  GSHMEM_MOE_OVERFLOW_EXPERT = 1, /* an expert's rows exceed expert_capacity */
  GSHMEM_MOE_OVERFLOW_LANDING = 2 /* a network pair's rows exceed landing_capacity */
} gshmem_moe_overflow_kind_t;

/* The first overflow a dispatch found (the same on every member). */
typedef struct {
  gshmem_moe_overflow_kind_t kind;
  int expert;   /* EXPERT: the global expert; LANDING: -1 */
  int dest;     /* team index of the member that would receive */
  int source;   /* team index of the member whose rows cross the capacity */
  int count;    /* rows that would have landed (the expert's total / the pair's rows) */
  int capacity; /* rows there are */
  double min_capacity_factor; /* the smallest capacity_factor this call fits in */
} gshmem_moe_overflow_t;

typedef struct gshmem_moe_a2a* gshmem_moe_handle_t;

/* Defaults: bf16 both ways, scale_block AUTO, team WORLD, dp_size 1, worst-case buffers; the
 * sizes (max_tokens, num_experts, experts_per_token, hidden) are 0 and must be set. */
void gshmem_moe_config_init(gshmem_moe_config_t* config);

/* Collective over the world (see above). Allocates the symmetric buffers. */
int gshmem_moe_create(const gshmem_moe_config_t* config, gshmem_moe_handle_t* handle);
/* Collective over the world. NULL does nothing. */
int gshmem_moe_destroy(gshmem_moe_handle_t handle);
int gshmem_moe_get_info(gshmem_moe_handle_t handle, gshmem_moe_info_t* info);

/* x: [*num_tokens][hidden] dispatch_type; scales: [*num_tokens][scales_per_token] (NULL when
 * the config has none); indices: [*num_tokens][experts_per_token] global expert ids, distinct
 * within a token, or -1 for an unused slot. num_tokens is read when the call starts (it may live in
 * device memory on GPU heaps). Returns once this PE's tokens are on their way (mapped peers:
 * stored; network peers: posted); the inputs may be reused then. */
int gshmem_moe_dispatch_send(gshmem_moe_handle_t handle, const void* x, const float* scales,
                             const int32_t* indices, const int32_t* num_tokens, void* stream);
/* Returns once every token for this PE's experts is in place. */
int gshmem_moe_dispatch_recv(gshmem_moe_handle_t handle, gshmem_moe_expert_batch_t* batch,
                             void* stream);
int gshmem_moe_dispatch(gshmem_moe_handle_t handle, gshmem_moe_expert_batch_t* batch, const void* x,
                        const float* scales, const int32_t* indices, const int32_t* num_tokens,
                        void* stream);

/* expert_y: [num_local_experts][expert_capacity][hidden] combine_type, the outputs of the rows
 * dispatch delivered (only the first counts[e] rows of expert e are read; it may be the batch's
 * own x when the types match). Returns once expert_y may be reused. */
int gshmem_moe_combine_send(gshmem_moe_handle_t handle, const void* expert_y, void* stream);
/* out: [num_tokens][hidden] combine_type (num_tokens of the matching dispatch; with dp_size > 1
 * every token of the group); weights: [num_tokens][experts_per_token] fp32 (slots whose index
 * was -1 are ignored). out[t] = sum_k weights[t][k] * y(t, k), in fp32. */
int gshmem_moe_combine_recv(gshmem_moe_handle_t handle, void* out, const float* weights,
                            void* stream);
int gshmem_moe_combine(gshmem_moe_handle_t handle, void* out, const void* expert_y,
                       const float* weights, void* stream);

/* Waits for the work enqueued on `stream` (a cudaStream_t; NULL: the legacy default stream), then
 * returns the failure of a dispatch of this handle that ran on the GPU and was not reported yet
 * (GSHMEM_SUCCESS if none). Local: not collective. On CPU PEs it returns GSHMEM_SUCCESS at once
 * (their calls report failures themselves). Not during stream capture. */
int gshmem_moe_sync(gshmem_moe_handle_t handle, void* stream);

/* The overflow behind the last GSHMEM_ERROR_CAPACITY of this handle (kind NONE if none). */
int gshmem_moe_last_overflow(gshmem_moe_handle_t handle, gshmem_moe_overflow_t* overflow);

size_t gshmem_moe_dtype_size(gshmem_moe_dtype_t type);

#ifdef __cplusplus
}
#endif

#endif /* GSHMEM_MOE_H */
