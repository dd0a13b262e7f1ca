// What hwloc sees on this machine (or in an XML/synthetic description): packages, cores, NUMA
// nodes, and the PCI devices that matter to gshmem (GPUs and NICs) with where they attach, plus
// the choice of GPU and NIC for each PE of a node.
#pragma once

#include <string>
#include <vector>

namespace gshmem {

struct TopoDevice {
  enum class Kind { Gpu, Nic };
  Kind kind;
  std::string name;     // OS name: "cuda0", "rdmap20s0", "eth0"
  std::string pci_bus;  // "0000:17:00.0"
  int numa = -1;        // logical index of the nearest NUMA node
  int pci_switch = -1;  // the PCIe switch (top-most PCI bridge under the host bridge); -1: none
};

// Where a PE should work from: indices into Topology::devices, -1 when there is none.
struct Placement {
  int gpu = -1;
  int nic = -1;
};

struct Topology {
  std::string source;  // "this machine", "xml:<path>", "synthetic:<desc>"
  int packages = 0, cores = 0, pus = 0, numa_nodes = 0;
  unsigned long long memory = 0;
  std::vector<TopoDevice> devices;  // GPUs in PCI order, then NICs in PCI order

  // Loads this machine (source empty), an XML file ("xml:path") or a synthetic description
  // ("synthetic:..."). Throws gshmem::Error when hwloc is missing or the source is bad.
  static Topology load(const std::string& source = "");
  // The NUMA node (logical index) this process is bound within, -1 when it may run anywhere.
  static int current_numa();

  // GPU and NIC for each of `pe_numa.size()` PEs of one node (pe_numa[i]: PE i's NUMA node or
  // -1). PE i takes GPU i mod #GPUs; its NIC is one on the same PCIe switch as its GPU, else on
  // the same NUMA node (as its GPU, or as the PE when it has no GPU), else any; PEs that end up
  // with the same candidate NICs are spread over them round-robin.
  std::vector<Placement> place(const std::vector<int>& pe_numa) const;

  std::string describe() const;
  std::string describe_placement(const std::vector<Placement>& placement) const;
};

// Whether a libfabric domain name belongs to an OS NIC name: "eth0" is "eth0", and EFA's
// "rdmap20s0-rdm" and "rdmap20s0-dgrm" belong to "rdmap20s0".
bool domain_matches_nic(const std::string& domain, const std::string& nic);

}  // namespace gshmem
