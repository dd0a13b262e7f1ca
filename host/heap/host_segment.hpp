// Host memory that other processes can map: a memfd, mapped shared. The descriptor travels to
// same-node peers over the node mesh; nothing is named in /dev/shm, nothing outlives the PEs.
#pragma once

#include <cstddef>
#include <string>

#include "host/base/sock.hpp"

namespace gshmem {

class HostSegment {
 public:
  HostSegment() = default;
  HostSegment(HostSegment&& o) noexcept;
  HostSegment& operator=(HostSegment&& o) noexcept;
  ~HostSegment();

  // A new zero-filled segment of `bytes` (pages are allocated on first touch), mapped at an
  // address that is a multiple of `alignment` (a power of two).
  static HostSegment create(const std::string& name, size_t bytes, size_t alignment = 4096);
  // Maps a segment another PE created; takes ownership of fd.
  static HostSegment attach(int fd, size_t bytes);
  // Maps an existing memfd at a fixed address, replacing what was there (used to make the
  // program's data segment shareable).
  static HostSegment attach_at(int fd, void* at, size_t bytes);

  char* base() const { return base_; }
  size_t size() const { return size_; }
  int fd() const { return fd_.get(); }

 private:
  char* base_ = nullptr;
  size_t size_ = 0;
  bool owns_mapping_ = true;
  sock::Fd fd_;
};

}  // namespace gshmem
