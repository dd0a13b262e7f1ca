// Topology and placement, on described machines (hwloc XML and synthetic topologies): no test
// machine has the GPUs and NICs these decisions are about.
#include <gtest/gtest.h>

#include <map>
#include <string>

#include "gshmem/gshmem.hpp"
#include "host/topology/topology.hpp"

using gshmem::Placement;
using gshmem::Topology;
using gshmem::TopoDevice;

namespace {

const std::string kP4d = std::string("xml:") + GSHMEM_TEST_DATA + "/p4d_like.xml";

std::string name(const Topology& t, int index) {
  return index >= 0 ? t.devices[size_t(index)].name : "-";
}

}  // namespace

TEST(Topology, ReadsGpusNicsNumaAndSwitchesFromXml) {
  Topology t = Topology::load(kP4d);
  EXPECT_EQ(t.packages, 2);
  EXPECT_EQ(t.numa_nodes, 2);
  EXPECT_EQ(t.pus, 16);
  int gpus = 0, nics = 0;
  for (const auto& d : t.devices) (d.kind == TopoDevice::Kind::Gpu ? gpus : nics)++;
  EXPECT_EQ(gpus, 8);
  EXPECT_EQ(nics, 4);
  // cuda0, cuda1 and the first NIC sit behind one PCIe switch; cuda2 behind another.
  EXPECT_EQ(t.devices[0].pci_switch, t.devices[1].pci_switch);
  EXPECT_NE(t.devices[0].pci_switch, t.devices[2].pci_switch);
  EXPECT_EQ(t.devices[8].pci_switch, t.devices[0].pci_switch);
  EXPECT_EQ(t.devices[0].numa, 0);
  EXPECT_EQ(t.devices[7].numa, 1);
}

TEST(Topology, EachGpuGetsTheNicOnItsSwitch) {
  Topology t = Topology::load(kP4d);
  std::vector<Placement> p = t.place(std::vector<int>(16, -1));
  for (int pe = 0; pe < 16; ++pe) {
    const Placement& q = p[size_t(pe)];
    EXPECT_EQ(name(t, q.gpu), "cuda" + std::to_string(pe % 8)) << "PE " << pe;
    ASSERT_GE(q.nic, 0);
    EXPECT_EQ(t.devices[size_t(q.nic)].pci_switch, t.devices[size_t(q.gpu)].pci_switch)
        << "PE " << pe << " uses " << name(t, q.nic);
  }
  std::map<int, int> load;
  for (const auto& q : p) load[q.nic]++;
  EXPECT_EQ(load.size(), 4u) << "every NIC is used";
  for (auto [nic, n] : load) EXPECT_EQ(n, 4) << name(t, nic);
}

TEST(Topology, WithoutGpusPesSpreadOverTheirNumaNodesNics) {
  // Two NICs on NUMA 0, one on NUMA 1, no GPUs; PEs bound to NUMA 0, 0, 0, 1, 1 and one unbound.
  Topology t;
  t.devices = {{TopoDevice::Kind::Nic, "nic0", "0000:10:00.0", 0, 1},
               {TopoDevice::Kind::Nic, "nic1", "0000:20:00.0", 0, 2},
               {TopoDevice::Kind::Nic, "nic2", "0000:50:00.0", 1, 3}};
  std::vector<Placement> p = t.place({0, 0, 0, 1, 1, -1});
  EXPECT_EQ(name(t, p[0].nic), "nic0");
  EXPECT_EQ(name(t, p[1].nic), "nic1");
  EXPECT_EQ(name(t, p[2].nic), "nic0");
  EXPECT_EQ(name(t, p[3].nic), "nic2");
  EXPECT_EQ(name(t, p[4].nic), "nic2");
  EXPECT_GE(p[5].nic, 0) << "an unbound PE still gets a NIC";
  for (const auto& q : p) EXPECT_EQ(q.gpu, -1);
}

TEST(Topology, NoNicsMeansNoChoice) {
  Topology t = Topology::load("synthetic:pack:2 numa:1 core:4 pu:2");
  EXPECT_EQ(t.packages, 2);
  EXPECT_EQ(t.cores, 8);
  EXPECT_EQ(t.pus, 16);
  for (const auto& q : t.place({0, 1})) {
    EXPECT_EQ(q.nic, -1);
    EXPECT_EQ(q.gpu, -1);
  }
}

TEST(Topology, DomainNamesMatchTheirNic) {
  EXPECT_TRUE(gshmem::domain_matches_nic("eth0", "eth0"));
  EXPECT_TRUE(gshmem::domain_matches_nic("rdmap20s0-rdm", "rdmap20s0"));
  EXPECT_FALSE(gshmem::domain_matches_nic("rdmap20s01-rdm", "rdmap20s0"));
  EXPECT_FALSE(gshmem::domain_matches_nic("eth0", ""));
}

TEST(Topology, BadSourceIsAClearError) {
  try {
    Topology::load("xml:/nonexistent.xml");
    FAIL() << "expected an error";
  } catch (const gshmem::Error& e) {
    EXPECT_NE(std::string(e.what()).find("/nonexistent.xml"), std::string::npos) << e.what();
  }
}
