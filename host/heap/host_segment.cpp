#include "host/heap/host_segment.hpp"

#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "gshmem/gshmem.hpp"
#include "host/base/env.hpp"

namespace gshmem {

HostSegment::HostSegment(HostSegment&& o) noexcept {
  *this = std::move(o);
}

HostSegment& HostSegment::operator=(HostSegment&& o) noexcept {
  if (this != &o) {
    if (base_ && owns_mapping_) ::munmap(base_, size_);
    base_ = o.base_;
    size_ = o.size_;
    owns_mapping_ = o.owns_mapping_;
    fd_ = std::move(o.fd_);
    o.base_ = nullptr;
    o.size_ = 0;
  }
  return *this;
}

HostSegment::~HostSegment() {
  if (base_ && owns_mapping_) ::munmap(base_, size_);
}

HostSegment HostSegment::create(const std::string& name, size_t bytes, size_t alignment) {
  HostSegment s;
  s.fd_.reset(::memfd_create(name.c_str(), MFD_CLOEXEC));
  // A memfd has no name in any directory, and /proc/<pid>/fd is the owner's alone; 0600 (a memfd
  // starts 0777) keeps it so should a descriptor ever leak to a process of another user.
  if (!s.fd_ || ::fchmod(s.fd_.get(), 0600) != 0 || ::ftruncate(s.fd_.get(), off_t(bytes)) != 0) {
    throw Error(GSHMEM_ERROR_OUT_OF_MEMORY, "gshmem_init", "GSHMEM_SYMMETRIC_SIZE",
                "cannot create a " + format_bytes(bytes) + " memory segment: " + strerror(errno));
  }
  // Reserve room to slide to an aligned address, map there, give the slack back.
  void* range = ::mmap(nullptr, bytes + alignment, PROT_NONE,
                       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  void* p = MAP_FAILED;
  if (range != MAP_FAILED) {
    auto start = reinterpret_cast<uintptr_t>(range);
    uintptr_t aligned = (start + alignment - 1) & ~uintptr_t(alignment - 1);
    p = ::mmap(reinterpret_cast<void*>(aligned), bytes, PROT_READ | PROT_WRITE,
               MAP_SHARED | MAP_NORESERVE | MAP_FIXED, s.fd_.get(), 0);
    if (aligned > start) ::munmap(range, aligned - start);
    uintptr_t end = start + bytes + alignment;
    if (end > aligned + bytes)
      ::munmap(reinterpret_cast<void*>(aligned + bytes), end - aligned - bytes);
  }
  if (p == MAP_FAILED) {
    throw Error(GSHMEM_ERROR_OUT_OF_MEMORY, "gshmem_init", "GSHMEM_SYMMETRIC_SIZE",
                "cannot map " + format_bytes(bytes) + ": " + strerror(errno));
  }
  s.base_ = static_cast<char*>(p);
  s.size_ = bytes;
  return s;
}

HostSegment HostSegment::attach(int fd, size_t bytes) {
  HostSegment s;
  s.fd_.reset(fd);
  void* p = ::mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_NORESERVE, fd, 0);
  if (p == MAP_FAILED) {
    throw Error(GSHMEM_ERROR_OUT_OF_MEMORY, "gshmem_init", "",
                "cannot map a peer's " + format_bytes(bytes) + " segment: " + strerror(errno));
  }
  s.base_ = static_cast<char*>(p);
  s.size_ = bytes;
  return s;
}

HostSegment HostSegment::attach_at(int fd, void* at, size_t bytes) {
  HostSegment s;
  s.fd_.reset(fd);
  void* p = ::mmap(at, bytes, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED, fd, 0);
  if (p == MAP_FAILED) {
    throw Error(GSHMEM_ERROR_OUT_OF_MEMORY, "gshmem_init", "",
                "cannot remap " + format_bytes(bytes) + " at a fixed address: " + strerror(errno));
  }
  s.base_ = static_cast<char*>(p);
  s.size_ = bytes;
  s.owns_mapping_ = false;  // the program's own memory: never unmapped
  return s;
}

}  // namespace gshmem
