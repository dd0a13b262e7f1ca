// PEs that fork, checked from outside: jobs of 4 fork_pe PEs (FORK_PE), each forking a child per
// round while the parents run RMA, atomics and an allreduce, on one node and across virtual nodes
// on both providers. The job must end in time with every PE's "fork-ok" (every value and every
// child's exit status right), and leave nothing behind: no process, no /dev/shm or /tmp entry of
// the job's PEs or children.
//
// FORK_TEST_ROUNDS sets the rounds (default 3; longer runs: FORK_TEST_ROUNDS=200).
#include <gtest/gtest.h>

#include <thread>

#include "tests/launcher/proc.hpp"

using namespace gshmem_test;

namespace {

const std::string kRun = GSHMEMRUN;
const std::string kPe = FORK_PE;

int rounds() {
  const char* s = std::getenv("FORK_TEST_ROUNDS");
  return s && std::atoi(s) > 0 ? std::atoi(s) : 3;
}

// The pids after `key` on the PEs' lines: " pid=" their own, " pids=" their children's ("a,b,c").
std::vector<int> pids_after(const std::string& out, const std::string& key) {
  std::vector<int> pids;
  for (size_t at = out.find(key); at != std::string::npos; at = out.find(key, at + 1)) {
    const char* p = out.c_str() + at + key.size();
    while (*p >= '0' && *p <= '9') {
      pids.push_back(std::atoi(p));
      while (*p >= '0' && *p <= '9') ++p;
      if (*p == ',') ++p;
    }
  }
  return pids;
}

// New entries of dir since `before` that are the job's: a pid of the job in the name (what
// libfabric and gshmem name files by), and still there a moment later. (Other engineers' jobs
// share this machine's /tmp and /dev/shm, so a "gshmem" in the name says nothing about whose.)
std::vector<std::string> leftovers(const std::string& dir, const std::set<std::string>& before,
                                   const std::vector<int>& pids) {
  auto ours = [&](const std::string& name) {
    if (before.count(name)) return false;
    for (int pid : pids) {
      if (contains(name, std::to_string(pid))) return true;
    }
    return false;
  };
  std::vector<std::string> found;
  for (const std::string& name : list_dir(dir)) {
    if (ours(name)) found.push_back(name);
  }
  if (found.empty()) return found;
  std::this_thread::sleep_for(std::chrono::seconds(1));
  std::set<std::string> later = list_dir(dir);
  std::vector<std::string> still;
  for (const std::string& f : found) {
    if (later.count(f)) still.push_back(dir + "/" + f);
  }
  return still;
}

struct Case {
  std::vector<std::string> opts;  // gshmemrun options: layout
  std::vector<std::string> env;   // the provider
  std::string child = "read";
  int want_code = 0;
};

// Runs the job and checks how it ended and what it left; returns the outcome for more checks.
Outcome run_job(const Case& c, const char* what) {
  std::string marker = unique_marker(what);
  std::set<std::string> shm_before = list_dir("/dev/shm"), tmp_before = list_dir("/tmp");
  // A hang ends in 50 s with gshmemrun's report (status 124), well before ctest's limit; the
  // bootstrap's own timeout is shortened to match.
  std::vector<std::string> argv = {kRun, "-n", "4", "--timeout", "50"};
  argv.insert(argv.end(), c.opts.begin(), c.opts.end());
  argv.insert(argv.end(), {kPe, "--rounds", std::to_string(rounds()), "--child", c.child, marker});
  std::vector<std::string> env = c.env;
  env.push_back("GSHMEM_TIMEOUT=40");
  env.push_back("GSHMEM_BOOTSTRAP_TIMEOUT=40");
  Outcome o = run(argv, env, 60);
  EXPECT_TRUE(o.finished) << o.describe();
  EXPECT_TRUE(o.exited) << o.describe();
  EXPECT_EQ(o.code, c.want_code) << o.describe();
  if (c.want_code == 0) {
    EXPECT_EQ(count(o.out, "fork-ok pe="), 4) << o.describe();
    EXPECT_EQ(count(o.out, "fork-FAIL"), 0) << o.describe();
    std::vector<int> kids = pids_after(o.out, " pids="), pids = pids_after(o.out, " pid=");
    EXPECT_EQ(kids.size(), size_t(4 * rounds())) << o.describe();
    EXPECT_EQ(pids.size(), 4u) << o.describe();
    pids.insert(pids.end(), kids.begin(), kids.end());
    EXPECT_EQ(leftovers("/dev/shm", shm_before, pids), std::vector<std::string>{});
    EXPECT_EQ(leftovers("/tmp", tmp_before, pids), std::vector<std::string>{});
  }
  // gshmemrun has returned: no PE and no child may still run. (Those that do are ended, so that a
  // failure leaves nothing running either: forked children outlive the PEs' process groups.)
  std::vector<int> running = pids_with(marker);
  EXPECT_TRUE(running.empty()) << running.size() << " processes of the job are still running";
  for (int pid : running) ::kill(pid, SIGKILL);
  return o;
}

const std::vector<std::string> kTcp = {"GSHMEM_FABRIC_PROVIDER=tcp;ofi_rxm"};
const std::vector<std::string> kSockets = {"GSHMEM_FABRIC_PROVIDER=sockets",
                                           "GSHMEM_FABRIC_ATOMICS=emulated",
                                           "GSHMEM_FABRIC_FORCE_MR_LOCAL=1"};

}  // namespace

// One node: every heap is shared memory; the children read it, then exit(0).
TEST(Fork, ChildrenOnOneNode) {
  run_job({{}, {}}, "fork-node");
}

// Two virtual nodes of two PEs: half the peers over the fabric, through the proxy.
TEST(Fork, ChildrenAcrossNodesTcp) {
  run_job({{"--ppn", "2"}, kTcp}, "fork-tcp");
}

TEST(Fork, ChildrenAcrossNodesSockets) {
  run_job({{"--ppn", "2"}, kSockets}, "fork-sockets");
}

// A child that calls gshmem gets errors naming the call and the PE it was forked from (it checks
// the text and exits 42, which the parent checks); the parents' job goes on.
TEST(Fork, ChildCallsFailClearly) {
  run_job({{"--ppn", "2"}, kTcp, "call"}, "fork-call");
}

// In the default error mode a child's call ends the child alone, with the message on stderr.
TEST(Fork, ChildCallEndsOnlyTheChild) {
  Outcome o = run_job({{}, {}, "abort"}, "fork-abort");
  EXPECT_TRUE(contains(o.err, "gshmem_barrier_all: called in a process forked from PE"))
      << o.describe();
}
