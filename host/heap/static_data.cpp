#include "host/heap/static_data.hpp"

#include <elf.h>
#include <link.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <vector>

#include "gshmem/gshmem.hpp"
#include "host/base/fork.hpp"
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

// The data segment while it is shared (set once, by share_static_data).
Range g_shared;

// In a child forked from the PE, the program's globals are the node's shared memory like a heap,
// but fork promises the child a copy: every global it writes (an interpreter's state, the
// destructors that run at its exit) would land in the parent. So the child gets private pages
// again: the shared ones are copied out, replaced and copied back. Only locals are used between
// the replacement and the copy back, in case this library's own globals are in that segment.
void privatize_in_child() {
  const uintptr_t begin = g_shared.begin;
  const size_t bytes = g_shared.end - g_shared.begin;
  const size_t page = size_t(sysconf(_SC_PAGESIZE));
  void* copy = ::mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  bool ok = copy != MAP_FAILED;
  if (ok) {
    copy_pages(static_cast<char*>(copy), reinterpret_cast<const char*>(begin), bytes, page);
    ShadowKeeper shadow(begin, bytes);
    void* at = ::mmap(reinterpret_cast<void*>(begin), bytes, PROT_READ | PROT_WRITE,
                      MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
    ok = at != MAP_FAILED;
    if (ok) {
      copy_pages(reinterpret_cast<char*>(begin), static_cast<const char*>(copy), bytes, page);
      shadow.restore();
    }
    ::munmap(copy, bytes);
  }
  if (!ok) {
    // Sharing the parent's globals would corrupt the parent: this child cannot go on.
    static const char msg[] =
        "gshmem: a process forked from a PE could not take a private copy of the program's "
        "globals (mmap failed); it ends here so that it does not write the PE's\n";
    ssize_t rc = ::write(STDERR_FILENO, msg, sizeof msg - 1);
    (void)rc;
    ::_exit(127);
  }
}

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
  g_shared = r;
  forked::on_child(privatize_in_child);
  GSHMEM_INFO(HEAP, "static data: %zu bytes at %p are symmetric", bytes, static_cast<void*>(data));
  return shared;
}

}  // namespace gshmem
