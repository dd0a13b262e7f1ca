// The unique-id (TCP rendezvous) bootstrap with processes this test starts itself, as torchrun
// would: through the environment (GSHMEM_BOOTSTRAP=uid, GSHMEM_BOOTSTRAP_UID_ADDR, GSHMEM_RANK,
// GSHMEM_NRANKS) and through the API (rank 0's gshmemx_get_uniqueid, handed to the others as hex,
// then gshmemx_set_attr_uniqueid_args + gshmemx_init_attr). A rank that is killed ends the others
// with a message naming it instead of a hang.
#include <gtest/gtest.h>

#include <memory>

#include "gshmem/types.h"
#include "tests/launcher/proc.hpp"

using namespace gshmem_test;

namespace {

const std::string kHelper = JOB_HELPER;

std::vector<std::string> uid_env(int rank, int nranks, int port) {
  return {"GSHMEM_BOOTSTRAP=uid", "GSHMEM_BOOTSTRAP_UID_ADDR=127.0.0.1:" + std::to_string(port),
          "GSHMEM_RANK=" + std::to_string(rank), "GSHMEM_NRANKS=" + std::to_string(nranks),
          "GSHMEM_TIMEOUT=30"};
}

void run_env_job(int nranks) {
  int port = free_port();
  ASSERT_GT(port, 0);
  std::vector<std::unique_ptr<Proc>> ranks;
  // Start the ranks in reverse: the others must wait for rank 0 to listen.
  for (int r = nranks - 1; r >= 0; --r) {
    ranks.push_back(std::make_unique<Proc>(std::vector<std::string>{kHelper, "work"},
                                           uid_env(r, nranks, port)));
  }
  for (size_t i = 0; i < ranks.size(); ++i) {
    int r = nranks - 1 - int(i);
    Outcome o = ranks[i]->wait(60);
    EXPECT_TRUE(o.finished && o.exited) << "rank " << r << ": " << o.describe();
    EXPECT_EQ(o.code, 0) << "rank " << r << ": " << o.describe();
    EXPECT_TRUE(contains(o.out, "work-ok pe=" + std::to_string(r) + " n=" + std::to_string(nranks)))
        << "rank " << r << ": " << o.describe();
  }
}

}  // namespace

TEST(UniqueId, EnvironmentBootstrap2) {
  run_env_job(2);
}
TEST(UniqueId, EnvironmentBootstrap4) {
  run_env_job(4);
}

TEST(UniqueId, ApiBootstrap) {
  const int nranks = 3;
  auto env = [&](int r) {
    return std::vector<std::string>{"MP_RANK=" + std::to_string(r),
                                    "MP_NRANKS=" + std::to_string(nranks),
                                    "GSHMEM_BOOTSTRAP_UID_IFNAME=lo", "GSHMEM_TIMEOUT=30"};
  };
  Proc root({kHelper, "uid_api"}, env(0));
  std::string hex = root.line_after("uid=", 30);
  ASSERT_EQ(hex.size(), 2u * GSHMEM_UNIQUEID_BYTES) << root.wait(5).describe();
  std::vector<std::unique_ptr<Proc>> others;
  for (int r = 1; r < nranks; ++r) {
    std::vector<std::string> e = env(r);
    e.push_back("MP_UID=" + hex);
    others.push_back(std::make_unique<Proc>(std::vector<std::string>{kHelper, "uid_api"}, e));
  }
  Outcome o0 = root.wait(60);
  EXPECT_EQ(o0.code, 0) << "rank 0: " << o0.describe();
  EXPECT_TRUE(contains(o0.out, "uid_api-ok pe=0 n=3")) << o0.describe();
  for (int r = 1; r < nranks; ++r) {
    Outcome o = others[size_t(r - 1)]->wait(60);
    EXPECT_EQ(o.code, 0) << "rank " << r << ": " << o.describe();
    EXPECT_TRUE(contains(o.out, "uid_api-ok pe=" + std::to_string(r) + " n=3")) << o.describe();
  }
}

// A rank killed while all are in a barrier loop: the survivors end, non-zero, within seconds,
// and say which rank went away.
void kill_one_rank(int victim) {
  const int nranks = 3;
  int port = free_port();
  ASSERT_GT(port, 0);
  std::vector<std::unique_ptr<Proc>> ranks;
  for (int r = 0; r < nranks; ++r) {
    ranks.push_back(std::make_unique<Proc>(std::vector<std::string>{kHelper, "loop"},
                                           uid_env(r, nranks, port)));
  }
  for (int r = 0; r < nranks; ++r) {
    ASSERT_TRUE(ranks[size_t(r)]->wait_for_output("ready pe=", 30))
        << "rank " << r << " did not start: " << ranks[size_t(r)]->wait(1).describe();
  }
  double start = now_s();
  ::kill(ranks[size_t(victim)]->pid(), SIGKILL);
  Outcome dead = ranks[size_t(victim)]->wait(10);
  EXPECT_EQ(dead.signal, SIGKILL);
  for (int r = 0; r < nranks; ++r) {
    if (r == victim) continue;
    Outcome o = ranks[size_t(r)]->wait(20);
    SCOPED_TRACE("rank " + std::to_string(r) + " after rank " + std::to_string(victim) +
                 " was killed");
    EXPECT_TRUE(o.finished) << "it hung: " << o.describe();
    EXPECT_TRUE(o.exited) << o.describe();
    EXPECT_NE(o.code, 0) << o.describe();
    EXPECT_LT(now_s() - start, 10) << o.describe();
    std::string name = victim == 0 ? "rank 0" : "PE " + std::to_string(victim);
    EXPECT_TRUE(contains(o.err, name)) << "the message does not name " << name << "\n"
                                       << o.describe();
  }
}

TEST(UniqueId, KilledRankEndsTheOthers) {
  kill_one_rank(1);
}
TEST(UniqueId, KilledRankZeroEndsTheOthers) {
  kill_one_rank(0);
}
