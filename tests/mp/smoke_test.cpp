// The first multi-PE check: every PE puts its number to every other PE and reads it back.
#include <gtest/gtest.h>

#include "gshmem/gshmem.h"

TEST(Smoke, PutToEveryPeer) {
  int me = gshmem_my_pe(), n = gshmem_n_pes();
  int* slots = static_cast<int*>(gshmem_calloc(size_t(n), sizeof(int)));
  for (int pe = 0; pe < n; ++pe) gshmem_int_p(&slots[me], me + 100, pe);
  gshmem_barrier_all();
  for (int pe = 0; pe < n; ++pe) EXPECT_EQ(slots[pe], pe + 100) << "slot of PE " << pe;
  gshmem_barrier_all();
  gshmem_free(slots);
}
