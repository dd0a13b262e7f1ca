// C API: setup, query, the symmetric heap, teams, global exit.
#include <stdlib.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <iterator>
#include <map>
#include <memory>
#include <mutex>

#include "gshmem/gshmem.h"
#include "host/base/error.hpp"
#include "host/base/fork.hpp"
#include "host/base/log.hpp"
#include "host/bootstrap/bootstrap.hpp"
#include "host/runtime/process.hpp"
#include "host/runtime/runtime.hpp"

using gshmem::Runtime;
namespace detail = gshmem::detail;

namespace {

std::unique_ptr<Runtime> g_owner;
std::once_flag g_exit_hook;
// gshmemx_buffer_register's ranges: start -> end.
std::mutex g_buffers_mutex;
std::map<uintptr_t, uintptr_t> g_buffers;

// A program that returns from main without gshmem_finalize gets it implicitly when it exits with
// status 0 (OpenSHMEM programs written for start_pes never call it). A non-zero exit is a
// failure: no collective, gshmemrun ends the job and reports the status. A forked child of the
// PE has no runtime of its own (leave_to_parent), so its exit finalizes nothing.
void exit_hook(int status, void*) {
  if (status == 0 && g_owner) gshmem_finalize();
}

// In a child forked from the PE the runtime is the parent's: never destroyed here (its destructor
// would stop a proxy thread the child does not have, close fabric endpoints and sockets the parent
// still uses, tell the launcher this PE left). Leaked: the child exits or execs soon.
void leave_to_parent() {
  (void)g_owner.release();
}

Runtime* rt_or_report(const char* call) {
  Runtime* rt = detail::default_runtime();
  if (!rt) gshmem::log::error("%s: %s", call, detail::not_running().c_str());
  return rt;
}

int start(const gshmemx_init_attr_t* attr, const char* call) {
  if (gshmem::forked::in_child()) {
    // The launcher's environment is inherited too: a new runtime would join the job as the
    // parent's PE.
    gshmem::log::error("%s: %s", call, gshmem::forked::reason().c_str());
    return GSHMEM_ERROR_NOT_INITIALIZED;
  }
  if (g_owner) return GSHMEM_SUCCESS;
  try {
    g_owner = std::make_unique<Runtime>(attr);
  } catch (const gshmem::Error& e) {
    gshmem::log::error("%s: %s", call, e.what());
    return e.status();
  }
  std::call_once(g_exit_hook, [] {
    on_exit(exit_hook, nullptr);
    gshmem::forked::on_child(leave_to_parent);
  });
  detail::set_default_runtime(g_owner.get());
  return GSHMEM_SUCCESS;
}

}  // namespace

extern "C" {

void gshmem_init(void) {
  int rc = start(nullptr, "gshmem_init");
  if (rc != GSHMEM_SUCCESS) {
    std::fflush(nullptr);
    _exit(1);
  }
}

int gshmemx_init_attr(unsigned int flags, gshmemx_init_attr_t* attr) {
  const char* call = "gshmemx_init_attr";
  const unsigned int known = GSHMEMX_INIT_WITH_UNIQUEID | GSHMEMX_INIT_WITH_MPI_COMM;
  if (flags & ~known) {
    gshmem::log::error("%s: flags=0x%x has bits gshmem does not know (0x%x)", call, flags,
                       flags & ~known);
    return GSHMEM_ERROR_INVALID_ARGUMENT;
  }
  if ((flags & GSHMEMX_INIT_WITH_UNIQUEID) && (flags & GSHMEMX_INIT_WITH_MPI_COMM)) {
    gshmem::log::error(
        "%s: GSHMEMX_INIT_WITH_UNIQUEID and GSHMEMX_INIT_WITH_MPI_COMM exclude "
        "each other",
        call);
    return GSHMEM_ERROR_INVALID_ARGUMENT;
  }
  if ((flags & GSHMEMX_INIT_WITH_UNIQUEID) && (!attr || !attr->has_uid_args)) {
    gshmem::log::error(
        "%s: GSHMEMX_INIT_WITH_UNIQUEID needs attr set by "
        "gshmemx_set_attr_uniqueid_args",
        call);
    return GSHMEM_ERROR_INVALID_ARGUMENT;
  }
  if ((flags & GSHMEMX_INIT_WITH_MPI_COMM) && (!attr || !attr->mpi_comm)) {
    gshmem::log::error(
        "%s: GSHMEMX_INIT_WITH_MPI_COMM needs attr->mpi_comm = &comm (a pointer "
        "to the MPI_Comm)",
        call);
    return GSHMEM_ERROR_INVALID_ARGUMENT;
  }
  if (!flags) return start(nullptr, call);
  // Only what the flags name reaches the bootstrap.
  gshmemx_init_attr_t used{};
  if (flags & GSHMEMX_INIT_WITH_UNIQUEID) {
    used.uid_args = attr->uid_args;
    used.has_uid_args = 1;
  }
  if (flags & GSHMEMX_INIT_WITH_MPI_COMM) used.mpi_comm = attr->mpi_comm;
  return start(&used, call);
}

void gshmem_finalize(void) {
  if (gshmem::forked::in_child()) {
    gshmem::raise(gshmem::Error(GSHMEM_ERROR_NOT_INITIALIZED, "gshmem_finalize", "",
                                gshmem::forked::reason()));
  }
  if (!g_owner) return;
  g_owner->finalize();
  detail::set_default_runtime(nullptr);
  g_owner.reset();
  gshmemx_buffer_unregister_all();  // as NVSHMEM: registrations end with the library
}

int gshmem_initialized(void) {
  return g_owner ? 1 : 0;
}

int gshmem_my_pe(void) {
  Runtime* rt = rt_or_report("gshmem_my_pe");
  return rt ? rt->my_pe() : -1;
}

int gshmem_n_pes(void) {
  Runtime* rt = rt_or_report("gshmem_n_pes");
  return rt ? rt->n_pes() : -1;
}

void* gshmem_ptr(const void* dest, int pe) {
  const gshmem::DeviceContext& c = detail::g_default_ctx;
  if (!rt_or_report("gshmem_ptr") || pe < 0 || pe >= c.n_pes) return nullptr;
  uint64_t off;
  auto a = reinterpret_cast<uintptr_t>(dest);
  if (detail::in_segment(c.heap, a, 1, &off) && c.heap.peer_base[pe]) {
    return c.heap.peer_base[pe] + off;
  }
  if (c.statics.size && detail::in_segment(c.statics, a, 1, &off) && c.statics.peer_base[pe]) {
    return c.statics.peer_base[pe] + off;
  }
  return nullptr;
}

void gshmem_info_get_version(int* major, int* minor) {
  if (major) *major = GSHMEM_MAJOR_VERSION;
  if (minor) *minor = GSHMEM_MINOR_VERSION;
}

void gshmem_info_get_name(char* name) {
  if (name)
    std::snprintf(name, GSHMEM_MAX_NAME_LEN, "%s %d.%d.%d", GSHMEM_VENDOR_STRING,
                  GSHMEM_MAJOR_VERSION, GSHMEM_MINOR_VERSION, GSHMEM_PATCH_VERSION);
}

void gshmem_global_exit(int status) {
  std::fflush(nullptr);
  Runtime* rt = detail::default_runtime();
  if (!rt) _exit(status);
  rt->bootstrap().abort(status, "PE " + std::to_string(rt->my_pe()) +
                                    " called gshmem_global_exit(" + std::to_string(status) + ")");
}

int gshmemx_get_uniqueid(gshmemx_uniqueid_t* uid) {
  if (!uid) {
    gshmem::log::error("gshmemx_get_uniqueid: uid is NULL");
    return GSHMEM_ERROR_INVALID_ARGUMENT;
  }
  return gshmem::make_uniqueid(uid);
}

int gshmemx_set_attr_uniqueid_args(int rank, int nranks, const gshmemx_uniqueid_t* uid,
                                   gshmemx_init_attr_t* attr) {
  if (!uid || !attr || nranks <= 0 || rank < 0 || rank >= nranks) {
    gshmem::log::error(
        "gshmemx_set_attr_uniqueid_args: bad argument (rank %d of %d, uid %p, "
        "attr %p)",
        rank, nranks, static_cast<const void*>(uid), static_cast<void*>(attr));
    return GSHMEM_ERROR_INVALID_ARGUMENT;
  }
  attr->uid_args.rank = rank;
  attr->uid_args.nranks = nranks;
  attr->uid_args.uid = *uid;
  attr->has_uid_args = 1;
  return GSHMEM_SUCCESS;
}

void gshmemx_set_error_mode(int mode) {
  gshmem::set_error_mode(mode);
}

const char* gshmemx_get_last_error(void) {
  return gshmem::log::last_error();
}

// ---- Symmetric heap ---------------------------------------------------------------------------

static void* heap_call(gshmem::SymmetricHeap::Op op, uint64_t bytes, uint64_t align, void* old,
                       const char* call) {
  Runtime* rt = rt_or_report(call);
  if (!rt) return nullptr;
  try {
    return rt->heap().allocate(op, bytes, align, old, call);
  } catch (const gshmem::Error& e) {
    rt->fail(e);
  }
}

void* gshmem_malloc(size_t size) {
  return heap_call(gshmem::SymmetricHeap::Op::Malloc, size, 64, nullptr, "gshmem_malloc");
}

void* gshmem_calloc(size_t count, size_t size) {
  uint64_t bytes = 0;
  if (__builtin_mul_overflow(uint64_t(count), uint64_t(size), &bytes)) {
    bytes = gshmem::SymmetricHeap::kOverflow;
  }
  return heap_call(gshmem::SymmetricHeap::Op::Calloc, bytes, 64, nullptr, "gshmem_calloc");
}

void* gshmem_align(size_t alignment, size_t size) {
  return heap_call(gshmem::SymmetricHeap::Op::Align, size, alignment, nullptr, "gshmem_align");
}

void* gshmem_realloc(void* ptr, size_t size) {
  return heap_call(gshmem::SymmetricHeap::Op::Realloc, size, 64, ptr, "gshmem_realloc");
}

void gshmem_free(void* ptr) {
  if (!ptr) return;
  heap_call(gshmem::SymmetricHeap::Op::Free, 0, 64, ptr, "gshmem_free");
}

// ---- Teams ------------------------------------------------------------------------------------

int gshmem_team_my_pe(gshmem_team_t team) {
  Runtime* rt = detail::default_runtime();
  const gshmem::TeamInfo* t = rt ? rt->teams().find(team) : nullptr;
  return t ? t->my_index : -1;
}

int gshmem_team_n_pes(gshmem_team_t team) {
  Runtime* rt = detail::default_runtime();
  const gshmem::TeamInfo* t = rt ? rt->teams().find(team) : nullptr;
  return t ? t->size : -1;
}

int gshmem_team_get_config(gshmem_team_t team, long config_mask, gshmem_team_config_t* config) {
  Runtime* rt = rt_or_report("gshmem_team_get_config");
  if (!rt || !rt->teams().find(team) || !config) return -1;
  if (config_mask & GSHMEM_TEAM_NUM_CONTEXTS) config->num_contexts = 0;
  return 0;
}

int gshmem_team_split_strided(gshmem_team_t parent, int start, int stride, int size,
                              const gshmem_team_config_t*, long, gshmem_team_t* new_team) {
  Runtime* rt = rt_or_report("gshmem_team_split_strided");
  if (!new_team) return -1;
  *new_team = GSHMEM_TEAM_INVALID;
  return rt ? rt->teams().split_strided(parent, start, stride, size, new_team) : -1;
}

int gshmem_team_split_2d(gshmem_team_t parent, int xrange, const gshmem_team_config_t*, long,
                         gshmem_team_t* xaxis_team, const gshmem_team_config_t*, long,
                         gshmem_team_t* yaxis_team) {
  Runtime* rt = rt_or_report("gshmem_team_split_2d");
  if (!xaxis_team || !yaxis_team) return -1;
  *xaxis_team = *yaxis_team = GSHMEM_TEAM_INVALID;
  return rt ? rt->teams().split_2d(parent, xrange, xaxis_team, yaxis_team) : -1;
}

int gshmem_team_translate_pe(gshmem_team_t src_team, int src_pe, gshmem_team_t dest_team) {
  Runtime* rt = detail::default_runtime();
  return rt ? rt->teams().translate(src_team, src_pe, dest_team) : -1;
}

void gshmem_team_destroy(gshmem_team_t team) {
  if (Runtime* rt = rt_or_report("gshmem_team_destroy")) rt->teams().destroy(team);
}

int gshmemx_buffer_register(void* addr, size_t length) {
  const char* why = !addr ? "addr is NULL" : length == 0 ? "length is 0" : nullptr;
  const auto lo = reinterpret_cast<uintptr_t>(addr);
  if (!why && lo + length < lo) why = "the range runs past the end of the address space";
  std::lock_guard<std::mutex> lock(g_buffers_mutex);
  if (!why) {
    auto next = g_buffers.lower_bound(lo);  // the first range starting at or after addr
    if ((next != g_buffers.end() && next->first < lo + length) ||
        (next != g_buffers.begin() && std::prev(next)->second > lo)) {
      why = "the range overlaps a registered one";
    }
  }
  if (why) {
    gshmem::log::error("gshmemx_buffer_register(addr=%p, length=%zu): %s", addr, length, why);
    return GSHMEM_ERROR_INVALID_ARGUMENT;
  }
  g_buffers.emplace(lo, lo + length);
  return GSHMEM_SUCCESS;
}

int gshmemx_buffer_unregister(void* addr) {
  std::lock_guard<std::mutex> lock(g_buffers_mutex);
  return g_buffers.erase(reinterpret_cast<uintptr_t>(addr)) ? GSHMEM_SUCCESS : 1;
}

void gshmemx_buffer_unregister_all(void) {
  std::lock_guard<std::mutex> lock(g_buffers_mutex);
  g_buffers.clear();
}

}  // extern "C"
