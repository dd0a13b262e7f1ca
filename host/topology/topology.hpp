// What hwloc sees on this machine (or in an XML/synthetic description): packages, cores, NUMA
// nodes, and the PCI devices that matter to gshmem (GPUs and NICs) with where they attach.
#pragma once

#include <string>
#include <vector>

namespace gshmem {

struct TopoDevice {
  enum class Kind { Gpu, Nic };
  Kind kind;
  std::string name;     // OS name: "cuda0", "rdmap0s6", "eth0"
  std::string pci_bus;  // "0000:17:00.0"
  int numa = -1;        // logical index of the nearest NUMA node
  int switch_id = -1;   // logical index of the nearest PCI bridge above it (PCIe switch)
};

struct Topology {
  std::string source;  // "this machine", "xml:<path>", "synthetic:<desc>"
  int packages = 0, cores = 0, pus = 0, numa_nodes = 0;
  unsigned long long memory = 0;
  std::vector<TopoDevice> devices;

  // Loads this machine (source empty), an XML file ("xml:path") or a synthetic description
  // ("synthetic:..."). Throws gshmem::Error when hwloc is missing or the source is bad.
  static Topology load(const std::string& source = "");
  std::string describe() const;
};

}  // namespace gshmem
