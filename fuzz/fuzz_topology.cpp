// Topology input: an hwloc XML description (what GSHMEM_TOPOLOGY_FILE-style inputs hand to
// Topology::load) read from the fuzzer's bytes, then the placement of PEs on what it describes.
#include <sys/mman.h>
#include <unistd.h>

#include <string>
#include <vector>

#include "gshmem/gshmem.hpp"
#include "host/topology/topology.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static int fd = ::memfd_create("fuzz-topology", 0);
  if (::ftruncate(fd, 0) != 0 || ::pwrite(fd, data, size, 0) != ssize_t(size)) return 0;
  try {
    gshmem::Topology t = gshmem::Topology::load("xml:/proc/self/fd/" + std::to_string(fd));
    std::vector<int> numa = {-1, 0, 1, t.numa_nodes - 1};
    auto placement = t.place(numa);
    if (placement.size() != numa.size()) __builtin_trap();
    for (auto& p : placement) {
      if (p.gpu >= int(t.devices.size()) || p.nic >= int(t.devices.size())) __builtin_trap();
    }
    t.describe_placement(placement);
  } catch (const gshmem::Error&) {
  }
  return 0;
}
