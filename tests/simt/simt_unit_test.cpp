// Host thread groups in one process, without PEs: the ranks and sizes each thread of a grid
// sees, that a sync orders every member's writes before every member's reads, the kernels' copy
// loop (group_copy) over every alignment and tail, and the errors: groups whose threads make
// different syncs, an exception in one thread, bad grids, Warp used outside a grid.
#include <gtest/gtest.h>

#include <atomic>
#include <cstring>
#include <stdexcept>
#include <vector>

#include "gshmem/device/group.cuh"
#include "gshmem/gshmem.h"
#include "gshmem/gshmem.hpp"
#include "gshmem/simt.hpp"

namespace simt = gshmem::simt;
using gshmem::Block;
using gshmem::Warp;

namespace {

class ThrowMode {
 public:
  ThrowMode() { gshmemx_set_error_mode(GSHMEMX_ERROR_THROW); }
  ~ThrowMode() { gshmemx_set_error_mode(GSHMEMX_ERROR_ABORT); }
};

struct Seen {
  unsigned block, brank, bsize, wrank, wsize;
};

}  // namespace

TEST(Simt, RanksAndSizes) {
  for (simt::Grid g : {simt::Grid{1, 1, 1}, simt::Grid{3, 64, 32}, simt::Grid{2, 24, 8}}) {
    std::vector<Seen> seen(size_t(g.blocks) * g.threads);
    std::atomic<int> bad{0};
    simt::run(g, [&](unsigned b) {
      if (!simt::in_group() || gshmem::block_in_grid() != b) ++bad;
      seen[size_t(b) * g.threads + Block::rank()] = {b, Block::rank(), Block::size(), Warp::rank(),
                                                     Warp::size()};
    });
    EXPECT_EQ(bad.load(), 0);
    for (unsigned b = 0; b < g.blocks; ++b) {
      for (unsigned t = 0; t < g.threads; ++t) {
        const Seen& s = seen[size_t(b) * g.threads + t];
        EXPECT_EQ(s.block, b);
        EXPECT_EQ(s.brank, t);
        EXPECT_EQ(s.bsize, g.threads);
        EXPECT_EQ(s.wrank, t % g.warp);
        EXPECT_EQ(s.wsize, g.warp);
      }
    }
  }
  EXPECT_FALSE(simt::in_group());
}

// Each round every member writes its slot, syncs, and reads every slot of its group: a sync that
// let a member through early would show last round's value (and a data race under TSan).
template <class G>
void phases(const simt::Grid& g) {
  const unsigned per = std::is_same_v<G, Warp> ? g.warp : g.threads;
  std::vector<unsigned> slot(size_t(g.blocks) * g.threads, 0);
  std::atomic<int> bad{0};
  simt::run(g, [&](unsigned b) {
    unsigned* mine = slot.data() + size_t(b) * g.threads + (Block::rank() - G::rank());
    for (unsigned round = 1; round <= 200; ++round) {
      mine[G::rank()] = round;
      G::sync();
      for (unsigned i = 0; i < per; ++i) bad += mine[i] != round;
      G::sync();
    }
  });
  EXPECT_EQ(bad.load(), 0);
}

TEST(Simt, SyncOrdersTheGroup) {
  phases<Block>({2, 16, 8});
  phases<Warp>({2, 16, 8});
  phases<Warp>({1, 64, 32});
}

// group_copy's strided loop (16-, 8-, 4-byte units by alignment, then bytes) by a whole group,
// against memcpy: every offset pair modulo 16 and sizes around every unit and unroll boundary.
template <class G>
void copies(const simt::Grid& g) {
  constexpr size_t kMax = 5000;
  std::vector<unsigned char> src(kMax + 32), dst(kMax + 32), want(kMax + 32);
  for (size_t i = 0; i < src.size(); ++i) src[i] = static_cast<unsigned char>(i * 131 + 7);
  const size_t sizes[] = {0, 1, 3, 15, 16, 17, 63, 64, 65, 255, 511, 1000, 4099, kMax};
  std::atomic<int> bad{0};
  simt::run(g, [&](unsigned) {
    for (unsigned so = 0; so < 16; so += 3) {
      for (unsigned doff = 0; doff < 16; doff += (so % 2 ? 5 : 4)) {
        for (size_t n : sizes) {
          if (G::rank() == 0) {
            std::memset(dst.data(), 0xA5, dst.size());
            want = dst;
            std::memcpy(want.data() + doff, src.data() + so, n);
          }
          G::sync();
          gshmem::detail::group_copy<G>(dst.data() + doff, src.data() + so, n);
          G::sync();
          if (G::rank() == 0 && dst != want && ++bad <= 3) {
            ADD_FAILURE() << G::name << " copy of " << n << " bytes, src offset " << so
                          << ", dst offset " << doff;
          }
          G::sync();
        }
      }
    }
  });
  EXPECT_EQ(bad.load(), 0);
}

// One group per grid: the buffers are shared by its threads.
TEST(Simt, GroupCopyEveryAlignment) {
  copies<Warp>({1, 8, 8});
  copies<Block>({1, 12, 4});
  copies<Warp>({1, 32, 32});
}

TEST(Simt, ExtraSyncIsReported) {
  ThrowMode throws;
  try {
    simt::run({2, 8, 4}, [](unsigned b) {
      Block::sync();
      if (b == 1 && Block::rank() == 5) Block::sync();  // one member syncs once more
    });
    FAIL() << "no error";
  } catch (const gshmem::Error& e) {
    EXPECT_EQ(e.call(), "gshmem::simt::run");
    EXPECT_NE(std::string(e.what()).find("of block 1"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("same syncs"), std::string::npos) << e.what();
  }
}

TEST(Simt, EarlyReturnIsReported) {
  ThrowMode throws;
  try {
    simt::run({1, 8, 4}, [](unsigned) {
      if (Warp::rank() == 0) return;  // the others wait for it
      Warp::sync();
    });
    FAIL() << "no error";
  } catch (const gshmem::Error& e) {
    // Whichever side notices first says so: the waiter, or the thread that returns.
    EXPECT_NE(std::string(e.what()).find("warp sync"), std::string::npos) << e.what();
  }
}

// An exception in one thread stops its group-mates waiting at a sync and comes out of run().
TEST(Simt, ExceptionEndsTheGrid) {
  EXPECT_THROW(simt::run({2, 8, 8},
                         [](unsigned b) {
                           if (b == 1 && Block::rank() == 3) throw std::runtime_error("boom");
                           for (int i = 0; i < 3; ++i) Block::sync();
                         }),
               std::runtime_error);
}

TEST(Simt, BadGridsAndStrayGroups) {
  ThrowMode throws;
  for (simt::Grid g :
       {simt::Grid{0, 8, 8}, simt::Grid{1, 12, 8}, simt::Grid{1, 8, 0}, simt::Grid{100, 512, 32}}) {
    try {
      simt::run(g, [](unsigned) {});
      ADD_FAILURE() << "grid {" << g.blocks << ", " << g.threads << ", " << g.warp << "} ran";
    } catch (const gshmem::Error& e) {
      EXPECT_EQ(e.argument(), "grid") << e.what();
    }
  }
  try {
    (void)Warp::rank();
    ADD_FAILURE() << "Warp outside a grid";
  } catch (const gshmem::Error& e) {
    EXPECT_EQ(e.call(), "gshmem::Warp") << e.what();
  }
  std::atomic<int> nested{0};
  EXPECT_THROW(simt::run({1, 2, 2},
                         [&](unsigned) {
                           if (Block::rank() == 0)
                             simt::run({1, 1, 1}, [&](unsigned) { ++nested; });
                         }),
               gshmem::Error);
  EXPECT_EQ(nested.load(), 0);
}
