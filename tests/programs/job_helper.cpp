// A PE program for the launcher and bootstrap tests (tests/launcher): `job_helper MODE [ARGS...]`.
// Each mode does one thing the tests watch from outside: exits in a given way, dies, misuses the
// API, or does a little real work and prints "<mode>-ok". Arguments the mode does not use are
// ignored, so the tests can add a unique marker to find leftover processes by their command line.
#include <signal.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "gshmem/collectives.h"
#include "gshmem/gshmem.h"

namespace {

int g_value;  // a global (symmetric while gshmem runs) for the calls made outside init..finalize

int arg_int(int argc, char** argv, int i, int fallback) {
  return i < argc ? std::atoi(argv[i]) : fallback;
}

[[noreturn]] void barrier_forever() {
  for (;;) gshmem_barrier_all();
}

// Puts, gets, atomics and barriers between all PEs; returns the number of wrong values.
int work() {
  int me = gshmem_my_pe(), n = gshmem_n_pes();
  auto* slots = static_cast<long*>(gshmem_calloc(size_t(n), sizeof(long)));
  auto* counter = static_cast<long*>(gshmem_calloc(1, sizeof(long)));
  if (!slots || !counter) return 1;
  int bad = 0;
  for (int round = 1; round <= 20; ++round) {
    for (int t = 0; t < n; ++t) {
      gshmem_long_p(&slots[me], round * 1000 + me, t);
      gshmem_long_atomic_add(counter, round, t);
    }
    gshmem_barrier_all();
    for (int s = 0; s < n; ++s) bad += slots[s] != round * 1000 + s;
    for (int t = 0; t < n; ++t) bad += gshmem_long_g(&slots[t], (me + 1) % n) != round * 1000 + t;
    gshmem_barrier_all();
  }
  bad += *counter != long(n) * (20 * 21 / 2);
  gshmem_free(counter);
  gshmem_free(slots);
  return bad;
}

// A collective from an atexit handler: exit() destroys the main thread's thread_locals (the
// library's per-thread caches among them) before it runs the handlers.
void allreduce_at_exit() {
  int64_t mine = gshmem_my_pe() + 1, sum = 0;
  int rc = gshmem_allreduce(GSHMEM_TEAM_WORLD, &sum, &mine, 1, GSHMEM_INT64, GSHMEM_SUM, nullptr);
  const int64_t n = gshmem_n_pes();
  const bool ok = rc == 0 && sum == n * (n + 1) / 2;
  std::printf("collective_at_exit-%s pe=%d\n", ok ? "ok" : "bad", gshmem_my_pe());
  std::fflush(stdout);
  gshmem_finalize();
  if (!ok) std::_Exit(1);
}

int hex_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  return -1;
}

}  // namespace

int main(int argc, char** argv) {
  std::string mode = argc > 1 ? argv[1] : "";

  if (mode == "before_init") {
    gshmem_int_p(&g_value, 1, 0);
    std::printf("before_init: the call returned\n");
    return 0;
  }
  if (mode == "uid_api") {
    // Rank 0 makes the unique id and prints it (hex) for the test to hand to the other ranks,
    // which find it in MP_UID.
    int rank = std::atoi(std::getenv("MP_RANK") ? std::getenv("MP_RANK") : "-1");
    int nranks = std::atoi(std::getenv("MP_NRANKS") ? std::getenv("MP_NRANKS") : "-1");
    gshmemx_uniqueid_t uid{};
    if (rank == 0) {
      if (gshmemx_get_uniqueid(&uid) != 0) return 3;
      std::printf("uid=");
      for (unsigned char c : uid.internal) std::printf("%02x", c);
      std::printf("\n");
      std::fflush(stdout);
    } else {
      const char* hex = std::getenv("MP_UID");
      if (!hex || std::strlen(hex) != 2 * sizeof uid.internal) return 4;
      for (size_t i = 0; i < sizeof uid.internal; ++i) {
        int hi = hex_value(hex[2 * i]), lo = hex_value(hex[2 * i + 1]);
        if (hi < 0 || lo < 0) return 4;
        uid.internal[i] = char(hi * 16 + lo);
      }
    }
    gshmemx_init_attr_t attr{};
    if (gshmemx_set_attr_uniqueid_args(rank, nranks, &uid, &attr) != 0) return 5;
    if (gshmemx_init_attr(GSHMEMX_INIT_WITH_UNIQUEID, &attr) != 0) return 6;
    int bad = work();
    bool right = gshmem_my_pe() == rank && gshmem_n_pes() == nranks;
    std::printf("%s pe=%d n=%d bad=%d\n", bad || !right ? "uid_api-bad" : "uid_api-ok",
                gshmem_my_pe(), gshmem_n_pes(), bad);
    gshmem_finalize();
    return bad || !right ? 1 : 0;
  }

  gshmem_init();
  int me = gshmem_my_pe(), n = gshmem_n_pes();
  std::printf("ready pe=%d n=%d pid=%d\n", me, n, int(getpid()));
  std::fflush(stdout);

  if (mode == "barrier_loop_kill") {
    // The victim dies by SIGKILL in the middle of the barriers (after the third argument's
    // number of them); the others must not hang.
    int victim = arg_int(argc, argv, 2, 1);
    long when = arg_int(argc, argv, 3, 2000);
    for (long i = 0;; ++i) {
      if (me == victim && i == when) raise(SIGKILL);
      gshmem_barrier_all();
    }
  }
  if (mode == "loop") barrier_forever();
  if (mode == "exit_after_finalize") {
    gshmem_barrier_all();
    gshmem_finalize();
    return me == arg_int(argc, argv, 2, 1) ? arg_int(argc, argv, 3, 3) : 0;
  }
  if (mode == "global_exit") {
    if (me == arg_int(argc, argv, 2, 1)) {
      usleep(200000);
      gshmem_global_exit(arg_int(argc, argv, 3, 5));
    }
    barrier_forever();
  }
  if (mode == "exit_before_finalize") {
    gshmem_barrier_all();
    if (me == arg_int(argc, argv, 2, 1)) std::exit(arg_int(argc, argv, 3, 4));
    barrier_forever();
  }
  if (mode == "sleep_forever") {
    for (;;) pause();
  }
  if (mode == "print") {
    std::printf("hello from %d\n", me);
    std::fflush(stdout);
    std::fprintf(stderr, "complaint from %d\n", me);
    gshmem_finalize();
    return 0;
  }
  if (mode == "bad_pe") {
    // In the default error mode: PE 0 names a PE that does not exist; the job must end.
    if (me == 0) gshmem_int_p(&g_value, 1, arg_int(argc, argv, 2, 7));
    barrier_forever();
  }
  if (mode == "asym_malloc") {
    void* p = gshmem_malloc(me == 0 ? 128 : 256);
    std::printf("asym_malloc: PE %d got %p and went on\n", me, p);
    barrier_forever();
  }
  if (mode == "skip_malloc") {
    // PE `skipper` never makes the collective call the others make; it waits in a barrier.
    int skipper = arg_int(argc, argv, 2, 1);
    if (me != skipper) {
      void* p = gshmem_malloc(128);
      std::printf("skip_malloc: PE %d got %p and went on\n", me, p);
    }
    barrier_forever();
  }
  if (mode == "after_finalize") {
    gshmem_finalize();
    gshmem_int_p(&g_value, 1, 0);
    std::printf("after_finalize: the call returned\n");
    return 0;
  }
  if (mode == "ppn") {
    // Under gshmemrun --ppn k: the other virtual nodes' heaps are not mapped here, NODE has k PEs.
    int k = arg_int(argc, argv, 2, 2);
    int* x = static_cast<int*>(gshmem_malloc(sizeof(int)));
    int bad = 0;
    for (int pe = 0; pe < n; ++pe) {
      bool same_node = pe / k == me / k;
      bool mapped = gshmem_ptr(x, pe) != nullptr;
      if (mapped != same_node) {
        std::printf("ppn-bad: PE %d sees PE %d %s\n", me, pe, mapped ? "mapped" : "unmapped");
        ++bad;
      }
    }
    if (gshmem_team_n_pes(GSHMEM_TEAM_NODE) != k || gshmem_team_n_pes(GSHMEM_TEAM_SHARED) != k ||
        gshmem_team_my_pe(GSHMEM_TEAM_NODE) != me % k) {
      std::printf("ppn-bad: PE %d NODE %d PEs (index %d), SHARED %d PEs\n", me,
                  gshmem_team_n_pes(GSHMEM_TEAM_NODE), gshmem_team_my_pe(GSHMEM_TEAM_NODE),
                  gshmem_team_n_pes(GSHMEM_TEAM_SHARED));
      ++bad;
    }
    if (!bad) std::printf("ppn-ok pe=%d\n", me);
    std::fflush(stdout);
    gshmem_free(x);
    gshmem_finalize();
    return bad ? 1 : 0;
  }
  if (mode == "collective_at_exit") {
    // One call before, so the thread has its caches; the handler's call comes after they died.
    int64_t one = 1, sum = 0;
    gshmem_allreduce(GSHMEM_TEAM_WORLD, &sum, &one, 1, GSHMEM_INT64, GSHMEM_SUM, nullptr);
    std::atexit(allreduce_at_exit);
    return 0;
  }
  if (mode == "work" || mode == "single") {
    int bad = work();
    if (mode == "single" && (n != 1 || me != 0)) ++bad;
    std::printf("%s-%s pe=%d n=%d bad=%d\n", mode.c_str(), bad ? "bad" : "ok", me, n, bad);
    gshmem_finalize();
    return bad ? 1 : 0;
  }
  std::fprintf(stderr, "job_helper: unknown mode '%s'\n", mode.c_str());
  gshmem_finalize();
  return 2;
}
