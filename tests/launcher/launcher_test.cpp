// gshmemrun and the job lifecycle, checked from outside: a PE killed inside a barrier loop ends
// the job quickly with a message naming it and leaves nothing behind; exit statuses pass through;
// global_exit, early exits, exec failures and --timeout end the job; --tag-output tags lines;
// bad input in the default error mode ends the job with a message naming the call and argument;
// use before init / after finalize is reported; --ppn makes virtual nodes; a program started
// without a launcher is one PE.
//
// The PEs are tests/programs/job_helper (JOB_HELPER), the launcher GSHMEMRUN: both paths come from
// CMake.
#include <gtest/gtest.h>

#include <thread>

#include "tests/launcher/proc.hpp"

using namespace gshmem_test;

namespace {

const std::string kRun = GSHMEMRUN;
const std::string kHelper = JOB_HELPER;

std::vector<std::string> job(int n, std::vector<std::string> args,
                             std::vector<std::string> opts = {}) {
  // A hang ends in 20 s with status 124 instead of running into the test's own deadline.
  std::vector<std::string> argv = {kRun, "-n", std::to_string(n), "--timeout", "20"};
  argv.insert(argv.end(), opts.begin(), opts.end());
  argv.push_back(kHelper);
  argv.insert(argv.end(), args.begin(), args.end());
  return argv;
}

// The pids the helper PEs printed ("ready pe=.. n=.. pid=..").
std::vector<int> job_pids(const std::string& out) {
  std::vector<int> pids;
  for (size_t at = out.find("pid="); at != std::string::npos; at = out.find("pid=", at + 1)) {
    pids.push_back(std::atoi(out.c_str() + at + 4));
  }
  return pids;
}

// New entries of dir since `before` that are still there a moment later and are this job's: any
// (any_new_entry), or those whose name has one of the job's pids (gshmemrun's private directory
// is gshmemrun-PID-XXXXXX). Compilers and other tests, other gshmemrun jobs among them, create
// and remove files in /tmp all the time; those are not ours.
std::vector<std::string> leftovers(const std::string& dir, const std::set<std::string>& before,
                                   const std::vector<int>& pids, bool any_new_entry) {
  std::vector<std::string> found;
  for (const std::string& name : list_dir(dir)) {
    if (before.count(name)) continue;
    bool ours = any_new_entry;
    for (int pid : pids) ours = ours || contains(name, std::to_string(pid));
    if (ours) found.push_back(dir + "/" + name);
  }
  if (found.empty()) return found;
  std::this_thread::sleep_for(std::chrono::seconds(1));  // short-lived files are not leftovers
  std::set<std::string> later = list_dir(dir);
  std::vector<std::string> still;
  for (const std::string& f : found) {
    if (later.count(f.substr(dir.size() + 1))) still.push_back(f);
  }
  return still;
}

}  // namespace

// One PE raises SIGKILL on itself while all are in a barrier loop: gshmemrun ends the job within
// seconds with 128 + 9, says which PE died and how, and leaves no process and no file behind.
TEST(Launcher, KilledPeEndsTheJobCleanly) {
  std::string marker = unique_marker("fault");
  std::set<std::string> shm_before = list_dir("/dev/shm"), tmp_before = list_dir("/tmp");
  Proc launcher(job(4, {"barrier_loop_kill", "2", "2000", marker}));
  const int launcher_pid = launcher.pid();
  Outcome o = launcher.wait(30);
  ASSERT_TRUE(o.finished) << o.describe();
  EXPECT_TRUE(o.exited) << o.describe();
  EXPECT_EQ(o.code, 137) << o.describe();
  EXPECT_LT(o.seconds, 10) << o.describe();
  EXPECT_TRUE(contains(o.err, "PE 2")) << o.describe();
  EXPECT_TRUE(contains(o.err, "signal 9")) << o.describe();
  EXPECT_EQ(count(o.out, "ready pe="), 4) << "all PEs started before the fault\n" << o.describe();
  // gshmemrun has returned: nothing of the job may still run.
  EXPECT_TRUE(pids_with(marker).empty()) << "processes of the job are still running";
  std::vector<int> pids = job_pids(o.out);
  for (int pid : pids) EXPECT_NE(::kill(pid, 0), 0) << "PE process " << pid << " still exists";
  pids.push_back(launcher_pid);
  EXPECT_EQ(leftovers("/dev/shm", shm_before, pids, true), std::vector<std::string>{});
  EXPECT_EQ(leftovers("/tmp", tmp_before, pids, false), std::vector<std::string>{});
}

// The same fault across virtual nodes: the survivors are inside a barrier whose signals travel
// through the proxy and libfabric to the dead PE.
TEST(Launcher, KilledPeAcrossTheFabricIsNamed) {
  std::string marker = unique_marker("fault-fabric");
  // 100 barriers: across the fabric each takes milliseconds on 2 loaded cores.
  Outcome o = run(job(4, {"barrier_loop_kill", "2", "100", marker}, {"--ppn", "1"}), {}, 30);
  ASSERT_TRUE(o.finished) << o.describe();
  EXPECT_TRUE(o.exited) << o.describe();
  EXPECT_EQ(o.code, 137) << o.describe();
  // Whole job, fabric start-up of 4 endpoints included (slow on 2 loaded cores); no hang.
  EXPECT_LT(o.seconds, 20) << o.describe();
  EXPECT_TRUE(contains(o.err, "PE 2")) << o.describe();
  EXPECT_TRUE(contains(o.err, "signal 9")) << o.describe();
  EXPECT_TRUE(pids_with(marker).empty()) << "processes of the job are still running";
}

TEST(Launcher, ExitStatusAfterFinalizePassesThrough) {
  Outcome o = run(job(2, {"exit_after_finalize", "1", "3"}), {}, 30);
  EXPECT_TRUE(o.finished && o.exited) << o.describe();
  EXPECT_EQ(o.code, 3) << o.describe();
  Outcome ok = run(job(4, {"exit_after_finalize", "9", "3"}), {}, 30);
  EXPECT_EQ(ok.code, 0) << ok.describe();
}

// A collective from an atexit handler runs after exit() destroyed the thread's thread_locals.
TEST(Launcher, CollectiveFromAnAtexitHandler) {
  Outcome o = run(job(2, {"collective_at_exit"}), {}, 30);
  EXPECT_TRUE(o.finished && o.exited) << o.describe();
  EXPECT_EQ(o.code, 0) << o.describe();
  EXPECT_TRUE(contains(o.out, "collective_at_exit-ok pe=0")) << o.describe();
  EXPECT_TRUE(contains(o.out, "collective_at_exit-ok pe=1")) << o.describe();
}

TEST(Launcher, GlobalExitEndsEveryPe) {
  std::string marker = unique_marker("global-exit");
  Outcome o = run(job(4, {"global_exit", "1", "5", marker}), {}, 30);
  EXPECT_TRUE(o.finished && o.exited) << o.describe();
  EXPECT_EQ(o.code, 5) << o.describe();
  EXPECT_LT(o.seconds, 8) << o.describe();
  EXPECT_TRUE(contains(o.err, "gshmem_global_exit(5)")) << o.describe();
  EXPECT_TRUE(pids_with(marker).empty()) << "PEs still running after the job ended";
}

TEST(Launcher, ExitBeforeFinalizeIsNamed) {
  std::string marker = unique_marker("early-exit");
  Outcome o = run(job(4, {"exit_before_finalize", "3", "4", marker}, {"--timeout", "12"}), {}, 30);
  EXPECT_TRUE(o.finished && o.exited) << o.describe();
  EXPECT_EQ(o.code, 4) << "the job's status is the failed PE's\n" << o.describe();
  EXPECT_LT(o.seconds, 10) << o.describe();
  EXPECT_TRUE(contains(o.err, "PE 3")) << o.describe();
  EXPECT_TRUE(contains(o.err, "status 4")) << o.describe();
  EXPECT_TRUE(contains(o.err, "before gshmem_finalize")) << o.describe();
  EXPECT_TRUE(pids_with(marker).empty());
}

TEST(Launcher, MissingProgramIsReported) {
  Outcome o = run({kRun, "-n", "2", "/nonexistent/gshmem-test-program"}, {}, 30);
  EXPECT_TRUE(o.finished && o.exited) << o.describe();
  EXPECT_NE(o.code, 0) << o.describe();
  EXPECT_TRUE(contains(o.err, "/nonexistent/gshmem-test-program")) << o.describe();
  EXPECT_TRUE(contains(o.err, "cannot run")) << o.describe();
  EXPECT_LT(o.seconds, 10) << o.describe();
}

TEST(Launcher, BadUsageIsRefused) {
  for (auto argv :
       std::vector<std::vector<std::string>>{{kRun},
                                             {kRun, "-n", "0", kHelper},
                                             {kRun, "-n", "two", kHelper},
                                             {kRun, "-n", "2"},
                                             {kRun, "--no-such-option", "-n", "2", kHelper}}) {
    Outcome o = run(argv, {}, 10);
    EXPECT_TRUE(o.finished && o.exited) << o.describe();
    EXPECT_EQ(o.code, 2) << o.describe();
    EXPECT_TRUE(contains(o.err, "usage") || contains(o.err, "gshmemrun:")) << o.describe();
  }
}

TEST(Launcher, TimeoutEndsAHangingJob) {
  std::string marker = unique_marker("timeout");
  Outcome o = run(job(2, {"sleep_forever", marker}, {"--timeout", "2"}), {}, 30);
  EXPECT_TRUE(o.finished && o.exited) << o.describe();
  EXPECT_EQ(o.code, 124) << o.describe();
  EXPECT_GE(o.seconds, 1.9) << o.describe();
  EXPECT_LT(o.seconds, 8) << o.describe();
  EXPECT_TRUE(contains(o.err, "timed out")) << o.describe();
  EXPECT_TRUE(pids_with(marker).empty()) << "PEs still running after --timeout";
}

TEST(Launcher, TagOutput) {
  Outcome o = run(job(3, {"print"}, {"--tag-output"}), {}, 30);
  EXPECT_EQ(o.code, 0) << o.describe();
  for (int pe = 0; pe < 3; ++pe) {
    std::string p = std::to_string(pe);
    EXPECT_TRUE(contains(o.out, "[PE " + p + "] hello from " + p + "\n")) << o.describe();
    EXPECT_TRUE(contains(o.err, "[PE " + p + "] complaint from " + p + "\n")) << o.describe();
  }
  // Every line is tagged.
  std::istringstream lines(o.out);
  for (std::string line; std::getline(lines, line);) {
    EXPECT_EQ(line.rfind("[PE ", 0), 0u) << "untagged line: " << line;
  }
  Outcome plain = run(job(2, {"print"}), {}, 30);
  EXPECT_TRUE(contains(plain.out, "hello from 1\n")) << plain.describe();
  EXPECT_FALSE(contains(plain.out, "[PE ")) << plain.describe();
}

// Default (abort) mode: PE 0 calls gshmem_int_p with pe=7 in a 2-PE job.
TEST(Launcher, BadInputEndsTheJobNamingCallAndArgument) {
  std::string marker = unique_marker("bad-pe");
  Outcome o = run(job(2, {"bad_pe", "7", marker}), {}, 30);
  EXPECT_TRUE(o.finished && o.exited) << o.describe();
  EXPECT_NE(o.code, 0) << o.describe();
  EXPECT_LT(o.seconds, 10) << o.describe();
  EXPECT_TRUE(contains(o.err, "gshmem_int_p")) << o.describe();
  EXPECT_TRUE(contains(o.err, "pe=7")) << o.describe();
  EXPECT_TRUE(pids_with(marker).empty());
}

// Default mode: an asymmetric gshmem_malloc ends the job on every PE with a message.
TEST(Launcher, AsymmetricMallocEndsTheJob) {
  std::string marker = unique_marker("asym");
  Outcome o = run(job(3, {"asym_malloc", marker}), {}, 30);
  EXPECT_TRUE(o.finished && o.exited) << o.describe();
  EXPECT_NE(o.code, 0) << o.describe();
  EXPECT_LT(o.seconds, 10) << o.describe();
  EXPECT_TRUE(contains(o.err, "gshmem_malloc")) << o.describe();
  EXPECT_TRUE(contains(o.err, "asymmetric")) << o.describe();
  EXPECT_FALSE(contains(o.out, "went on")) << "a PE continued past the asymmetric call\n"
                                           << o.describe();
  EXPECT_TRUE(pids_with(marker).empty());
}

// A PE that skips a collective heap call (here it waits in a barrier instead) is not silently
// matched with the others: the job ends within GSHMEM_TIMEOUT, the waiting side names the PE it
// waited for, and the PEs in gshmem_malloc say their call was interrupted.
TEST(Launcher, SkippedMallocEndsTheJob) {
  std::string marker = unique_marker("skip");
  Outcome o = run(job(3, {"skip_malloc", "1", marker}), {"GSHMEM_TIMEOUT=3"}, 30);
  EXPECT_TRUE(o.finished && o.exited) << o.describe();
  EXPECT_NE(o.code, 0) << o.describe();
  EXPECT_LT(o.seconds, 15) << o.describe();
  EXPECT_TRUE(contains(o.err, "gshmem_malloc interrupted")) << o.describe();
  EXPECT_TRUE(contains(o.err, "PE 1: gshmem_barrier_all: timed out")) << o.describe();
  EXPECT_TRUE(contains(o.err, "waiting for PE 0")) << o.describe();
  EXPECT_FALSE(contains(o.out, "went on")) << "a PE returned from the unmatched call\n"
                                           << o.describe();
  EXPECT_TRUE(pids_with(marker).empty());
}

TEST(Launcher, UseBeforeInitIsReported) {
  Outcome o = run({kHelper, "before_init"}, {}, 30);
  EXPECT_TRUE(o.finished && o.exited) << o.describe();
  EXPECT_NE(o.code, 0) << o.describe();
  EXPECT_TRUE(contains(o.err, "gshmem_int_p")) << o.describe();
  EXPECT_TRUE(contains(o.err, "before gshmem_init")) << o.describe();
  EXPECT_FALSE(contains(o.out, "returned")) << o.describe();
}

TEST(Launcher, UseAfterFinalizeIsReported) {
  for (int n : {1, 2}) {
    Outcome o =
        n == 1 ? run({kHelper, "after_finalize"}, {}, 30) : run(job(n, {"after_finalize"}), {}, 30);
    EXPECT_TRUE(o.finished && o.exited) << o.describe();
    EXPECT_NE(o.code, 0) << o.describe();
    EXPECT_TRUE(contains(o.err, "gshmem_int_p")) << o.describe();
    EXPECT_TRUE(contains(o.err, "after gshmem_finalize")) << o.describe();
    EXPECT_FALSE(contains(o.out, "returned")) << o.describe();
  }
}

// 4 PEs, 2 per virtual node: the other node's heaps are not mapped, NODE and SHARED have 2 PEs.
TEST(Launcher, PpnMakesVirtualNodes) {
  Outcome o = run(job(4, {"ppn", "2"}, {"--ppn", "2"}), {}, 60);
  EXPECT_EQ(count(o.out, "ppn-ok"), 4) << o.describe();
  EXPECT_FALSE(contains(o.out, "ppn-bad")) << o.describe();
  EXPECT_TRUE(o.finished && o.exited) << o.describe();
  EXPECT_EQ(o.code, 0) << o.describe();
}

// Started without any launcher (and no PMIx around), a program is one PE.
TEST(Launcher, SingleProcessIsOnePe) {
  Outcome o = run({kHelper, "single"}, {}, 30);
  EXPECT_EQ(o.code, 0) << o.describe();
  EXPECT_TRUE(contains(o.out, "single-ok pe=0 n=1")) << o.describe();
  // Under gshmemrun -n 1 as well.
  Outcome one = run(job(1, {"single"}), {}, 30);
  EXPECT_EQ(one.code, 0) << one.describe();
  EXPECT_TRUE(contains(one.out, "single-ok pe=0 n=1")) << one.describe();
}
