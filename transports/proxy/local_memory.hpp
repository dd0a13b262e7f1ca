// How the proxy reaches this PE's memory. The addresses in commands are the producers': with a GPU
// heap they are device addresses (the heap, cudaMalloc'd buffers) that a host load or store must
// never touch. So the proxy hands such memory only to the fabric (which reaches registered device
// memory through FI_HMEM, as the NIC does) and otherwise goes through this interface: copies to
// and from host memory it owns, and the emulated atomics that arrive from other PEs.
//
// Three views:
//   host     CPU PEs: every address is host memory; copies are memcpy, atomics CPU atomics.
//   gpu      a GPU heap: device memory is copied with CUDA on the proxy's own stream.
//   aliased  the test mode GSHMEM_PROXY_GPUVIEW: CPU PEs whose proxy sees the symmetric segments
//            only through a PROT_NONE alias of the same size, so any direct access faults; the
//            view translates the alias for the copies, the atomics and the fabric.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "gshmem/device/amo_op.cuh"
#include "gshmem/device/channel.cuh"
#include "transports/fabric/fabric.hpp"

namespace gshmem {

class LocalMemory {
 public:
  virtual ~LocalMemory() = default;

  // The proxy's view of an address a producer wrote into a command.
  virtual char* view(uint64_t producer_address) const {
    return reinterpret_cast<char*>(producer_address);
  }
  // Whether the proxy's own instructions may load and store [p, p + n).
  virtual bool host_accessible(const void* p, size_t n) const = 0;
  // What the fabric is given for p (the NIC reaches registered memory the proxy cannot touch).
  virtual void* fabric_address(void* p) const { return p; }
  // Copies between local memory of any kind and host memory the proxy owns; complete on return.
  virtual void to_host(void* host, const void* src, size_t n) = 0;
  virtual void from_host(void* dst, const void* host, size_t n) = 0;
  // Applies an emulated atomic that arrived from another PE at p; returns the old value.
  virtual uint64_t atomic(void* p, detail::AmoType type, AmoOp op, uint64_t value,
                          uint64_t cond) = 0;
};

// CPU PEs.
std::unique_ptr<LocalMemory> host_memory();
// A GPU heap on `cuda_device`: device memory is copied on a stream of the proxy's own.
std::unique_ptr<LocalMemory> gpu_memory(int cuda_device);
// GSHMEM_PROXY_GPUVIEW: replaces each segment's base in `segments` (the proxy's copy) by a
// PROT_NONE alias of its size and translates it back where the proxy legitimately needs it.
std::unique_ptr<LocalMemory> aliased_memory(std::vector<FabricRegion>& segments);

// The CPU atomic an emulated atomic is applied with (host and aliased views, and tests).
uint64_t apply_amo(void* p, detail::AmoType type, AmoOp op, uint64_t value, uint64_t cond);

}  // namespace gshmem
