// main() for multi-PE GoogleTest programs run under gshmemrun.
//
// Every PE runs every test. Tests must reach the same collective calls on every PE even when an
// expectation fails, so use EXPECT_* (not ASSERT_*) around anything followed by a collective.
// Output: PE 0 prints the usual gtest report; other PEs print only their failures. The process
// exit status is non-zero on every PE when any PE had a failure.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>

#include "gshmem/gshmem.h"

namespace {

class FailuresOnly : public testing::EmptyTestEventListener {
 public:
  explicit FailuresOnly(int pe) : pe_(pe) {}
  void OnTestPartResult(const testing::TestPartResult& r) override {
    if (!r.failed()) return;
    std::fprintf(stderr, "[PE %d] FAILURE %s:%d\n%s\n", pe_, r.file_name() ? r.file_name() : "?",
                 r.line_number(), r.summary());
  }

 private:
  int pe_;
};

}  // namespace

int main(int argc, char** argv) {
  testing::InitGoogleTest(&argc, argv);
  // GSHMEM_HEAP=auto gives the CPU tests (which load and store heap memory from CPU code) a host
  // heap, and the GPU tests (which link gshmem::device) a GPU heap where a GPU is usable.
  gshmem_init();
  int me = gshmem_my_pe();
  if (me != 0) {
    auto& listeners = testing::UnitTest::GetInstance()->listeners();
    delete listeners.Release(listeners.default_result_printer());
    listeners.Append(new FailuresOnly(me));
  }
  int failed = RUN_ALL_TESTS() != 0 ? 1 : 0;

  int* failures = static_cast<int*>(gshmem_calloc(1, sizeof(int)));
  gshmem_int_atomic_add(failures, failed, 0);
  gshmem_barrier_all();
  int total = gshmem_int_g(failures, 0);
  if (me == 0 && total) std::fprintf(stderr, "%d PE(s) had failures\n", total);
  gshmem_free(failures);
  gshmem_finalize();
  return total ? 1 : 0;
}
