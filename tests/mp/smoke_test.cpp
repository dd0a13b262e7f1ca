// The first multi-PE check: every PE puts its number to every other PE and reads it back.
#include <gtest/gtest.h>

#include <sched.h>
#include <unistd.h>

#include <cstdlib>
#include <string>

#include "gshmem/gshmem.h"

// MP_TEST_NPES, when set: the job size the launcher was asked for (a bootstrap that fell back to
// a single PE would otherwise pass every test alone).
TEST(Smoke, JobSize) {
  const char* want = std::getenv("MP_TEST_NPES");
  if (!want) GTEST_SKIP() << "MP_TEST_NPES not set";
  EXPECT_EQ(gshmem_n_pes(), std::atoi(want));
}

TEST(Smoke, PutToEveryPeer) {
  int me = gshmem_my_pe(), n = gshmem_n_pes();
  int* slots = static_cast<int*>(gshmem_calloc(size_t(n), sizeof(int)));
  for (int pe = 0; pe < n; ++pe) gshmem_int_p(&slots[me], me + 100, pe);
  gshmem_barrier_all();
  for (int pe = 0; pe < n; ++pe) EXPECT_EQ(slots[pe], pe + 100) << "slot of PE " << pe;
  gshmem_barrier_all();
  gshmem_free(slots);
}

// GSHMEM_CPU_BIND: the PE's thread is bound to one CPU of the mask it was started with (here the
// launcher's, its parent's), the node's PEs in turn, when the mode asks for it: always with
// "core", never with "none", and with "auto" (the default) only when the node's PEs outnumber
// those CPUs.
TEST(Smoke, CpuBinding) {
  const char* set = std::getenv("GSHMEM_CPU_BIND");
  std::string mode = set ? set : "auto";
  cpu_set_t given, now;
  CPU_ZERO(&given);
  CPU_ZERO(&now);
  // Under mpirun the parent is Open MPI's daemon, which binds by its own rules.
  if (!std::getenv("GSHMEM_LAUNCHER_PE")) GTEST_SKIP() << "not started by gshmemrun";
  if (sched_getaffinity(getppid(), sizeof given, &given) != 0) GTEST_SKIP() << "no parent mask";
  ASSERT_EQ(sched_getaffinity(0, sizeof now, &now), 0);
  int cpus = CPU_COUNT(&given);
  int local = gshmem_team_n_pes(GSHMEM_TEAM_NODE), index = gshmem_team_my_pe(GSHMEM_TEAM_NODE);
  bool bound = mode == "core" || (mode == "auto" && local > cpus);
  if (!bound) {
    EXPECT_TRUE(CPU_EQUAL(&given, &now)) << "GSHMEM_CPU_BIND=" << mode << ": the mask changed";
    return;
  }
  int want = -1;
  for (int cpu = 0, k = index % cpus; cpu < CPU_SETSIZE && want < 0; ++cpu) {
    if (CPU_ISSET(cpu, &given) && k-- == 0) want = cpu;
  }
  ASSERT_EQ(CPU_COUNT(&now), 1) << "GSHMEM_CPU_BIND=" << mode << ": not bound to one CPU";
  EXPECT_TRUE(CPU_ISSET(want, &now)) << "node index " << index << " should be on CPU " << want;
}
