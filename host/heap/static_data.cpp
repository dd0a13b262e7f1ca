#include "host/heap/static_data.hpp"

#include <elf.h>
#include <link.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "gshmem/gshmem.hpp"
#include "host/base/log.hpp"

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

bool all_zero(const char* p, size_t n) {
  for (size_t i = 0; i < n; i += sizeof(uint64_t)) {
    uint64_t w;
    std::memcpy(&w, p + i, sizeof w);
    if (w) return false;
  }
  return true;
}

}  // namespace

HostSegment share_static_data() {
  Range r;
  dl_iterate_phdr(find_data, &r);
  size_t bytes = r.end - r.begin;
  if (!bytes) return HostSegment();
  HostSegment staging = HostSegment::create("gshmem-static", bytes);
  char* data = reinterpret_cast<char*>(r.begin);
  size_t page = size_t(sysconf(_SC_PAGESIZE));
  // Copy only pages with content: untouched .bss stays unallocated in the memfd too.
  for (size_t off = 0; off < bytes; off += page) {
    if (!all_zero(data + off, page)) std::memcpy(staging.base() + off, data + off, page);
  }
  int fd = ::dup(staging.fd());
  if (fd < 0) {
    throw Error(GSHMEM_ERROR_INTERNAL, "gshmem_init", "", std::string("dup: ") + strerror(errno));
  }
  HostSegment shared = HostSegment::attach_at(fd, data, bytes);
  GSHMEM_INFO(HEAP, "static data: %zu bytes at %p are symmetric", bytes, static_cast<void*>(data));
  return shared;
}

}  // namespace gshmem
