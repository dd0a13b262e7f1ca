// Shared by the OpenSHMEM wrappers: the context and team handles, team-relative PE numbers of
// contexts, and error reports that name the shmem_ routine.
#pragma once

#include <cstdint>
#include <string>

// The library defines the C names; the C++ overloads of shmem/generic.h are for users.
#define GSHMEM_COMPAT_BUILDING 1
#include "gshmem/compat/shmem.h"
#include "gshmem/compat/shmemx.h"
#include "host/api/capi.hpp"
#include "host/base/log.hpp"
#include "host/heap/heap.hpp"

// What a shmem_ctx_t points to. Every context shares the PE's one channel; the team decides how
// the context numbers PEs.
struct gshmem_compat_ctx {
  gshmem_team_t team;
  long options;
};

namespace gshmem::compat {

using capi::ctx;

// Prints "call: why" naming `arg`, then ends the job (or throws, as gshmemx_set_error_mode says).
[[noreturn]] void fail(const char* call, const char* arg, const std::string& why);

// Team handles are gshmem team slots plus one, so that the null handle is SHMEM_TEAM_INVALID.
inline gshmem_team_t team_of(shmem_team_t t) {
  return gshmem_team_t(reinterpret_cast<uintptr_t>(t)) - 1;
}
inline shmem_team_t handle_of(gshmem_team_t t) {
  return reinterpret_cast<shmem_team_t>(uintptr_t(t + 1));
}

// The collective heap calls, reporting errors under the shmem_ routine's name. Each acts as the
// spec says, like shmem_barrier_all: this PE's operations complete (quiet) before the collective
// agreement, which no PE leaves before every PE has entered; so nothing any PE issued into a
// block can land after the block is freed or moved.
void* heap_call(SymmetricHeap::Op op, uint64_t bytes, uint64_t align, void* old, const char* call);

int ctx_pe_slow(shmem_ctx_t c, int pe, const char* call);

// The world PE that `pe` names on context c: itself on world contexts (the default one
// included), else translated through the context's team (checked).
inline int ctx_pe(shmem_ctx_t c, int pe, const char* call) {
  if (c && c->team == GSHMEM_TEAM_WORLD) [[likely]] {
    return pe;
  }
  return ctx_pe_slow(c, pe, call);
}

}  // namespace gshmem::compat

// The wrappers are generated twice, without and with a leading context: the plain form passes
// GSHMEM_COMPAT_NO_CTX and GSHMEM_COMPAT_WORLD_PE, the ctx_ form these two.
#define GSHMEM_COMPAT_CTX_PARAM() shmem_ctx_t sctx,
#define GSHMEM_COMPAT_WORLD_PE(call) pe
#define GSHMEM_COMPAT_CTX_PE(call) ::gshmem::compat::ctx_pe(sctx, pe, call)
// X(NAME, T, DEF) for the type lists: DEF(NAME, T, CTX, CTXP, PE) makes both forms of a family.
#define GSHMEM_COMPAT_DEF_BOTH(NAME, T, DEF)                   \
  DEF(NAME, T, , GSHMEM_COMPAT_NO_CTX, GSHMEM_COMPAT_WORLD_PE) \
  DEF(NAME, T, ctx_, GSHMEM_COMPAT_CTX_PARAM, GSHMEM_COMPAT_CTX_PE)
