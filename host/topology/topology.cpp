#include "host/topology/topology.hpp"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <map>

#include "gshmem/gshmem.hpp"
#include "host/base/env.hpp"

#if GSHMEM_HAVE_HWLOC
#include <hwloc.h>
#endif

namespace gshmem {

bool domain_matches_nic(const std::string& domain, const std::string& nic) {
  return !nic.empty() && (domain == nic || domain.rfind(nic + "-", 0) == 0);
}

std::vector<Placement> Topology::place(const std::vector<int>& pe_numa) const {
  std::vector<int> gpus, nics;
  for (int d = 0; d < int(devices.size()); ++d) {
    (devices[size_t(d)].kind == TopoDevice::Kind::Gpu ? gpus : nics).push_back(d);
  }
  std::vector<Placement> out(pe_numa.size());
  std::map<std::vector<int>, int> users;  // candidate set -> PEs placed on it so far
  for (size_t i = 0; i < pe_numa.size(); ++i) {
    Placement& p = out[i];
    if (!gpus.empty()) p.gpu = gpus[i % gpus.size()];
    if (nics.empty()) continue;
    int sw = p.gpu >= 0 ? devices[size_t(p.gpu)].pci_switch : -1;
    int numa = p.gpu >= 0 ? devices[size_t(p.gpu)].numa : pe_numa[i];
    std::vector<int> near;
    for (int n : nics) {
      if (sw >= 0 && devices[size_t(n)].pci_switch == sw) near.push_back(n);
    }
    if (near.empty()) {
      for (int n : nics) {
        if (numa >= 0 && devices[size_t(n)].numa == numa) near.push_back(n);
      }
    }
    if (near.empty()) near = nics;
    p.nic = near[size_t(users[near]++) % near.size()];
  }
  return out;
}

#if GSHMEM_HAVE_HWLOC

namespace {

int nearest_numa(hwloc_topology_t topo, hwloc_obj_t obj) {
  hwloc_obj_t anc = hwloc_get_non_io_ancestor_obj(topo, obj);
  while (anc && !anc->memory_arity) anc = anc->parent;
  if (!anc) return -1;
  hwloc_obj_t numa = anc->memory_first_child;
  while (numa && numa->type != HWLOC_OBJ_NUMANODE) numa = numa->memory_first_child;
  return numa ? int(numa->logical_index) : -1;
}

// The top-most PCI-to-PCI bridge above a device: a PCIe switch's upstream port (shared by every
// device behind that switch) or, without a switch, the root port.
int top_pci_bridge(hwloc_obj_t obj) {
  int found = -1;
  for (hwloc_obj_t p = obj->parent;
       p && (p->type == HWLOC_OBJ_BRIDGE || p->type == HWLOC_OBJ_PCI_DEVICE); p = p->parent) {
    // Read as a number: hwloc stores whatever a topology file says, also values the enum lacks.
    int upstream;
    std::memcpy(&upstream, &p->attr->bridge.upstream_type, sizeof upstream);
    if (p->type == HWLOC_OBJ_BRIDGE && upstream == int(HWLOC_OBJ_BRIDGE_PCI)) {
      found = int(p->logical_index);
    }
  }
  return found;
}

// nullptr when hwloc cannot load `source` ("" is this machine).
hwloc_topology_t load_topology(const std::string& source) {
  hwloc_topology_t topo;
  hwloc_topology_init(&topo);
  hwloc_topology_set_io_types_filter(topo, HWLOC_TYPE_FILTER_KEEP_IMPORTANT);
  int rc = 0;
  if (source.rfind("xml:", 0) == 0) {
    rc = hwloc_topology_set_xml(topo, source.substr(4).c_str());
  } else if (source.rfind("synthetic:", 0) == 0) {
    rc = hwloc_topology_set_synthetic(topo, source.substr(10).c_str());
  } else if (!source.empty()) {
    rc = -1;
  }
  if (rc != 0 || hwloc_topology_load(topo) != 0) {
    hwloc_topology_destroy(topo);
    return nullptr;
  }
  return topo;
}

// This machine's topology is loaded once per process and kept (read-only, so any thread may use
// it). Its I/O discovery (sysfs, pci.ids) is the slow part, and destroying the last topology makes
// hwloc unload its PCI plugin and with it libpciaccess, whose device-name cache (a tree it never
// frees) would then be lost: a leak in every process that ever loaded a topology.
hwloc_topology_t this_machine() {
  static hwloc_topology_t topo = load_topology("");
  return topo;
}

template <class F>
Topology with_topology(const std::string& source, F&& fill) {
  hwloc_topology_t topo = source.empty() ? this_machine() : load_topology(source);
  if (!topo) {
    throw Error(GSHMEM_ERROR_INVALID_ARGUMENT, "topology", source,
                "hwloc cannot load \"" + source + "\" (expected xml:FILE or synthetic:DESC)");
  }
  Topology t;
  t.source = source.empty() ? "this machine" : source;
  fill(topo, t);
  if (!source.empty()) hwloc_topology_destroy(topo);
  return t;
}

}  // namespace

Topology Topology::load(const std::string& source) {
  return with_topology(source, [](hwloc_topology_t topo, Topology& t) {
    t.packages = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_PACKAGE);
    t.cores = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_CORE);
    t.pus = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_PU);
    t.numa_nodes = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_NUMANODE);
    t.memory = hwloc_get_root_obj(topo)->total_memory;
    std::vector<TopoDevice> gpus, nics;
    std::map<hwloc_obj_t, size_t> nic_by_pci;  // a NIC's PCI function shows up once
    for (hwloc_obj_t os = nullptr; (os = hwloc_get_next_osdev(topo, os));) {
      auto type = os->attr->osdev.type;
      hwloc_obj_t pci =
          os->parent && os->parent->type == HWLOC_OBJ_PCI_DEVICE ? os->parent : nullptr;
      bool gpu = type == HWLOC_OBJ_OSDEV_COPROC || (type == HWLOC_OBJ_OSDEV_GPU && os->name &&
                                                    std::string(os->name).rfind("cuda", 0) == 0);
      bool nic = pci && (type == HWLOC_OBJ_OSDEV_OPENFABRICS || type == HWLOC_OBJ_OSDEV_NETWORK);
      if (!gpu && !nic) continue;
      TopoDevice d{gpu ? TopoDevice::Kind::Gpu : TopoDevice::Kind::Nic, os->name ? os->name : "?",
                   "", nearest_numa(topo, os), -1};
      if (pci) {
        char bus[32];
        std::snprintf(bus, sizeof bus, "%04x:%02x:%02x.%x", pci->attr->pcidev.domain,
                      pci->attr->pcidev.bus, pci->attr->pcidev.dev, pci->attr->pcidev.func);
        d.pci_bus = bus;
        d.pci_switch = top_pci_bridge(pci);
      }
      if (gpu) {
        gpus.push_back(d);
      } else if (auto it = nic_by_pci.find(pci); it != nic_by_pci.end()) {
        // Prefer the RDMA device's name (what libfabric's EFA/verbs domains are named after).
        if (type == HWLOC_OBJ_OSDEV_OPENFABRICS) nics[it->second].name = d.name;
      } else {
        nic_by_pci[pci] = nics.size();
        nics.push_back(d);
      }
    }
    auto by_bus = [](const TopoDevice& a, const TopoDevice& b) { return a.pci_bus < b.pci_bus; };
    std::stable_sort(gpus.begin(), gpus.end(), by_bus);
    std::stable_sort(nics.begin(), nics.end(), by_bus);
    t.devices = gpus;
    t.devices.insert(t.devices.end(), nics.begin(), nics.end());
  });
}

int Topology::current_numa() {
  int result = -1;
  with_topology("", [&](hwloc_topology_t topo, Topology&) {
    hwloc_bitmap_t set = hwloc_bitmap_alloc();
    if (hwloc_get_cpubind(topo, set, HWLOC_CPUBIND_PROCESS) == 0) {
      int n = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_NUMANODE);
      for (int i = 0; i < n; ++i) {
        hwloc_obj_t numa = hwloc_get_obj_by_type(topo, HWLOC_OBJ_NUMANODE, unsigned(i));
        if (n > 1 && hwloc_bitmap_isincluded(set, numa->cpuset)) result = i;
      }
    }
    hwloc_bitmap_free(set);
  });
  return result;
}

#else

Topology Topology::load(const std::string& source) {
  throw Error(GSHMEM_ERROR_INVALID_ARGUMENT, "topology", source,
              "gshmem was built without hwloc (install libhwloc-dev and reconfigure)");
}

int Topology::current_numa() {
  return -1;
}

#endif

std::string Topology::describe() const {
  std::string s;
  char line[256];
  std::snprintf(line, sizeof line,
                "  %s: %d package(s), %d core(s), %d PU(s), %d NUMA node(s), %s memory\n",
                source.c_str(), packages, cores, pus, numa_nodes, format_bytes(memory).c_str());
  s += line;
  int gpus = 0, nics = 0;
  for (const auto& d : devices) {
    bool gpu = d.kind == TopoDevice::Kind::Gpu;
    (gpu ? gpus : nics)++;
    std::snprintf(line, sizeof line, "  %-4s %-12s pci %-13s numa %-2d pcie-switch %d\n",
                  gpu ? "GPU" : "NIC", d.name.c_str(), d.pci_bus.empty() ? "-" : d.pci_bus.c_str(),
                  d.numa, d.pci_switch);
    s += line;
  }
  if (!gpus) s += "  GPU  none found\n";
  if (!nics) s += "  NIC  none found on PCI (only virtual or loopback interfaces)\n";
  return s;
}

std::string Topology::describe_placement(const std::vector<Placement>& placement) const {
  std::string s = "  local PE  GPU          NIC\n";
  char line[160];
  for (size_t i = 0; i < placement.size(); ++i) {
    const Placement& p = placement[i];
    std::snprintf(
        line, sizeof line, "  %-9zu %-12s %s\n", i,
        p.gpu >= 0 ? devices[size_t(p.gpu)].name.c_str() : "-",
        p.nic >= 0 ? devices[size_t(p.nic)].name.c_str() : "- (first non-loopback domain)");
    s += line;
  }
  return s;
}

}  // namespace gshmem
