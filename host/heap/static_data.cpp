#include "host/heap/static_data.hpp"

#include <elf.h>
#include <link.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <vector>

#include "gshmem/gshmem.hpp"
#include "host/base/log.hpp"

#if defined(__SANITIZE_ADDRESS__)
#define GSHMEM_ASAN_ACTIVE 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define GSHMEM_ASAN_ACTIVE 1
#endif
#endif
#ifdef GSHMEM_ASAN_ACTIVE
#include <sanitizer/asan_interface.h>
#endif

namespace gshmem {

namespace {

struct Range {
  uintptr_t begin = 0, end = 0;
};

// The main program is the first object dl_iterate_phdr reports.
int find_data(dl_phdr_info* info, size_t, void* out) {
  Range* r = static_cast<Range*>(out);
  uintptr_t relro_end = 0;
  for (int i = 0; i < info->dlpi_phnum; ++i) {
    const auto& ph = info->dlpi_phdr[i];
    if (ph.p_type == PT_GNU_RELRO) relro_end = info->dlpi_addr + ph.p_vaddr + ph.p_memsz;
  }
  for (int i = 0; i < info->dlpi_phnum; ++i) {
    const auto& ph = info->dlpi_phdr[i];
    if (ph.p_type != PT_LOAD || !(ph.p_flags & PF_W)) continue;
    uintptr_t page = uintptr_t(sysconf(_SC_PAGESIZE));
    uintptr_t begin = std::max<uintptr_t>(info->dlpi_addr + ph.p_vaddr, relro_end);
    uintptr_t end = info->dlpi_addr + ph.p_vaddr + ph.p_memsz;
    r->begin = (begin + page - 1) / page * page;
    r->end = (end + page - 1) / page * page;
    if (r->end < r->begin) r->end = r->begin;
  }
  return 1;  // stop after the main program
}

// The copy reads the whole data segment, the redzones AddressSanitizer puts between globals
// included: it must not be instrumented, and it reads through volatile words so that the compiler
// does not turn the loop into a memcpy call (which ASan intercepts and checks). Only pages with
// content are written: untouched .bss stays unallocated in the memfd too.
__attribute__((no_sanitize("address"))) void copy_pages(char* to, const char* from, size_t bytes,
                                                        size_t page) {
  for (size_t off = 0; off < bytes; off += page) {
    auto* src = reinterpret_cast<const volatile uint64_t*>(from + off);
    size_t words = page / sizeof(uint64_t), first = 0;
    while (first < words && !src[first]) ++first;
    if (first == words) continue;
    auto* dst = reinterpret_cast<uint64_t*>(to + off);
    for (size_t w = first; w < words; ++w) dst[w] = src[w];
  }
}

// ASan's shadow of the data segment (which bytes are globals, which are redzones) must survive
// the remap: newer ASan run-times intercept mmap and mark every new mapping addressable, which
// would silently drop the redzones. The shadow is saved before and written back after.
class ShadowKeeper {
 public:
#ifdef GSHMEM_ASAN_ACTIVE
  ShadowKeeper(uintptr_t begin, size_t bytes) {
    size_t scale = 0, offset = 0;
    __asan_get_shadow_mapping(&scale, &offset);
    shadow_ = reinterpret_cast<char*>((begin >> scale) + offset);
    saved_.resize(bytes >> scale);
    move(saved_.data(), shadow_, saved_.size());
  }
  void restore() {
    move(shadow_, saved_.data(), saved_.size());
  }

 private:
  // The shadow's own shadow is ASan's protected gap: only uninstrumented code may touch it.
  __attribute__((no_sanitize("address"))) static void move(char* to, const char* from, size_t n) {
    for (size_t i = 0; i < n; ++i) static_cast<volatile char*>(to)[i] = from[i];
  }
  char* shadow_ = nullptr;
  std::vector<char> saved_;
#else
  ShadowKeeper(uintptr_t, size_t) {}
  void restore() {}
#endif
};

}  // namespace

HostSegment share_static_data() {
  Range r;
  dl_iterate_phdr(find_data, &r);
  size_t bytes = r.end - r.begin;
  if (!bytes) return HostSegment();
  HostSegment staging = HostSegment::create("gshmem-static", bytes);
  char* data = reinterpret_cast<char*>(r.begin);
  copy_pages(staging.base(), data, bytes, size_t(sysconf(_SC_PAGESIZE)));
  int fd = ::dup(staging.fd());
  if (fd < 0) {
    throw Error(GSHMEM_ERROR_INTERNAL, "gshmem_init", "", std::string("dup: ") + strerror(errno));
  }
  ShadowKeeper shadow(r.begin, bytes);
  HostSegment shared = HostSegment::attach_at(fd, data, bytes);
  shadow.restore();
  GSHMEM_INFO(HEAP, "static data: %zu bytes at %p are symmetric", bytes, static_cast<void*>(data));
  return shared;
}

}  // namespace gshmem
