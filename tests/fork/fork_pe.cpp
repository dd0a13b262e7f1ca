// A PE that forks, as PyTorch's DataLoader does inside every rank (num_workers > 0):
// `fork_pe [--rounds N] [--child read|call|abort]`.
//
// Every round each PE forks one child and, while the child lives, runs puts, gets, atomics and an
// allreduce with the other PEs, checking every value. The child does what a DataLoader worker
// does with gshmem: nothing, or by mistake one call.
//   read   the child reads the symmetric heap (its own copy and the mapped copies of the PEs on
//          its node, which are shared memory: it must see the parent's data) and a global
//          (its own copy: it sees the value of the fork and its writes stay its own), sleeps
//          20 ms and calls exit(0): exit, so the atexit handlers and static destructors run.
//   call   the child calls gshmem functions and checks that each fails with the error naming
//          the call and the fork (gshmem_my_pe's status, gshmemx_get_last_error, the Error a
//          call throws in GSHMEMX_ERROR_THROW mode, a shmem_ call); exit(kCallOk) if they did.
//   abort  the child calls gshmem_barrier_all in the default error mode: the library must end
//          the child alone (status 1, the message on stderr), never the parent's job.
// The parent checks the child's exit status. Each PE prints "fork-ok pe=.. pid=.. children=..
// pids=.." (its children's)
// and exits 0 when every value and every child was right; the first wrong value is printed.
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "gshmem/collectives.h"
#include "gshmem/compat/shmem.h"
#include "gshmem/gshmem.h"
#include "gshmem/gshmem.hpp"

namespace {

constexpr size_t kWords = 512;  // 4 KiB per buffer: several fabric packets, one page
constexpr int kCallOk = 42;     // the child's status when every call failed as it must
constexpr int kChildBad = 3;    // the child saw wrong data or a wrong error

int g_me = -1;
// A global of the program (static data, which gshmem makes symmetric by sharing it with the node's
// PEs): the parent sets it each round, the child overwrites it, as any child writes its globals.
// The parent must still read its own value: fork gives the child a copy.
volatile uint64_t g_round_value = 0;

uint64_t pattern(int round, int pe, size_t i) {
  return (uint64_t(round + 1) << 40) ^ (uint64_t(pe + 1) << 24) ^ (i * 0x9e3779b1ull);
}

[[noreturn]] void die(const char* what, int round, size_t i, uint64_t got, uint64_t want) {
  std::printf("fork-FAIL pe=%d round=%d %s[%zu]: got 0x%llx want 0x%llx\n", g_me, round, what, i,
              (unsigned long long)got, (unsigned long long)want);
  std::fflush(stdout);
  std::exit(1);
}

bool contains(const char* s, const std::string& part) {
  return s && std::strstr(s, part.c_str());
}

// The child: reads what its parent and the parent's node peers published this round.
[[noreturn]] void child_read(int round, const std::vector<const uint64_t*>& mapped,
                             const std::vector<int>& pes) {
  for (size_t k = 0; k < mapped.size(); ++k) {
    for (size_t i = 0; i < kWords; ++i) {
      if (mapped[k][i] != pattern(round, pes[k], i)) {
        std::printf("fork-FAIL child of pe=%d round=%d: heap of PE %d [%zu] = 0x%llx\n", g_me,
                    round, pes[k], i, (unsigned long long)mapped[k][i]);
        std::fflush(stdout);
        std::exit(kChildBad);
      }
    }
  }
  if (g_round_value != uint64_t(round) + 1000) {
    std::printf("fork-FAIL child of pe=%d round=%d: a global reads %llu, want %d\n", g_me, round,
                (unsigned long long)g_round_value, round + 1000);
    std::fflush(stdout);
    std::exit(kChildBad);
  }
  g_round_value = 0xdead;
  timespec ts{0, 20 * 1000 * 1000};
  nanosleep(&ts, nullptr);
  std::exit(0);
}

// The child calls gshmem: each call must fail, naming itself and the PE forked from.
[[noreturn]] void child_call(uint64_t* heap_word) {
  const std::string fork_note = "forked from PE " + std::to_string(g_me);
  int bad = 0;
  auto expect = [&](const char* text, const char* call) {
    if (!contains(text, call) || !contains(text, fork_note)) {
      std::fprintf(stderr, "child of PE %d: %s: wrong error text: '%s'\n", g_me, call,
                   text ? text : "(null)");
      ++bad;
    }
  };
  if (gshmem_my_pe() != -1) ++bad;
  expect(gshmemx_get_last_error(), "gshmem_my_pe");
  if (gshmem_malloc(64) != nullptr) ++bad;
  expect(gshmemx_get_last_error(), "gshmem_malloc");
  if (shmem_n_pes() != -1) ++bad;
  expect(gshmemx_get_last_error(), "shmem_n_pes");
  gshmemx_set_error_mode(GSHMEMX_ERROR_THROW);
  try {
    uint64_t v = 1;
    gshmem_putmem(heap_word, &v, sizeof v, 0);
    std::fprintf(stderr, "child of PE %d: gshmem_putmem did not fail\n", g_me);
    ++bad;
  } catch (const gshmem::Error& e) {
    expect(e.what(), "gshmem_putmem");
  }
  try {
    gshmem_barrier_all();
    ++bad;
  } catch (const gshmem::Error& e) {
    expect(e.what(), "gshmem_barrier_all");
  }
  try {
    gshmem_finalize();
    ++bad;
  } catch (const gshmem::Error& e) {
    expect(e.what(), "gshmem_finalize");
  }
  std::exit(bad ? kChildBad : kCallOk);
}

}  // namespace

int main(int argc, char** argv) {
  int rounds = 4;
  std::string child = "read";
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--rounds") && i + 1 < argc) {
      rounds = std::atoi(argv[++i]);
    } else if (!std::strcmp(argv[i], "--child") && i + 1 < argc) {
      child = argv[++i];
    }
  }
  const int want_status = child == "call" ? kCallOk : child == "abort" ? 1 : 0;

  gshmem_init();
  const int me = gshmem_my_pe(), n = gshmem_n_pes();
  g_me = me;
  auto* mine = static_cast<uint64_t*>(gshmem_malloc(kWords * sizeof(uint64_t)));
  auto* inbox = static_cast<uint64_t*>(gshmem_malloc(kWords * sizeof(uint64_t)));
  auto* counter = static_cast<uint64_t*>(gshmem_calloc(1, sizeof(uint64_t)));
  auto* red_src = static_cast<int64_t*>(gshmem_malloc(kWords * sizeof(int64_t)));
  auto* red_dst = static_cast<int64_t*>(gshmem_malloc(kWords * sizeof(int64_t)));
  std::vector<uint64_t> local(kWords), got(kWords);
  const int right = (me + 1) % n, left = (me + n - 1) % n;
  // The heaps this PE maps: the child reads them through the same addresses.
  std::vector<const uint64_t*> mapped;
  std::vector<int> mapped_pes;
  for (int pe = 0; pe < n; ++pe) {
    if (auto* p = static_cast<const uint64_t*>(gshmem_ptr(mine, pe))) {
      mapped.push_back(p);
      mapped_pes.push_back(pe);
    }
  }
  std::string pids;
  int children = 0;

  for (int r = 0; r < rounds; ++r) {
    for (size_t i = 0; i < kWords; ++i) mine[i] = pattern(r, me, i);
    g_round_value = uint64_t(r) + 1000;
    gshmem_barrier_all();  // every PE's `mine` holds this round's pattern

    pid_t pid = ::fork();
    if (pid < 0) {
      std::perror("fork");
      return 1;
    }
    if (pid == 0) {
      if (child == "call") child_call(counter);
      if (child == "abort") {
        gshmem_barrier_all();
        std::exit(kChildBad);  // not reached: the call must end the child
      }
      child_read(r, mapped, mapped_pes);
    }
    pids += (pids.empty() ? "" : ",") + std::to_string(pid);
    ++children;

    // The parent, while the child lives. The put's source is private memory written after the
    // fork (copy-on-write gives the parent new pages under any registration the fabric keeps).
    for (size_t i = 0; i < kWords; ++i) local[i] = pattern(r, me, i) ^ 0x5555;
    gshmem_putmem(inbox, local.data(), kWords * sizeof(uint64_t), right);
    gshmem_getmem(got.data(), mine, kWords * sizeof(uint64_t), left);
    for (size_t i = 0; i < kWords; ++i) {
      if (got[i] != pattern(r, left, i)) die("get from left", r, i, got[i], pattern(r, left, i));
    }
    uint64_t before = gshmem_uint64_atomic_fetch_add(counter, 1, 0);
    if (before >= uint64_t(n) * uint64_t(r + 1)) die("fetch_add", r, 0, before, 0);
    for (size_t i = 0; i < kWords; ++i) red_src[i] = int64_t(me + 1) * int64_t(i + r);
    int rc = gshmem_allreduce(GSHMEM_TEAM_WORLD, red_dst, red_src, kWords, GSHMEM_INT64, GSHMEM_SUM,
                              nullptr);
    if (rc != GSHMEM_SUCCESS) die("allreduce status", r, 0, uint64_t(rc), 0);
    gshmem_barrier_all();  // every put has landed
    for (size_t i = 0; i < kWords; ++i) {
      uint64_t want = pattern(r, left, i) ^ 0x5555;
      if (inbox[i] != want) die("inbox", r, i, inbox[i], want);
      int64_t sum = int64_t(n) * int64_t(n + 1) / 2 * int64_t(i + r);
      if (red_dst[i] != sum) die("allreduce", r, i, uint64_t(red_dst[i]), uint64_t(sum));
    }
    if (me == 0 && *counter != uint64_t(n) * uint64_t(r + 1)) {
      die("counter", r, 0, *counter, uint64_t(n) * uint64_t(r + 1));
    }

    int status = 0;
    if (::waitpid(pid, &status, 0) != pid) {
      std::perror("waitpid");
      return 1;
    }
    if (!WIFEXITED(status) || WEXITSTATUS(status) != want_status) {
      std::printf("fork-FAIL pe=%d round=%d: child %d ended with %s %d (want status %d)\n", me, r,
                  int(pid), WIFEXITED(status) ? "status" : "signal",
                  WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status), want_status);
      std::fflush(stdout);
      return 1;
    }
    if (g_round_value != uint64_t(r) + 1000) die("global", r, 0, g_round_value, uint64_t(r) + 1000);
    gshmem_barrier_all();  // the next round rewrites `mine`
  }

  gshmem_free(red_dst);
  gshmem_free(red_src);
  gshmem_free(counter);
  gshmem_free(inbox);
  gshmem_free(mine);
  gshmem_finalize();
  std::printf("fork-ok pe=%d pid=%d children=%d pids=%s\n", me, int(::getpid()), children,
              pids.c_str());
  return 0;
}
