// OpenSHMEM setup, query, accessibility and the symmetric heap.
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <string>

#include "host/base/env.hpp"
#include "host/base/log.hpp"
#include "host/runtime/process.hpp"
#include "host/runtime/runtime.hpp"
#include "host/shmem/common.hpp"

using gshmem::compat::ctx;
namespace detail = gshmem::detail;

namespace {

// gshmem's data path is safe for concurrent use by any number of threads at every level (the
// channel is a lock-free multi-producer ring; mapped peers are plain loads, stores and CPU
// atomics), so every requested level is granted as asked. shmem_init does not ask: it gets the
// most the library provides.
std::atomic<int> g_thread_level{SHMEM_THREAD_MULTIPLE};

// OpenSHMEM programs load and store their symmetric objects from CPU code, which a heap in GPU
// memory would turn into a crash. Refused by name: GSHMEM_HEAP=device before anything starts
// (auto means host memory for them: prefer_host_heap), and a GPU heap already made by an earlier
// gshmem_init (a program that links gshmem::device). false after printing why.
bool host_heap_possible(const char* call) {
  const std::string& want = gshmem::Env::get().str("GSHMEM_HEAP");
  const char* why = nullptr;
  if (ctx().flags & gshmem::kCtxGpuHeap) {
    why = "the symmetric heap is already in GPU memory (gshmem_init ran first)";
  } else if (!ctx().n_pes && want == "device") {
    why = "GSHMEM_HEAP=device puts the symmetric heap in GPU memory";
  }
  if (!why) return true;
  gshmem::log::error(
      "%s: %s, but OpenSHMEM programs load and store it from CPU code; set "
      "GSHMEM_HEAP=host (now %s)",
      call, why, want.c_str());
  return false;
}

bool pe_reachable(const gshmem::DeviceContext& c, int pe) {
  return pe >= 0 && pe < c.n_pes && (c.heap.peer_base[pe] || c.channel);
}

}  // namespace

namespace gshmem::compat {

void* heap_call(gshmem::SymmetricHeap::Op op, uint64_t bytes, uint64_t align, void* old,
                const char* call) {
  gshmem::Runtime* rt = detail::default_runtime();
  if (!rt) {
    gshmem::log::error("%s: %s", call, detail::not_running("shmem_init", "shmem_finalize").c_str());
    return nullptr;
  }
  gshmem::hostops::quiet(ctx());
  try {
    return rt->heap().allocate(op, bytes, align, old, call);
  } catch (const gshmem::Error& e) {
    rt->fail(e);
  }
}

}  // namespace gshmem::compat

using gshmem::compat::heap_call;

extern "C" {

void shmem_init(void) {
  gshmem::detail::prefer_host_heap();
  bool ok = host_heap_possible("shmem_init");
  if (ok) {
    gshmem_init();
    ok = host_heap_possible("shmem_init");
  }
  if (!ok) {
    std::fflush(nullptr);
    _exit(1);
  }
  g_thread_level.store(SHMEM_THREAD_MULTIPLE, std::memory_order_relaxed);
}

int shmem_init_thread(int requested, int* provided) {
  if (!host_heap_possible("shmem_init_thread")) return GSHMEM_ERROR_INVALID_ARGUMENT;
  gshmem::detail::prefer_host_heap();
  int rc = gshmemx_init_attr(GSHMEMX_INIT_DEFAULT, nullptr);
  if (rc != GSHMEM_SUCCESS) return rc;
  if (!host_heap_possible("shmem_init_thread")) return GSHMEM_ERROR_INVALID_ARGUMENT;
  int level = requested < SHMEM_THREAD_SINGLE || requested > SHMEM_THREAD_MULTIPLE
                  ? SHMEM_THREAD_MULTIPLE
                  : requested;
  g_thread_level.store(level, std::memory_order_relaxed);
  if (provided) *provided = level;
  return 0;
}

void shmem_query_thread(int* provided) {
  if (provided) *provided = g_thread_level.load(std::memory_order_relaxed);
}

void shmem_finalize(void) {
  gshmem_finalize();
}

int shmem_my_pe(void) {
  if (ctx().n_pes) return ctx().my_pe;
  gshmem::log::error("shmem_my_pe: %s",
                     detail::not_running("shmem_init", "shmem_finalize").c_str());
  return -1;
}
int shmem_n_pes(void) {
  if (ctx().n_pes) return ctx().n_pes;
  gshmem::log::error("shmem_n_pes: %s",
                     detail::not_running("shmem_init", "shmem_finalize").c_str());
  return -1;
}

void shmem_global_exit(int status) {
  gshmem_global_exit(status);
}

int shmem_pe_accessible(int pe) {
  return pe_reachable(ctx(), pe) ? 1 : 0;
}

int shmem_addr_accessible(const void* addr, int pe) {
  const gshmem::DeviceContext& c = ctx();
  if (!pe_reachable(c, pe)) return 0;
  uint64_t off;
  auto a = reinterpret_cast<uintptr_t>(addr);
  return detail::in_segment(c.heap, a, 1, &off) ||
                 (c.statics.size && detail::in_segment(c.statics, a, 1, &off))
             ? 1
             : 0;
}

void* shmem_ptr(const void* dest, int pe) {
  return gshmem_ptr(dest, pe);
}

void* shmem_team_ptr(shmem_team_t team, const void* dest, int pe) {
  int world = gshmem_team_translate_pe(gshmem::compat::team_of(team), pe, GSHMEM_TEAM_WORLD);
  return world < 0 ? nullptr : gshmem_ptr(dest, world);
}

void shmem_info_get_version(int* major, int* minor) {
  if (major) *major = SHMEM_MAJOR_VERSION;
  if (minor) *minor = SHMEM_MINOR_VERSION;
}

void shmem_info_get_name(char* name) {
  if (name) std::snprintf(name, SHMEM_MAX_NAME_LEN, "%s", SHMEM_VENDOR_STRING);
}

void shmem_pcontrol(const int level, ...) {
  (void)level;  // nothing to control: see the declaration
}

void* shmem_malloc(size_t size) {
  return heap_call(gshmem::SymmetricHeap::Op::Malloc, size, 64, nullptr, "shmem_malloc");
}

// Every block can take remote atomics and signals; the hints change nothing.
void* shmem_malloc_with_hints(size_t size, long) {
  return heap_call(gshmem::SymmetricHeap::Op::Malloc, size, 64, nullptr, "shmem_malloc_with_hints");
}

void* shmem_calloc(size_t count, size_t size) {
  uint64_t bytes = 0;
  if (__builtin_mul_overflow(uint64_t(count), uint64_t(size), &bytes)) {
    bytes = gshmem::SymmetricHeap::kOverflow;
  }
  return heap_call(gshmem::SymmetricHeap::Op::Calloc, bytes, 64, nullptr, "shmem_calloc");
}

void* shmem_align(size_t alignment, size_t size) {
  return heap_call(gshmem::SymmetricHeap::Op::Align, size, alignment, nullptr, "shmem_align");
}

void* shmem_realloc(void* ptr, size_t size) {
  return heap_call(gshmem::SymmetricHeap::Op::Realloc, size, 64, ptr, "shmem_realloc");
}

void shmem_free(void* ptr) {
  if (ptr) heap_call(gshmem::SymmetricHeap::Op::Free, 0, 64, ptr, "shmem_free");
}

}  // extern "C"
