// The symmetric heap in GPU memory (make_device_heap in host/heap/segment.hpp builds one).
//
// VMM path: one virtual range of the heap's size is reserved for this PE and one for every
// same-node peer whose GPU this PE's GPU can reach (the same GPU, or P2P over NVLink/PCIe).
// Physical memory is added in granules as the allocator's high-water mark grows: cuMemCreate
// with POSIX-FD handles, exported, handed to the node's PEs over the node mesh (SCM_RIGHTS, as
// the host heap's memfds), imported and mapped at the same offset of that peer's range, and
// made accessible to this PE's device. Several PEs on one GPU map each other's memory the same
// way (importing an FD of the same device works).
//
// IPC path, when the device lacks VMM or POSIX-FD handles: one cudaMalloc of the whole heap,
// shared as cudaIpcMemHandle over the bootstrap.
#pragma once

#include <cstdint>
#include <vector>

#include "host/heap/segment.hpp"

namespace gshmem {

class DeviceSegment final : public HeapSegment {
 public:
  // Collective over boot (and the node mesh).
  DeviceSegment(Bootstrap& boot, NodeMesh& mesh, uint64_t bytes, uint64_t alignment, int device,
                bool commit_all);
  ~DeviceSegment() override;

  const char* kind() const override { return "device"; }
  char* base() const override { return peer_base_[size_t(my_pe_)]; }
  uint64_t size() const override { return size_; }
  uint64_t base_alignment() const override { return alignment_; }
  Segment view() const override { return Segment{base(), size_, peer_base_.data()}; }
  Segment device_view() const override { return Segment{base(), size_, device_peer_base_}; }
  size_t mapped_peers() const override { return mapped_; }
  int cuda_device() const override { return device_; }
  bool commit(uint64_t bytes) override;
  uint64_t committed() const override { return committed_; }
  void zero(uint64_t off, uint64_t bytes) override;
  void move(uint64_t dst, uint64_t src, uint64_t bytes) override;

 private:
  void setup_vmm(uint64_t alignment);
  void setup_ipc();
  // Maps `handle` at [off, off + bytes) of `at` and grants this PE's device access.
  bool map(char* at, uint64_t off, uint64_t bytes, uint64_t handle, const char* what);

  Bootstrap& boot_;
  NodeMesh& mesh_;
  int my_pe_;
  int device_;
  bool vmm_ = false;
  uint64_t size_ = 0;
  uint64_t alignment_ = 0;
  uint64_t granule_ = 0;  // growth step, a multiple of the allocation granularity
  uint64_t committed_ = 0;
  size_t mapped_ = 0;
  std::vector<char*> peer_base_;   // by world PE; nullptr when not mapped
  std::vector<bool> reserved_;     // VMM: this PE reserved peer_base_[pe]'s range
  std::vector<uint64_t> handles_;  // VMM: every handle made or imported, to release
  struct Mapping {
    char* at;
    uint64_t bytes;
  };
  std::vector<Mapping> mappings_;            // VMM: to unmap
  char* const* device_peer_base_ = nullptr;  // device copy of peer_base_
  uint32_t growths_ = 0;                     // tags the fd exchanges
};

}  // namespace gshmem
