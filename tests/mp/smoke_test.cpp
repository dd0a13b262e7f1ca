// The first multi-PE check: every PE puts its number to every other PE and reads it back.
#include <gtest/gtest.h>

#include <cstdlib>

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
