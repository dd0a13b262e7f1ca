// gshmem-info: version, build options, every GSHMEM_ variable with its value and where it came
// from, and the topology hwloc sees.
#include <cstdio>
#include <cstring>
#include <string>

#include "gshmem/gshmem.hpp"
#include "host/env.hpp"
#include "host/topology/topology.hpp"

namespace {

void usage(FILE* f) {
  std::fprintf(f,
               "usage: gshmem-info [--env] [--topology [xml:FILE|synthetic:DESC]] [--all]\n"
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

int print_topology(const std::string& source) {
  try {
    gshmem::Topology t = gshmem::Topology::load(source);
    std::printf("Topology:\n%s", t.describe().c_str());
  } catch (const gshmem::Error& e) {
    std::printf("Topology: unavailable: %s\n", e.what());
    return 1;
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  bool env = false, topo = false;
  std::string topo_source;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--env") {
      env = true;
    } else if (a == "--topology") {
      topo = true;
      if (i + 1 < argc && argv[i + 1][0] != '-') topo_source = argv[++i];
    } else if (a == "--all") {
      env = topo = true;
    } else if (a == "-h" || a == "--help") {
      usage(stdout);
      return 0;
    } else {
      std::fprintf(stderr, "gshmem-info: unknown option '%s'\n", a.c_str());
      usage(stderr);
      return 2;
    }
  }
  bool all = !env && !topo;
  print_build();
  if (all || env) print_env();
  int rc = 0;
  if (all || topo) rc = print_topology(topo_source);
  return rc;
}
