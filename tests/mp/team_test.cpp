// Teams: the predefined WORLD/SHARED/NODE/SAME_MYPE_NODE, split_strided and split_2d (members,
// my_pe, n_pes, translate_pe both ways, barriers inside the new teams), bad split arguments,
// destroy and re-split many more times than there are slots, running out of slots, get_config.
//
// Also run under gshmemrun --ppn: then SHARED = NODE = the PEs of this PE's virtual node, and
// PEs of other virtual nodes are not reachable until a network transport exists, so the splits
// use the NODE team as their parent and only same-node PEs talk.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "gshmem/gshmem.h"
#include "tests/common/mp_util.hpp"

using namespace gshmem_test;

namespace {

// The team the splits start from: the world, or this PE's node when nodes are split.
gshmem_team_t parent_team() {
  return split_nodes() ? GSHMEM_TEAM_NODE : GSHMEM_TEAM_WORLD;
}

std::vector<int> world_members(gshmem_team_t team) {
  std::vector<int> v;
  for (int i = 0; i < gshmem_team_n_pes(team); ++i) {
    v.push_back(gshmem_team_translate_pe(team, i, GSHMEM_TEAM_WORLD));
  }
  return v;
}

// Every member puts its team index into its slot on every member, team barrier, checks; the
// barrier is the team's, so only members take part. Collective over the parent (allocation).
void exercise(gshmem_team_t team, const std::vector<int>& expected_world_members, int rounds) {
  int n = gshmem_n_pes();
  int* slots = static_cast<int*>(gshmem_calloc(size_t(n), sizeof(int)));
  EXPECT_NE(slots, nullptr);
  if (slots && team != GSHMEM_TEAM_INVALID) {
    int size = gshmem_team_n_pes(team), me = gshmem_team_my_pe(team);
    EXPECT_EQ(world_members(team), expected_world_members);
    for (int r = 1; r <= rounds; ++r) {
      for (int i = 0; i < size; ++i) {
        gshmem_int_p(&slots[me], r * 100 + me,
                     gshmem_team_translate_pe(team, i, GSHMEM_TEAM_WORLD));
      }
      EXPECT_EQ(gshmem_barrier(team), 0);
      for (int i = 0; i < size; ++i) EXPECT_EQ(slots[i], r * 100 + i) << "slot of member " << i;
      EXPECT_EQ(gshmem_team_sync(team), 0);
    }
  }
  gshmem_barrier(parent_team());
  gshmem_free(slots);
}

}  // namespace

TEST(Teams, Predefined) {
  int me = gshmem_my_pe(), n = gshmem_n_pes();
  EXPECT_EQ(gshmem_team_n_pes(GSHMEM_TEAM_WORLD), n);
  EXPECT_EQ(gshmem_team_my_pe(GSHMEM_TEAM_WORLD), me);
  // The PEs this PE can load/store, as gshmem_ptr reports them, are its SHARED and NODE team.
  int* probe = static_cast<int*>(gshmem_malloc(sizeof(int)));
  ASSERT_NE(probe, nullptr);
  std::vector<int> mapped;
  for (int pe = 0; pe < n; ++pe) {
    if (gshmem_ptr(probe, pe)) mapped.push_back(pe);
  }
  EXPECT_EQ(gshmem_ptr(probe, me), probe) << "a PE's own copy is mapped at its own address";
  EXPECT_EQ(world_members(GSHMEM_TEAM_SHARED), mapped);
  EXPECT_EQ(world_members(GSHMEM_TEAM_NODE), mapped);
  int my_index = -1;
  for (size_t i = 0; i < mapped.size(); ++i) {
    if (mapped[i] == me) my_index = int(i);
  }
  EXPECT_EQ(gshmem_team_my_pe(GSHMEM_TEAM_SHARED), my_index);
  EXPECT_EQ(gshmem_team_my_pe(GSHMEM_TEAM_NODE), my_index);
  // gshmemrun --ppn k (the ctest entries say k in MP_TEST_PPN): PEs k*j .. k*j+k-1 form a node.
  const char* ppn = std::getenv("MP_TEST_PPN");
  int k = ppn ? std::atoi(ppn) : n;
  int first = me / k * k;
  std::vector<int> node;
  for (int pe = first; pe < first + k && pe < n; ++pe) node.push_back(pe);
  EXPECT_EQ(mapped, node) << "with " << k << " PEs per node, PEs " << first << ".." << first + k - 1
                          << " are one node";
  // SAME_MYPE_NODE: the PEs with this PE's index on their node, one per node, in PE order.
  std::vector<int> same_index;
  for (int pe = me % k; pe < n; pe += k) same_index.push_back(pe);
  EXPECT_EQ(world_members(GSHMEM_TEAM_SAME_MYPE_NODE), same_index);
  EXPECT_EQ(gshmem_team_my_pe(GSHMEM_TEAM_SAME_MYPE_NODE), me / k);
  EXPECT_EQ(gshmem_team_translate_pe(GSHMEM_TEAM_SAME_MYPE_NODE, 0, GSHMEM_TEAM_NODE),
            me < k ? me : -1)
      << "its first member, PE " << me % k << ", is on node 0";
  // translate_pe between the predefined teams.
  for (int i = 0; i < gshmem_team_n_pes(GSHMEM_TEAM_NODE); ++i) {
    int w = gshmem_team_translate_pe(GSHMEM_TEAM_NODE, i, GSHMEM_TEAM_WORLD);
    EXPECT_EQ(gshmem_team_translate_pe(GSHMEM_TEAM_WORLD, w, GSHMEM_TEAM_NODE), i);
    EXPECT_EQ(gshmem_team_translate_pe(GSHMEM_TEAM_NODE, i, GSHMEM_TEAM_SHARED), i);
  }
  for (int pe = 0; pe < n; ++pe) {
    bool local = gshmem_ptr(probe, pe) != nullptr;
    if (!local) {
      EXPECT_EQ(gshmem_team_translate_pe(GSHMEM_TEAM_WORLD, pe, GSHMEM_TEAM_NODE), -1)
          << "PE " << pe << " is on another node";
    }
  }
  EXPECT_EQ(gshmem_team_translate_pe(GSHMEM_TEAM_WORLD, n, GSHMEM_TEAM_NODE), -1);
  EXPECT_EQ(gshmem_team_translate_pe(GSHMEM_TEAM_WORLD, -1, GSHMEM_TEAM_NODE), -1);
  EXPECT_EQ(gshmem_team_translate_pe(GSHMEM_TEAM_INVALID, 0, GSHMEM_TEAM_WORLD), -1);
  EXPECT_EQ(gshmem_team_translate_pe(GSHMEM_TEAM_WORLD, 0, GSHMEM_TEAM_INVALID), -1);
  EXPECT_EQ(gshmem_team_n_pes(GSHMEM_TEAM_INVALID), -1);
  EXPECT_EQ(gshmem_team_my_pe(GSHMEM_TEAM_INVALID), -1);
  EXPECT_EQ(gshmem_team_n_pes(GSHMEM_MAX_TEAMS + 3), -1);
  // Barriers on the predefined teams (NODE and SHARED only talk within the node).
  EXPECT_EQ(gshmem_barrier(GSHMEM_TEAM_NODE), 0);
  EXPECT_EQ(gshmem_team_sync(GSHMEM_TEAM_SHARED), 0);
  gshmem_barrier(GSHMEM_TEAM_NODE);
  gshmem_free(probe);
}

TEST(Teams, GetConfig) {
  gshmem_team_config_t config{-7};
  EXPECT_EQ(gshmem_team_get_config(GSHMEM_TEAM_WORLD, GSHMEM_TEAM_NUM_CONTEXTS, &config), 0);
  EXPECT_GE(config.num_contexts, 0);
  config.num_contexts = -7;
  EXPECT_EQ(gshmem_team_get_config(GSHMEM_TEAM_NODE, 0, &config), 0);
  EXPECT_EQ(config.num_contexts, -7) << "a zero mask reads nothing";
  EXPECT_NE(gshmem_team_get_config(GSHMEM_TEAM_INVALID, GSHMEM_TEAM_NUM_CONTEXTS, &config), 0);
  EXPECT_NE(gshmem_team_get_config(GSHMEM_TEAM_WORLD, GSHMEM_TEAM_NUM_CONTEXTS, nullptr), 0);
}

TEST(Teams, SplitStrided) {
  gshmem_team_t parent = parent_team();
  int np = gshmem_team_n_pes(parent), me = gshmem_team_my_pe(parent);
  struct Case {
    int start, stride, size;
  };
  std::vector<Case> cases = {{0, 1, np}, {0, 2, (np + 1) / 2}, {np - 1, 1, 1}, {0, 0, 1}};
  if (np > 1) cases.push_back({1, 2, np / 2});
  if (np > 2) cases.push_back({1, np - 2, 2});
  for (const Case& c : cases) {
    SCOPED_TRACE("split_strided start " + std::to_string(c.start) + " stride " +
                 std::to_string(c.stride) + " size " + std::to_string(c.size) + " of " +
                 std::to_string(np));
    std::vector<int> members;
    bool member = false;
    int index = -1;
    for (int i = 0; i < c.size; ++i) {
      int p = c.start + i * c.stride;
      members.push_back(gshmem_team_translate_pe(parent, p, GSHMEM_TEAM_WORLD));
      if (p == me && !member) {
        member = true;
        index = i;
      }
    }
    gshmem_team_t team = 12345;
    EXPECT_EQ(gshmem_team_split_strided(parent, c.start, c.stride, c.size, nullptr, 0, &team), 0);
    if (member) {
      EXPECT_NE(team, GSHMEM_TEAM_INVALID);
      EXPECT_EQ(gshmem_team_n_pes(team), c.size);
      EXPECT_EQ(gshmem_team_my_pe(team), index);
      for (int i = 0; i < c.size; ++i) {
        int parent_pe = c.start + i * c.stride;
        EXPECT_EQ(gshmem_team_translate_pe(team, i, parent), parent_pe);
        EXPECT_EQ(gshmem_team_translate_pe(parent, parent_pe, team), i);
      }
      EXPECT_EQ(gshmem_team_translate_pe(team, c.size, parent), -1);
    } else {
      EXPECT_EQ(team, GSHMEM_TEAM_INVALID) << "non-members get GSHMEM_TEAM_INVALID";
      EXPECT_EQ(gshmem_team_translate_pe(parent, me, team), -1);
    }
    exercise(team, members, 20);
    gshmem_team_destroy(team);
  }
}

TEST(Teams, SplitStridedBadArguments) {
  gshmem_team_t parent = parent_team();
  int np = gshmem_team_n_pes(parent);
  struct Case {
    int start, stride, size;
    const char* why;
  } cases[] = {{0, 1, np + 1, "more PEs than the parent"},
               {np, 1, 1, "start past the end"},
               {-1, 1, 1, "negative start"},
               {0, 1, 0, "size 0"},
               {0, 0, 2, "stride 0 with two members"},
               {0, np, 2, "second member past the end"}};
  for (const auto& c : cases) {
    gshmem_team_t team = 12345;
    EXPECT_NE(gshmem_team_split_strided(parent, c.start, c.stride, c.size, nullptr, 0, &team), 0)
        << c.why;
    EXPECT_EQ(team, GSHMEM_TEAM_INVALID) << c.why;
  }
  gshmem_team_t team = 12345;
  // A PE in no parent (GSHMEM_TEAM_INVALID) gets no team and 0: the split is not an error.
  EXPECT_EQ(gshmem_team_split_strided(GSHMEM_TEAM_INVALID, 0, 1, 1, nullptr, 0, &team), 0);
  EXPECT_EQ(team, GSHMEM_TEAM_INVALID);
  gshmem_team_t x = 12345, y = 12345;
  EXPECT_EQ(gshmem_team_split_2d(GSHMEM_TEAM_INVALID, 2, nullptr, 0, &x, nullptr, 0, &y), 0);
  EXPECT_EQ(x, GSHMEM_TEAM_INVALID);
  EXPECT_EQ(y, GSHMEM_TEAM_INVALID);
  EXPECT_NE(gshmem_team_split_strided(GSHMEM_MAX_TEAMS + 1, 0, 1, 1, nullptr, 0, &team), 0);
  EXPECT_NE(gshmem_team_split_strided(parent, 0, 1, 1, nullptr, 0, nullptr), 0);
  // The job is still in step: a good split works.
  EXPECT_EQ(gshmem_team_split_strided(parent, 0, 1, np, nullptr, 0, &team), 0);
  EXPECT_NE(team, GSHMEM_TEAM_INVALID);
  gshmem_team_destroy(team);
}

TEST(Teams, Split2d) {
  gshmem_team_t parent = parent_team();
  int np = gshmem_team_n_pes(parent), me = gshmem_team_my_pe(parent);
  std::vector<int> xranges = {1, 2, 3, np, np + 2};
  for (int xrange : xranges) {
    SCOPED_TRACE("split_2d xrange " + std::to_string(xrange) + " of " + std::to_string(np));
    int x = xrange > np ? np : xrange;  // a wider row than the team is the whole team
    int row = me / x, col = me % x;
    std::vector<int> xmembers, ymembers;
    for (int i = row * x; i < np && i < (row + 1) * x; ++i) {
      xmembers.push_back(gshmem_team_translate_pe(parent, i, GSHMEM_TEAM_WORLD));
    }
    for (int i = col; i < np; i += x) {
      ymembers.push_back(gshmem_team_translate_pe(parent, i, GSHMEM_TEAM_WORLD));
    }
    gshmem_team_t xt = 12345, yt = 12345;
    EXPECT_EQ(gshmem_team_split_2d(parent, xrange, nullptr, 0, &xt, nullptr, 0, &yt), 0);
    EXPECT_NE(xt, GSHMEM_TEAM_INVALID);
    EXPECT_NE(yt, GSHMEM_TEAM_INVALID);
    EXPECT_NE(xt, yt);
    EXPECT_EQ(gshmem_team_n_pes(xt), int(xmembers.size()));
    EXPECT_EQ(gshmem_team_my_pe(xt), col);
    EXPECT_EQ(gshmem_team_n_pes(yt), int(ymembers.size()));
    EXPECT_EQ(gshmem_team_my_pe(yt), row);
    // x and y teams meet in exactly this PE.
    EXPECT_EQ(gshmem_team_translate_pe(xt, col, yt), row);
    exercise(xt, xmembers, 10);
    exercise(yt, ymembers, 10);
    gshmem_team_destroy(xt);
    gshmem_team_destroy(yt);
  }
  gshmem_team_t xt = 12345, yt = 12345;
  EXPECT_NE(gshmem_team_split_2d(parent, 0, nullptr, 0, &xt, nullptr, 0, &yt), 0);
  EXPECT_EQ(xt, GSHMEM_TEAM_INVALID);
  EXPECT_EQ(yt, GSHMEM_TEAM_INVALID);
}

// Splits of the world whose members sit on different (virtual) nodes: under --ppn their
// barriers and puts go through the network transport.
TEST(Teams, SplitOfWorldAcrossNodes) {
  int n = gshmem_n_pes(), me = gshmem_my_pe();
  for (int stride : {1, 2}) {
    int start = stride == 2 && n > 1 ? 1 : 0;
    int size = stride == 1 ? n : (n - start + 1) / 2;
    SCOPED_TRACE("world split start " + std::to_string(start) + " stride " +
                 std::to_string(stride));
    std::vector<int> members;
    for (int i = 0; i < size; ++i) members.push_back(start + i * stride);
    gshmem_team_t team = GSHMEM_TEAM_INVALID;
    EXPECT_EQ(gshmem_team_split_strided(GSHMEM_TEAM_WORLD, start, stride, size, nullptr, 0, &team),
              0);
    bool member = me >= start && (me - start) % stride == 0 && (me - start) / stride < size;
    EXPECT_EQ(team != GSHMEM_TEAM_INVALID, member);
    // exercise() synchronises the parent at the end; here that is the world.
    int* slots = static_cast<int*>(gshmem_calloc(size_t(n), sizeof(int)));
    EXPECT_NE(slots, nullptr);
    if (slots && member) {
      EXPECT_EQ(world_members(team), members);
      int idx = gshmem_team_my_pe(team);
      for (int r = 1; r <= 3; ++r) {
        for (int i = 0; i < size; ++i) gshmem_int_p(&slots[idx], r * 10 + idx, members[size_t(i)]);
        EXPECT_EQ(gshmem_barrier(team), 0);
        for (int i = 0; i < size; ++i) EXPECT_EQ(slots[i], r * 10 + i) << "member " << i;
        EXPECT_EQ(gshmem_team_sync(team), 0);
      }
    }
    gshmem_barrier_all();
    gshmem_free(slots);
    gshmem_team_destroy(team);
  }
}

// Far more create/destroy cycles than slots: destroyed slots must come back.
TEST(Teams, DestroyAndResplitManyTimes) {
  gshmem_team_t parent = parent_team();
  int np = gshmem_team_n_pes(parent), me = gshmem_team_my_pe(parent);
  const int cycles = 3 * GSHMEM_MAX_TEAMS;
  int failures = 0;
  gshmem_team_t first = GSHMEM_TEAM_INVALID;
  for (int c = 0; c < cycles; ++c) {
    // Alternate the whole parent and its even members, so member lists change between uses.
    bool evens = c % 2;
    int size = evens ? (np + 1) / 2 : np;
    gshmem_team_t team = GSHMEM_TEAM_INVALID;
    if (gshmem_team_split_strided(parent, 0, evens ? 2 : 1, size, nullptr, 0, &team) != 0) {
      ++failures;
      continue;
    }
    if (c == 0) first = team;
    if (!evens) {
      EXPECT_EQ(team, first) << "cycle " << c << ": the slot freed last time is reused";
    }
    bool member = !evens || me % 2 == 0;
    EXPECT_EQ(team != GSHMEM_TEAM_INVALID, member) << "cycle " << c;
    if (member) {
      EXPECT_EQ(gshmem_team_n_pes(team), size);
      EXPECT_EQ(gshmem_team_my_pe(team), evens ? me / 2 : me);
      EXPECT_EQ(gshmem_barrier(team), 0);
    }
    gshmem_team_destroy(team);
    if (member) {
      EXPECT_EQ(gshmem_team_n_pes(team), -1) << "destroyed team still answers";
    }
  }
  EXPECT_EQ(failures, 0) << "splits failed: slots are not reused after destroy";
}

// Every slot in use: the next split fails on every PE (without breaking the job), and destroying
// them all makes room again.
TEST(Teams, RunningOutOfSlots) {
  gshmem_team_t parent = parent_team();
  int np = gshmem_team_n_pes(parent);
  std::vector<gshmem_team_t> made;
  for (int i = 0; i < GSHMEM_MAX_TEAMS + 2; ++i) {
    gshmem_team_t team = 12345;
    if (gshmem_team_split_strided(parent, 0, 1, np, nullptr, 0, &team) != 0) {
      EXPECT_EQ(team, GSHMEM_TEAM_INVALID);
      break;
    }
    made.push_back(team);
  }
  EXPECT_EQ(int(made.size()), GSHMEM_MAX_TEAMS - 4) << "every slot but the predefined four";
  for (gshmem_team_t t : made) gshmem_team_destroy(t);
  gshmem_team_t team = GSHMEM_TEAM_INVALID;
  EXPECT_EQ(gshmem_team_split_strided(parent, 0, 1, np, nullptr, 0, &team), 0);
  EXPECT_EQ(gshmem_barrier(team), 0);
  gshmem_team_destroy(team);
}

// Destroying a predefined team is refused (with a message) and the team keeps working.
TEST(Teams, PredefinedCannotBeDestroyed) {
  testing::internal::CaptureStderr();
  gshmem_team_destroy(GSHMEM_TEAM_NODE);
  std::string err = testing::internal::GetCapturedStderr();
  EXPECT_NE(err.find("gshmem_team_destroy"), std::string::npos) << err;
  EXPECT_GT(gshmem_team_n_pes(GSHMEM_TEAM_NODE), 0);
  EXPECT_EQ(gshmem_barrier(GSHMEM_TEAM_NODE), 0);
  testing::internal::CaptureStderr();
  gshmem_team_destroy(GSHMEM_TEAM_SAME_MYPE_NODE);
  err = testing::internal::GetCapturedStderr();
  EXPECT_NE(err.find("gshmem_team_destroy"), std::string::npos) << err;
  EXPECT_GT(gshmem_team_n_pes(GSHMEM_TEAM_SAME_MYPE_NODE), 0);
}
