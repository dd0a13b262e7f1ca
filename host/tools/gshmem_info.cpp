// gshmem-info: version, build options, every GSHMEM_ variable with its value and where it came
// from, and the topology hwloc sees.
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <cstring>
#include <string>

#include "collectives/calibrate.hpp"
#include "collectives/planner.hpp"
#include "gshmem/gshmem.hpp"
#include "host/base/env.hpp"
#include "host/topology/topology.hpp"
#include "transports/fabric/fabric.hpp"

namespace {

void usage(FILE* f) {
  std::fprintf(f,
               "usage: gshmem-info [--env] [--topology [xml:FILE|synthetic:DESC]] [--local-pes N] "
               "[--plan SPEC]\n"
               "                   [--fabric [PROVIDER]] [--all] [--calibrate [SPEC]]\n"
               "  --env         every GSHMEM_ variable, its value and where it came from\n"
               "  --topology    what hwloc sees (this machine, or an XML/synthetic description)\n"
               "  --local-pes N the GPU and NIC each of N PEs on such a node would use\n"
               "  --fabric      the libfabric provider gshmem would pick and what it offers\n"
               "  --plan SPEC   the collectives planner's choices for a team shape, e.g.\n"
               "                nodes=16,ppn=8,intra=nvlink,inter=efa,op=allreduce,sizes=8-1G;\n"
               "                it says whether this host's calibration or the constants decide\n"
               "  --calibrate   under gshmemrun: time every algorithm of the collectives on this\n"
               "                job's team shape and write this host's calibration file, which\n"
               "                later jobs' planners use (SPEC: op=NAME,...,sizes=8-64M,reps=3)\n"
               "With no option, prints everything.\n");
}

void print_build() {
  std::printf("gshmem %d.%d.%d\n", GSHMEM_MAJOR_VERSION, GSHMEM_MINOR_VERSION,
              GSHMEM_PATCH_VERSION);
  std::printf("Build options:\n");
  std::printf("  CUDA       %s\n", GSHMEM_BUILD_CUDA ? "on" : "off");
  std::printf("  libfabric  %s\n", GSHMEM_BUILD_FABRIC ? "on" : "off");
  std::printf("  PMIx       %s\n", GSHMEM_BUILD_PMIX ? "on" : "off");
  std::printf("  hwloc      %s\n", GSHMEM_BUILD_HWLOC ? "on" : "off");
  // What gshmem_init would pick for the heap here (GSHMEM_HEAP, and whether a GPU is usable).
  char why[256];
  int gpu = gshmemx_gpu_available(why, sizeof why);
  std::printf("GPU:\n");
  std::printf("  probe      %s%s\n", gpu ? "usable" : "not usable: ", gpu ? "" : why);
  const std::string& heap = gshmem::Env::get().str("GSHMEM_HEAP");
  const char* kind = heap == "host"     ? "host"
                     : heap == "device" ? (gpu ? "device" : "none (GSHMEM_HEAP=device needs a GPU)")
                     : gpu ? "device for programs that link gshmem::device, host for the others"
                           : "host";
  std::printf("  heap       %s (GSHMEM_HEAP=%s)\n", kind, heap.c_str());
}

void print_env() {
  const gshmem::Env& env = gshmem::Env::get();
  std::printf("Environment (value, where it came from):\n");
  for (const auto& e : env.entries()) {
    std::printf("  %-28s = %-12s (%s)%s\n", e.spec->name,
                e.value.empty() ? "\"\"" : e.value.c_str(),
                e.from_environment ? "environment" : "default",
                e.spec->internal ? " [set by gshmemrun]" : "");
    std::printf("      %s\n", e.spec->description);
  }
  for (const auto& name : env.unknown()) {
    std::printf("  %-28s   is set but is not a gshmem variable\n", name.c_str());
  }
}

int print_topology(const std::string& source, int local_pes) {
  try {
    gshmem::Topology t = gshmem::Topology::load(source);
    std::printf("Topology:\n%s", t.describe().c_str());
    if (local_pes > 0) {
      std::vector<int> unbound(static_cast<size_t>(local_pes), -1);
      std::printf("Placement of %d PEs on such a node:\n%s", local_pes,
                  t.describe_placement(t.place(unbound)).c_str());
    }
  } catch (const gshmem::Error& e) {
    std::printf("Topology: unavailable: %s\n", e.what());
    return 1;
  }
  return 0;
}

int print_fabric(const std::string& wanted) {
  std::vector<gshmem::FabricDescription> all = gshmem::Fabric::describe(wanted);
  std::printf("Network transport (GSHMEM_FABRIC_PROVIDER=%s):\n", wanted.c_str());
  if (all.empty()) {
    std::printf("  no usable libfabric RDM provider\n");
    return 1;
  }
  std::string progress = all[0].progress;
  if (progress == "auto" && all[0].manual_offered) {
    progress += " (manual where the proxy polls or naps)";
  }
  std::printf("  provider   %s (delivery-complete %s, atomics %s, progress %s, inject %zu B)\n",
              all[0].provider.c_str(), all[0].delivery_complete ? "yes" : "NO",
              all[0].atomics ? "native" : "emulated by the proxy", progress.c_str(),
              all[0].inject_size);
  std::printf("  mr_mode    %s\n", all[0].mr_mode.c_str());
  std::printf("  caps       %s\n", all[0].caps.c_str());
  std::string domains;
  for (const auto& d : all) {
    if (domains.find(" " + d.domain + " ") == std::string::npos) domains += " " + d.domain + " ";
  }
  std::printf("  domains   %s(GSHMEM_FABRIC_NIC picks one)\n", domains.c_str());
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  bool env = false, topo = false, fabric = false;
  int local_pes = 0;
  std::string topo_source = gshmem::Env::get().str("GSHMEM_TOPOLOGY");
  std::string provider = gshmem::Env::get().str("GSHMEM_FABRIC_PROVIDER");
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--env") {
      env = true;
    } else if (a == "--topology") {
      topo = true;
      if (i + 1 < argc && argv[i + 1][0] != '-') topo_source = argv[++i];
    } else if (a == "--local-pes" && i + 1 < argc) {
      topo = true;
      local_pes = std::atoi(argv[++i]);
    } else if (a == "--fabric") {
      fabric = true;
      if (i + 1 < argc && argv[i + 1][0] != '-') provider = argv[++i];
    } else if (a == "--plan") {
      // Planner only: no build banner, so the table can be read by scripts.
      return gshmem::coll::print_plan(i + 1 < argc ? argv[i + 1] : "", stdout);
    } else if (a == "--calibrate") {
      // A job of its own: under gshmemrun, every PE measures and PE 0 writes the file.
      return gshmem::coll::calibrate_main(i + 1 < argc ? argv[i + 1] : "");
    } else if (a == "--all") {
      env = topo = fabric = true;
    } else if (a == "-h" || a == "--help") {
      usage(stdout);
      return 0;
    } else {
      std::fprintf(stderr, "gshmem-info: unknown option '%s'\n", a.c_str());
      usage(stderr);
      return 2;
    }
  }
  bool all = !env && !topo && !fabric;
  print_build();
  if (all || env) print_env();
  int rc = 0;
  if (all || topo) rc |= print_topology(topo_source, local_pes);
  if (all || fabric) rc |= print_fabric(provider);
  return rc;
}
