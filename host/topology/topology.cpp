#include "host/topology/topology.hpp"

#include <cstdio>

#include "gshmem/gshmem.hpp"
#include "host/env.hpp"

#if GSHMEM_HAVE_HWLOC
#include <hwloc.h>
#endif

namespace gshmem {

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

int nearest_switch(hwloc_obj_t obj) {
  for (hwloc_obj_t p = obj->parent; p; p = p->parent) {
    if (p->type == HWLOC_OBJ_BRIDGE && p->attr->bridge.upstream_type == HWLOC_OBJ_BRIDGE_PCI) {
      return int(p->logical_index);
    }
    if (p->type != HWLOC_OBJ_PCI_DEVICE && p->type != HWLOC_OBJ_BRIDGE) break;
  }
  return -1;
}

}  // namespace

Topology Topology::load(const std::string& source) {
  hwloc_topology_t topo;
  hwloc_topology_init(&topo);
  hwloc_topology_set_io_types_filter(topo, HWLOC_TYPE_FILTER_KEEP_IMPORTANT);
  Topology t;
  t.source = source.empty() ? "this machine" : source;
  int rc = 0;
  if (source.rfind("xml:", 0) == 0) {
    rc = hwloc_topology_set_xml(topo, source.substr(4).c_str());
  } else if (source.rfind("synthetic:", 0) == 0) {
    rc = hwloc_topology_set_synthetic(topo, source.substr(10).c_str());
  }
  if (rc != 0 || hwloc_topology_load(topo) != 0) {
    hwloc_topology_destroy(topo);
    throw Error(GSHMEM_ERROR_INVALID_ARGUMENT, "topology", source, "hwloc cannot load it");
  }
  t.packages = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_PACKAGE);
  t.cores = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_CORE);
  t.pus = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_PU);
  t.numa_nodes = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_NUMANODE);
  t.memory = hwloc_get_root_obj(topo)->total_memory;
  for (hwloc_obj_t os = nullptr; (os = hwloc_get_next_osdev(topo, os));) {
    auto type = os->attr->osdev.type;
    bool gpu = type == HWLOC_OBJ_OSDEV_GPU || type == HWLOC_OBJ_OSDEV_COPROC;
    bool nic = type == HWLOC_OBJ_OSDEV_OPENFABRICS ||
               (type == HWLOC_OBJ_OSDEV_NETWORK && os->parent && os->parent->type == HWLOC_OBJ_PCI_DEVICE);
    if (!gpu && !nic) continue;
    TopoDevice d{gpu ? TopoDevice::Kind::Gpu : TopoDevice::Kind::Nic, os->name ? os->name : "?", "",
                 nearest_numa(topo, os), -1};
    hwloc_obj_t pci = os->parent;
    if (pci && pci->type == HWLOC_OBJ_PCI_DEVICE) {
      char bus[32];
      std::snprintf(bus, sizeof bus, "%04x:%02x:%02x.%x", pci->attr->pcidev.domain,
                    pci->attr->pcidev.bus, pci->attr->pcidev.dev, pci->attr->pcidev.func);
      d.pci_bus = bus;
      d.switch_id = nearest_switch(pci);
    }
    t.devices.push_back(d);
  }
  hwloc_topology_destroy(topo);
  return t;
}

#else

Topology Topology::load(const std::string& source) {
  throw Error(GSHMEM_ERROR_INVALID_ARGUMENT, "topology", source,
              "gshmem was built without hwloc (install libhwloc-dev and reconfigure)");
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
    std::snprintf(line, sizeof line, "  %-4s %-12s pci %-13s numa %d switch %d\n",
                  gpu ? "GPU" : "NIC", d.name.c_str(), d.pci_bus.empty() ? "-" : d.pci_bus.c_str(),
                  d.numa, d.switch_id);
    s += line;
  }
  if (!gpus) s += "  GPU  none found\n";
  if (!nics) s += "  NIC  none found on PCI (only virtual or loopback interfaces)\n";
  return s;
}

}  // namespace gshmem
