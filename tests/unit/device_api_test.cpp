// The host path of the shared device API, in one process, over a hand-made DeviceContext: three
// "PEs" whose heaps are plain buffers here, so address translation, the bounds and argument
// checks, the error reports and the wait helper's timeout and abort can be checked without
// starting a job.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include "gshmem/device.cuh"
#include "gshmem/gshmem.h"
#include "gshmem/gshmem.hpp"
#include "host/runtime/push_copy.hpp"

namespace {

using gshmem::DeviceContext;
using gshmem::Error;

// PE 0's view of a 3-PE job: PEs 0 and 1 are mapped here, PE 2 is not (another node) unless
// map_all. The heaps are 64 KiB each; a second segment plays the program's static data.
struct FakeJob {
  static constexpr int kPes = 3;
  static constexpr size_t kHeap = 64 * 1024, kStatics = 4096;
  // Each heap has 64 spare bytes on either side, so out-of-range addresses stay inside this
  // object (the compiler can see through the calls).
  alignas(64) char arena[kPes][kHeap + 128] = {};
  alignas(64) char statics[kPes][kStatics] = {};
  char* heaps[kPes];
  char* heap_bases[kPes];
  char* static_bases[kPes];
  uint32_t abort_flag = 0;
  DeviceContext ctx{};

  explicit FakeJob(bool map_all = false) {
    for (int pe = 0; pe < kPes; ++pe) heaps[pe] = arena[pe] + 64;
    for (int pe = 0; pe < kPes; ++pe) {
      bool mapped = map_all || pe != 2;
      heap_bases[pe] = mapped ? heaps[pe] : nullptr;
      static_bases[pe] = mapped ? statics[pe] : nullptr;
    }
    ctx.my_pe = 0;
    ctx.n_pes = kPes;
    ctx.spins_before_yield = 16;
    ctx.heap = gshmem::Segment{heaps[0], kHeap, heap_bases};
    ctx.statics = gshmem::Segment{statics[0], kStatics, static_bases};
    ctx.abort_flag = &abort_flag;
  }
  char* mine(size_t off) { return heaps[0] + off; }
  char* on(int pe, size_t off) { return heaps[pe] + off; }
};

class DeviceApi : public testing::Test {
 protected:
  void SetUp() override { gshmemx_set_error_mode(GSHMEMX_ERROR_THROW); }
  void TearDown() override { gshmemx_set_error_mode(GSHMEMX_ERROR_ABORT); }
};

// Runs fn; returns the gshmem::Error it threw (status -1 when it threw none).
template <class Fn>
Error caught(Fn&& fn) {
  try {
    fn();
  } catch (const Error& e) {
    return e;
  }
  return Error(-1, "", "", "no error");
}

}  // namespace

TEST_F(DeviceApi, PutAndGetTranslateToTheSameOffset) {
  FakeJob job;
  const char text[] = "symmetric";
  gshmem::putmem(job.ctx, job.mine(100), text, sizeof text, 1);
  EXPECT_STREQ(job.on(1, 100), text);
  EXPECT_EQ(job.on(0, 100)[0], 0) << "the local copy is not the target";
  char back[sizeof text] = {};
  gshmem::getmem(job.ctx, back, job.mine(100), sizeof text, 1);
  EXPECT_STREQ(back, text);
  int v = 42;
  gshmem::p(job.ctx, reinterpret_cast<int*>(job.mine(256)), v, 1);
  EXPECT_EQ(gshmem::g(job.ctx, reinterpret_cast<int*>(job.mine(256)), 1), 42);
  // Static data: the second segment.
  gshmem::p(job.ctx, reinterpret_cast<int*>(job.statics[0] + 8), 7, 1);
  EXPECT_EQ(*reinterpret_cast<int*>(job.statics[1] + 8), 7);
}

TEST_F(DeviceApi, StridedTransfers) {
  FakeJob job;
  int src[9];
  for (int i = 0; i < 9; ++i) src[i] = i;
  int* dst = reinterpret_cast<int*>(job.mine(0));
  gshmem::iput(job.ctx, dst, src, 2, 3, 3, 1);  // src 0,3,6 -> dst 0,2,4
  int* peer = reinterpret_cast<int*>(job.on(1, 0));
  EXPECT_EQ(peer[0], 0);
  EXPECT_EQ(peer[1], 0);
  EXPECT_EQ(peer[2], 3);
  EXPECT_EQ(peer[4], 6);
  int got[6] = {-1, -1, -1, -1, -1, -1};
  gshmem::iget(job.ctx, got, dst, 3, 2, 2, 1);  // peer 0,2 -> got 0,3
  EXPECT_EQ(got[0], 0);
  EXPECT_EQ(got[1], -1);
  EXPECT_EQ(got[3], 3);
}

TEST_F(DeviceApi, BoundsAtTheEndOfTheHeap) {
  FakeJob job;
  char c[2] = {'x', 'y'};
  // Zero bytes at the very end is fine; one byte there is not.
  EXPECT_NO_THROW(gshmem::putmem(job.ctx, job.mine(FakeJob::kHeap), c, 0, 1));
  EXPECT_NO_THROW(gshmem::putmem(job.ctx, job.mine(FakeJob::kHeap - 1), c, 1, 1));
  EXPECT_EQ(job.on(1, FakeJob::kHeap - 1)[0], 'x');
  Error e = caught([&] { gshmem::putmem(job.ctx, job.mine(FakeJob::kHeap - 1), c, 2, 1); });
  EXPECT_EQ(e.status(), GSHMEM_ERROR_INVALID_ARGUMENT) << e.what();
  EXPECT_EQ(e.argument(), "size") << e.what();
  e = caught([&] { gshmem::putmem(job.ctx, job.mine(FakeJob::kHeap), c, 1, 1); });
  EXPECT_EQ(e.argument(), "size") << e.what();
  // One past the end with bytes is outside; just before the start is outside.
  e = caught([&] { gshmem::putmem(job.ctx, job.mine(0) - 1, c, 1, 1); });
  EXPECT_EQ(e.argument(), "dest") << e.what();
}

TEST_F(DeviceApi, BadArgumentsNameCallAndArgument) {
  FakeJob job;
  int src[4] = {};
  int* dst = reinterpret_cast<int*>(job.mine(64));
  struct Case {
    const char* what;
    std::function<void()> call;
    const char* arg;
    const char* text;
  } cases[] = {
      {"pe", [&] { gshmem::put(job.ctx, dst, src, 4, 3, {"gshmem_int_put"}); }, "pe", "pe=3"},
      {"negative pe", [&] { gshmem::p(job.ctx, dst, 1, -1, {"gshmem_int_p"}); }, "pe", "pe=-1"},
      {"stack dest", [&] { gshmem::put(job.ctx, src, src, 4, 1, {"gshmem_int_put"}); }, "dest",
       "dest="},
      {"stack source", [&] { gshmem::get(job.ctx, src, src, 4, 1, {"gshmem_int_get"}); }, "source",
       "source="},
      {"overflow", [&] { gshmem::put(job.ctx, dst, src, SIZE_MAX / 2, 1, {"gshmem_int_put"}); },
       "size", "size"},
      {"stride 0", [&] { gshmem::iput(job.ctx, dst, src, 0, 1, 2, 1, {"gshmem_int_iput"}); },
       "stride", "stride=0"},
      {"cmp", [&] { gshmem::wait_until(job.ctx, dst, 77, 0, {"gshmem_int_wait_until"}); }, "cmp",
       "cmp=77"},
      {"sig_op",
       [&] {
         gshmem::signal_op(job.ctx, reinterpret_cast<uint64_t*>(dst), 1, 9, 1,
                           {"gshmem_signal_op"});
       },
       "sig_op", "sig_op=9"},
  };
  for (const Case& c : cases) {
    Error e = caught(c.call);
    EXPECT_EQ(e.status(), GSHMEM_ERROR_INVALID_ARGUMENT) << c.what << ": " << e.what();
    EXPECT_EQ(e.argument(), c.arg) << c.what << ": " << e.what();
    EXPECT_NE(std::string(e.what()).find(c.text), std::string::npos) << c.what << ": " << e.what();
    EXPECT_NE(std::string(e.what()).find(e.call()), std::string::npos) << e.what();
  }
  // None of them wrote anything anywhere.
  for (int pe = 0; pe < FakeJob::kPes; ++pe) {
    for (size_t i = 0; i < FakeJob::kHeap; ++i) {
      if (job.heaps[pe][i]) {
        ADD_FAILURE() << "PE " << pe << "'s heap changed at byte " << i;
        break;
      }
    }
  }
}

TEST_F(DeviceApi, UnmappedPeerWithoutTransport) {
  FakeJob job;
  int v = 5;
  Error e = caught([&] { gshmem::p(job.ctx, reinterpret_cast<int*>(job.mine(0)), v, 2); });
  EXPECT_EQ(e.status(), GSHMEM_ERROR_TRANSPORT) << e.what();
  EXPECT_NE(std::string(e.what()).find("no transport to PE 2"), std::string::npos) << e.what();
  EXPECT_EQ(job.heaps[2][0], 0);
}

TEST_F(DeviceApi, BeforeInitIsReported) {
  DeviceContext none{};  // what the C API sees before gshmem_init
  int v = 0;
  Error e = caught([&] { gshmem::p(none, &v, 1, 0, {"gshmem_int_p"}); });
  EXPECT_EQ(e.status(), GSHMEM_ERROR_NOT_INITIALIZED) << e.what();
  EXPECT_NE(std::string(e.what()).find("gshmem_int_p"), std::string::npos) << e.what();
  EXPECT_NE(std::string(e.what()).find("gshmem_init"), std::string::npos) << e.what();
  // Through the C API too (this process never initialised gshmem).
  e = caught([&] { gshmem_int_p(&v, 1, 0); });
  EXPECT_EQ(e.status(), GSHMEM_ERROR_NOT_INITIALIZED) << e.what();
  EXPECT_NE(std::string(e.what()).find("before gshmem_init"), std::string::npos) << e.what();
}

TEST_F(DeviceApi, Atomics) {
  FakeJob job;
  auto* x = reinterpret_cast<uint64_t*>(job.mine(128));
  using gshmem::AmoOp;
  gshmem::atomic<AmoOp::Set>(job.ctx, x, uint64_t(10), uint64_t(0), 1);
  EXPECT_EQ(gshmem::atomic<AmoOp::FetchAdd>(job.ctx, x, uint64_t(5), uint64_t(0), 1), 10u);
  EXPECT_EQ(gshmem::atomic<AmoOp::CompareSwap>(job.ctx, x, uint64_t(1), uint64_t(15), 1), 15u);
  EXPECT_EQ(gshmem::atomic<AmoOp::FetchXor>(job.ctx, x, uint64_t(3), uint64_t(0), 1), 1u);
  EXPECT_EQ(*reinterpret_cast<uint64_t*>(job.on(1, 128)), 2u);
  EXPECT_EQ(*x, 0u) << "PE 0's own copy is untouched";
  auto* f = reinterpret_cast<float*>(job.mine(256));
  gshmem::atomic<AmoOp::Set>(job.ctx, f, 1.5f, 0.0f, 1);
  EXPECT_EQ(gshmem::atomic<AmoOp::Swap>(job.ctx, f, 2.5f, 0.0f, 1), 1.5f);
  Error e = caught([&] {
    gshmem::atomic<AmoOp::Add>(job.ctx, reinterpret_cast<uint64_t*>(job.mine(4)), uint64_t(1),
                               uint64_t(0), 1, {"gshmem_uint64_atomic_add"});
  });
  EXPECT_EQ(e.status(), GSHMEM_ERROR_INVALID_ARGUMENT) << e.what();
  EXPECT_NE(std::string(e.what()).find("misaligned"), std::string::npos) << e.what();
}

TEST_F(DeviceApi, PutSignalWritesDataThenSignal) {
  FakeJob job;
  auto* sig = reinterpret_cast<uint64_t*>(job.mine(0));
  const char data[] = "payload";
  gshmem::putmem_signal(job.ctx, job.mine(64), data, sizeof data, sig, 3, GSHMEM_SIGNAL_SET, 1);
  gshmem::putmem_signal(job.ctx, job.mine(64), data, 0, sig, 4, GSHMEM_SIGNAL_ADD, 1);
  EXPECT_STREQ(job.on(1, 64), "payload");
  EXPECT_EQ(*reinterpret_cast<uint64_t*>(job.on(1, 0)), 7u);
  EXPECT_EQ(*sig, 0u);
}

TEST_F(DeviceApi, WaitsTimeOutWithGshmemTimeout) {
  FakeJob job;
  job.ctx.timeout_ns = 100 * 1000 * 1000;
  auto* v = reinterpret_cast<int*>(job.mine(0));
  auto start = std::chrono::steady_clock::now();
  Error e = caught([&] {
    gshmem::wait_until(job.ctx, v, GSHMEM_CMP_EQ, 1, {"gshmem_int_wait_until", 2});
  });
  double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_EQ(e.status(), GSHMEM_ERROR_TIMEOUT) << e.what();
  EXPECT_GE(s, 0.1);
  EXPECT_LT(s, 5.0);
  EXPECT_NE(std::string(e.what()).find("gshmem_int_wait_until"), std::string::npos) << e.what();
  EXPECT_NE(std::string(e.what()).find("PE 2"), std::string::npos)
      << "names the PE it waited for: " << e.what();
}

TEST_F(DeviceApi, WaitsEndWhenTheJobAborts) {
  FakeJob job;
  job.abort_flag = 1;
  auto* v = reinterpret_cast<uint64_t*>(job.mine(0));
  Error e = caught([&] { gshmem::signal_wait_until(job.ctx, v, GSHMEM_CMP_NE, 0); });
  EXPECT_EQ(e.status(), GSHMEM_ERROR_ABORTED) << e.what();
  // A condition that already holds returns without looking at the flag.
  *v = 3;
  EXPECT_EQ(gshmem::signal_wait_until(job.ctx, v, GSHMEM_CMP_NE, 0), 3u);
}

// The streamed copy (pushes of 64 KiB or more, gshmem/device/group.cuh) at every destination
// alignment it handles in parts (a head up to 16 bytes, 64-byte steps, 16-byte steps, a tail):
// exactly the bytes asked for land, none around them change.
TEST(Push, StreamStoreCopiesExactlyAtEveryAlignment) {
  const size_t lengths[] = {0, 1, 15, 16, 17, 63, 64, 65, 127, 4095, (64u << 10) + 7};
  std::vector<char> src((64u << 10) + 64), dst((64u << 10) + 256);
  for (size_t i = 0; i < src.size(); ++i) src[i] = char(i * 7 + 3);
  for (size_t n : lengths) {
    for (size_t at = 0; at < 20; ++at) {
      for (size_t from = 0; from < 3; ++from) {
        std::fill(dst.begin(), dst.end(), char(0x5a));
        gshmem::detail::stream_store(dst.data() + 64 + at, src.data() + from, n);
        gshmem::detail::stream_fence();
        ASSERT_EQ(std::memcmp(dst.data() + 64 + at, src.data() + from, n), 0)
            << "n=" << n << " at=" << at << " from=" << from;
        for (size_t i = 0; i < dst.size(); ++i) {
          if (i >= 64 + at && i < 64 + at + n) continue;
          ASSERT_EQ(dst[i], char(0x5a)) << "byte " << i << " changed, n=" << n << " at=" << at;
        }
      }
    }
  }
}

// The pacer of a thread's pushes: the first pushes untimed, a streak only after two slow plain
// pushes in a row, doubled while plain stays slow, back to the first length after a fast one.
TEST(Push, PacerStreamsAfterTwoSlowPushesInARow) {
  using gshmem::detail::PushPacer;
  PushPacer p;
  const size_t n = 256 << 10;
  const uint64_t slow = uint64_t(n / PushPacer::kSlowBytesPerNs) * 2, fast = slow / 8;
  auto streamed_run = [&] {
    uint32_t k = 0;
    while (p.stream_next()) ++k;
    return k;
  };
  for (uint32_t i = 0; i < PushPacer::kUntimedPushes; ++i) p.plain_took(n, slow);
  EXPECT_EQ(streamed_run(), 0u) << "the first pushes fault pages in: not judged";
  p.plain_took(n, slow);
  p.plain_took(n, fast);
  p.plain_took(n, slow);
  EXPECT_EQ(streamed_run(), 0u) << "slow, fast, slow: no two in a row";
  p.plain_took(n, slow);
  EXPECT_EQ(streamed_run(), PushPacer::kFirstStreak);
  p.plain_took(n, slow);
  p.plain_took(n, slow);
  EXPECT_EQ(streamed_run(), 2 * PushPacer::kFirstStreak) << "still slow after a streak: doubled";
  for (int i = 0; i < 20; ++i) {
    p.plain_took(n, slow);
    p.plain_took(n, slow);
    EXPECT_LE(streamed_run(), PushPacer::kMaxStreak);
  }
  p.plain_took(n, fast);
  p.plain_took(n, slow);
  p.plain_took(n, slow);
  EXPECT_EQ(streamed_run(), PushPacer::kFirstStreak) << "a fast push resets the streak";
}
