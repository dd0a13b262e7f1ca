#!/usr/bin/env python3
"""Writes p4d_like.xml: an hwloc 2 topology shaped like an AWS p4d.24xlarge (2 sockets, 8 GPUs and
4 EFA NICs, each PCIe switch holding 2 GPUs and 1 NIC), scaled down to 16 CPUs. Used by the
topology tests, which need PCI devices that no test machine has."""

def cpuset(bits):
    return "0x%08x" % bits

out = ['<?xml version="1.0" encoding="UTF-8"?>', '<!DOCTYPE topology SYSTEM "hwloc2.dtd">',
       '<topology version="2.0">']
gp = [1]

def nid():
    gp[0] += 1
    return gp[0]

out.append('  <object type="Machine" os_index="0" cpuset="%s" complete_cpuset="%s" allowed_cpuset="%s" '
           'nodeset="0x00000003" complete_nodeset="0x00000003" allowed_nodeset="0x00000003" gp_index="1">'
           % (cpuset(0xffff), cpuset(0xffff), cpuset(0xffff)))
gpu = 0
for p in range(2):
    cpus = 0xff << (8 * p)
    ns = "0x%08x" % (1 << p)
    out.append('    <object type="Package" os_index="%d" cpuset="%s" complete_cpuset="%s" nodeset="%s" complete_nodeset="%s" gp_index="%d">'
               % (p, cpuset(cpus), cpuset(cpus), ns, ns, nid()))
    out.append('      <object type="NUMANode" os_index="%d" cpuset="%s" complete_cpuset="%s" nodeset="%s" complete_nodeset="%s" gp_index="%d" local_memory="%d"/>'
               % (p, cpuset(cpus), cpuset(cpus), ns, ns, nid(), 64 << 30))
    for c in range(8):
        cpu = 8 * p + c
        out.append('      <object type="Core" os_index="%d" cpuset="%s" complete_cpuset="%s" nodeset="%s" complete_nodeset="%s" gp_index="%d">'
                   % (cpu, cpuset(1 << cpu), cpuset(1 << cpu), ns, ns, nid()))
        out.append('        <object type="PU" os_index="%d" cpuset="%s" complete_cpuset="%s" nodeset="%s" complete_nodeset="%s" gp_index="%d"/>'
                   % (cpu, cpuset(1 << cpu), cpuset(1 << cpu), ns, ns, nid()))
        out.append('      </object>')
    base = 0x10 + 0x40 * p
    out.append('      <object type="Bridge" gp_index="%d" bridge_type="0-1" depth="0" bridge_pci="0000:[%02x-%02x]">'
               % (nid(), base, base + 0x3f))
    for s in range(2):
        up = base + 0x10 * s + 1
        out.append('        <object type="Bridge" gp_index="%d" bridge_type="1-1" depth="1" bridge_pci="0000:[%02x-%02x]" pci_busid="0000:%02x:%02x.0" pci_type="0604 [1000:c030] [0000:0000] 00 00" pci_link_speed="16.0">'
                   % (nid(), up, up + 0x0f, base, s + 1))
        for k in range(3):
            bus = up + 1 + k
            out.append('          <object type="Bridge" gp_index="%d" bridge_type="1-1" depth="2" bridge_pci="0000:[%02x-%02x]" pci_busid="0000:%02x:%02x.0" pci_type="0604 [1000:c030] [0000:0000] 00 00" pci_link_speed="16.0">'
                       % (nid(), bus, bus, up, k))
            if k < 2:
                out.append('            <object type="PCIDev" gp_index="%d" pci_busid="0000:%02x:00.0" pci_type="0302 [10de:20b0] [10de:134f] a1 00" pci_link_speed="16.0">'
                           % (nid(), bus))
                out.append('              <object type="OSDev" gp_index="%d" name="cuda%d" osdev_type="5"/>' % (nid(), gpu))
                gpu += 1
            else:
                out.append('            <object type="PCIDev" gp_index="%d" pci_busid="0000:%02x:00.0" pci_type="0200 [1d0f:efa0] [1d0f:efa0] 00 00" pci_link_speed="16.0">'
                           % (nid(), bus))
                out.append('              <object type="OSDev" gp_index="%d" name="rdmap%ds0" osdev_type="3"/>' % (nid(), bus))
            out.append('            </object>')
            out.append('          </object>')
        out.append('        </object>')
    out.append('      </object>')
    out.append('    </object>')
out.append('  </object>')
out.append('</topology>')
open(__file__.replace("make_p4d_topology.py", "p4d_like.xml"), "w").write("\n".join(out) + "\n")
