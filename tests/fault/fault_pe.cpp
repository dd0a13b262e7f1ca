// The fault campaign's workload (scripts/fault_campaign.py): one PE program that runs one phase
// of a gshmem job in a loop, every result checked exactly, while the campaign kills or stops a
// PE or makes the fabric fail under it.
//
//   fault_pe --phase startup|heap|rma|atomics|coll|moe|net|finalize [--iters N] [--seed S]
//            [--run-id ID]
//
// Lines the campaign reads (stdout, flushed at once):
//   FAULT-PHASE <phase> pe=<pe> pid=<pid>   entering the phase: aim the fault now
//   FAULT-END <phase> pe=<pe>               left the phase loop (finalize follows)
//   FAULT-DONE <phase> pe=<pe> ok seconds=<s>   finalized with every result as expected
// A mismatch prints "WRONG RESULT: ..." (naming phase, PE, iteration, value) and exits 3
// without finalize: a fault may end a job, never let it finish with a wrong answer.
//
// --run-id only tags the command line, so the campaign finds every process of its job.
#include <unistd.h>

#include <chrono>
#include <cstdarg>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "gshmem/collectives.h"
#include "gshmem/gshmem.h"
#include "gshmem/moe.hpp"
#include "moe/reference.hpp"

namespace {

namespace ref = gshmem::moe::reference;

std::string g_phase;
int g_me = -1;
int g_iter = -1;

[[noreturn]] void wrong(const char* fmt, ...) {
  char buf[512];
  va_list ap;
  va_start(ap, fmt);
  std::vsnprintf(buf, sizeof buf, fmt, ap);
  va_end(ap);
  std::printf("WRONG RESULT: phase %s, PE %d, iteration %d: %s\n", g_phase.c_str(), g_me, g_iter,
              buf);
  std::fflush(stdout);
  std::_Exit(3);
}

void expect_eq(uint64_t got, uint64_t want, const char* what) {
  if (got != want) {
    wrong("%s: expected %llu, got %llu", what, static_cast<unsigned long long>(want),
          static_cast<unsigned long long>(got));
  }
}

uint64_t mix(uint64_t a, uint64_t b = 0, uint64_t c = 0, uint64_t d = 0) {
  uint64_t x = a * 0x9e3779b97f4a7c15ULL ^ (b + 0x632be59bd9b4e019ULL) * 0xbf58476d1ce4e5b9ULL ^
               (c + 7) * 0x94d049bb133111ebULL ^ (d + 13) * 0xd6e8feb86659fd93ULL;
  x ^= x >> 31;
  x *= 0xbf58476d1ce4e5b9ULL;
  return x ^ (x >> 29);
}

void marker(const char* what) {
  std::printf("%s %s pe=%d pid=%d\n", what, g_phase.c_str(), g_me, int(::getpid()));
  std::fflush(stdout);
}

// The word of `pe`'s pattern at index i in iteration `it`.
uint64_t pattern(uint64_t seed, int pe, int it, size_t i) {
  return mix(seed, uint64_t(pe), uint64_t(it), i);
}

// ---- Phases: each runs `iters` rounds and checks every value it can
// ------------------------------

// Symmetric malloc/free of sizes that make the heap grow (up to 4 MiB per object, several live at
// once), each filled and read back from a neighbour.
void heap_phase(int iters, uint64_t seed) {
  int n = gshmem_n_pes(), right = (g_me + 1) % n, left = (g_me + n - 1) % n;
  for (g_iter = 0; g_iter < iters; ++g_iter) {
    size_t words[3] = {size_t(1) << (10 + g_iter % 10), 4096 + size_t(g_iter) * 8,
                       (size_t(1) << 19) / (1 + g_iter % 4)};
    uint64_t* p[3];
    for (int k = 0; k < 3; ++k) {
      p[k] = static_cast<uint64_t*>(gshmem_malloc(words[k] * 8));
      if (!p[k]) wrong("gshmem_malloc(%zu) returned NULL", words[k] * 8);
      for (size_t i = 0; i < words[k]; ++i) p[k][i] = pattern(seed, g_me, g_iter * 3 + k, i);
    }
    gshmem_barrier_all();
    std::vector<uint64_t> got;
    for (int k = 0; k < 3; ++k) {
      got.assign(words[k], 0);
      gshmem_getmem(got.data(), p[k], words[k] * 8, right);
      for (size_t i = 0; i < words[k]; i += 1 + i / 64) {
        expect_eq(got[i], pattern(seed, right, g_iter * 3 + k, i), "heap object read from right");
      }
    }
    // What I read from my right goes into my left's last object, so mine holds what my right
    // read from its right: PE me + 2's pattern. The frees below must not race the puts, nor
    // the puts the reads.
    gshmem_barrier_all();  // my left's reads of my right's objects are done
    gshmem_putmem(p[2], got.data(), 64, left);
    gshmem_barrier_all();
    for (size_t i = 0; i < 8; ++i) {
      expect_eq(p[2][i], pattern(seed, (g_me + 2) % n, g_iter * 3 + 2, i),
                "heap object written by the right neighbour");
    }
    for (int k = 2; k >= 0; --k) gshmem_free(p[k]);
  }
}

// Puts, gets and put-with-signal to every other PE; each round's data is new.
void rma_phase(int iters, uint64_t seed, bool remote_only, size_t words) {
  int n = gshmem_n_pes();
  auto* dst = static_cast<uint64_t*>(gshmem_malloc(size_t(n) * words * 8));
  auto* sig = static_cast<uint64_t*>(gshmem_calloc(1, 8));
  std::vector<uint64_t> src(words), back(words);
  std::vector<int> peers;
  for (int pe = 0; pe < n; ++pe) {
    if (pe == g_me) continue;
    if (remote_only && gshmem_ptr(dst, pe)) continue;  // mapped: not the network
    peers.push_back(pe);
  }
  // Every PE counts how many PEs put to it, the same rule as above seen from the sender.
  uint64_t senders = 0;
  for (int pe = 0; pe < n; ++pe) {
    if (pe != g_me && !(remote_only && gshmem_ptr(dst, pe))) ++senders;
  }
  for (g_iter = 0; g_iter < iters; ++g_iter) {
    for (size_t i = 0; i < words; ++i) src[i] = pattern(seed, g_me, g_iter, i);
    for (int pe : peers) {
      gshmem_putmem_signal_nbi(dst + size_t(g_me) * words, src.data(), words * 8, sig, 1,
                               GSHMEM_SIGNAL_ADD, pe);
    }
    gshmem_quiet();
    gshmem_signal_wait_until(sig, GSHMEM_CMP_GE, senders * uint64_t(g_iter + 1));
    for (int pe : peers) {
      // A sender's block arrived before its signal: check it, then read it back from the sender.
      const uint64_t* got = dst + size_t(pe) * words;
      for (size_t i = 0; i < words; ++i) {
        expect_eq(got[i], pattern(seed, pe, g_iter, i), "put_signal data from a peer");
      }
      gshmem_getmem(back.data(), dst + size_t(g_me) * words, words * 8, pe);
      for (size_t i = 0; i < words; ++i) {
        expect_eq(back[i], src[i], "get of my block from a peer");
      }
    }
    gshmem_barrier_all();  // nobody overwrites a block before its reader is done
  }
  expect_eq(*sig, senders * uint64_t(iters), "signal total");
  gshmem_free(sig);
  gshmem_free(dst);
}

// Fetching and plain atomics on every PE's counters; totals checked after each round.
void atomics_phase(int iters, uint64_t seed) {
  int n = gshmem_n_pes();
  auto* ctr = static_cast<uint64_t*>(gshmem_calloc(2, 8));
  auto* cas = static_cast<int64_t*>(gshmem_calloc(1, 8));
  const int per_round = 16;
  for (g_iter = 0; g_iter < iters; ++g_iter) {
    for (int k = 0; k < per_round; ++k) {
      int pe = int(mix(seed, uint64_t(g_me), uint64_t(g_iter), uint64_t(k)) % uint64_t(n));
      uint64_t before = gshmem_uint64_atomic_fetch_add(&ctr[0], 1, pe);
      if (before >= uint64_t(n) * per_round * uint64_t(g_iter + 1)) {
        wrong("fetch_add on PE %d returned %llu, beyond every add so far", pe,
              static_cast<unsigned long long>(before));
      }
      gshmem_uint64_atomic_add(&ctr[1], uint64_t(g_me) + 1, pe);
    }
    // One compare-swap chain: each PE in turn moves PE 0's word from the previous value.
    gshmem_barrier_all();
    for (int turn = 0; turn < n; ++turn) {
      if (turn == g_me) {
        int64_t want = int64_t(g_iter) * n + turn;
        int64_t old = gshmem_int64_atomic_compare_swap(cas, want, want + 1, 0);
        expect_eq(uint64_t(old), uint64_t(want), "compare_swap chain on PE 0");
      }
      gshmem_barrier_all();
    }
    // Totals: every PE's two counters, summed over the team, against what was sent.
    uint64_t mine[2] = {ctr[0], ctr[1]}, sum[2] = {0, 0};
    auto* s = static_cast<uint64_t*>(gshmem_malloc(16));
    auto* d = static_cast<uint64_t*>(gshmem_malloc(16));
    std::memcpy(s, mine, 16);
    if (gshmem_allreduce(GSHMEM_TEAM_WORLD, d, s, 2, GSHMEM_UINT64, GSHMEM_SUM, nullptr) != 0) {
      wrong("allreduce of the totals failed: %s", gshmemx_get_last_error());
    }
    std::memcpy(sum, d, 16);
    gshmem_free(d);
    gshmem_free(s);
    uint64_t adds = uint64_t(n) * per_round * uint64_t(g_iter + 1);
    expect_eq(sum[0], adds, "fetch_add total");
    expect_eq(sum[1], uint64_t(per_round) * (g_iter + 1) * uint64_t(n) * (n + 1) / 2, "add total");
  }
  gshmem_free(cas);
  gshmem_free(ctr);
}

// allreduce, allgather, broadcast and alltoall on the world team.
void coll_phase(int iters, uint64_t seed) {
  int n = gshmem_n_pes();
  const size_t count = 1000;
  auto* src = static_cast<int64_t*>(gshmem_malloc(size_t(n) * count * 8));
  auto* dst = static_cast<int64_t*>(gshmem_malloc(size_t(n) * count * 8));
  auto value = [&](int pe, size_t i) { return int64_t(pattern(seed, pe, g_iter, i) >> 20); };
  auto check = [&](int rc, const char* call) {
    if (rc != 0) wrong("%s returned %d: %s", call, rc, gshmemx_get_last_error());
  };
  for (g_iter = 0; g_iter < iters; ++g_iter) {
    for (size_t i = 0; i < size_t(n) * count; ++i) src[i] = value(g_me, i);
    check(gshmem_allreduce(GSHMEM_TEAM_WORLD, dst, src, count, GSHMEM_INT64, GSHMEM_SUM, nullptr),
          "gshmem_allreduce");
    for (size_t i = 0; i < count; ++i) {
      int64_t want = 0;
      for (int pe = 0; pe < n; ++pe) want += value(pe, i);
      expect_eq(uint64_t(dst[i]), uint64_t(want), "allreduce sum");
    }
    check(gshmem_allgather(GSHMEM_TEAM_WORLD, dst, src, count, GSHMEM_INT64, nullptr),
          "gshmem_allgather");
    for (int pe = 0; pe < n; ++pe) {
      for (size_t i = 0; i < count; ++i) {
        expect_eq(uint64_t(dst[size_t(pe) * count + i]), uint64_t(value(pe, i)), "allgather");
      }
    }
    int root = g_iter % n;
    check(gshmem_broadcast(GSHMEM_TEAM_WORLD, dst, src, count, GSHMEM_INT64, root, nullptr),
          "gshmem_broadcast");
    for (size_t i = 0; i < count; ++i) {
      expect_eq(uint64_t(dst[i]), uint64_t(value(root, i)), "broadcast");
    }
    check(gshmem_alltoall(GSHMEM_TEAM_WORLD, dst, src, count, GSHMEM_INT64, nullptr),
          "gshmem_alltoall");
    for (int pe = 0; pe < n; ++pe) {
      for (size_t i = 0; i < count; ++i) {
        expect_eq(uint64_t(dst[size_t(pe) * count + i]),
                  uint64_t(value(pe, size_t(g_me) * count + i)), "alltoall");
      }
    }
  }
  gshmem_free(dst);
  gshmem_free(src);
}

// MoE dispatch and combine against the reference (every PE regenerates every member's inputs).
void moe_phase(int iters, uint64_t seed) {
  int n = gshmem_n_pes();
  gshmem::moe::Config cfg;
  cfg.max_tokens = 24;
  cfg.num_experts = 2 * n;
  cfg.experts_per_token = 2;
  cfg.hidden = 64;
  cfg.dispatch_type = gshmem::moe::DType::BF16;
  cfg.combine_type = gshmem::moe::DType::F32;
  gshmem::moe::AllToAll a2a(cfg);
  const size_t y_row = size_t(cfg.hidden) * gshmem::moe::dtype_size(cfg.combine_type);
  for (g_iter = 0; g_iter < iters; ++g_iter) {
    std::vector<int32_t> tokens(static_cast<size_t>(n));
    for (int pe = 0; pe < n; ++pe) {
      tokens[size_t(pe)] = int32_t(mix(seed, uint64_t(pe), uint64_t(g_iter)) % 25);
    }
    auto all = ref::synthesize_all(cfg, n, tokens, ref::Routing::Uniform, mix(seed, 99, g_iter));
    const ref::Inputs& in = all[size_t(g_me)];
    gshmem::moe::ExpertBatch b = a2a.dispatch(
        in.x.data(), in.scales.empty() ? nullptr : in.scales.data(), in.indices.data(), &in.tokens);
    std::string bad = ref::check_dispatch(cfg, n, all, g_me, b);
    if (!bad.empty()) wrong("dispatch: %s", bad.c_str());
    std::vector<uint8_t> y(size_t(b.num_local_experts) * size_t(b.expert_capacity) * y_row);
    ref::run_experts(cfg, g_me, b, y.data());
    std::vector<uint8_t> out(size_t(in.tokens) * y_row + 1);
    a2a.combine(out.data(), y.data(), in.weights.data());
    bad = ref::check_combine(cfg, out.data(), ref::expected_combine(cfg, n, all, g_me), in.tokens);
    if (!bad.empty()) wrong("combine: %s", bad.c_str());
  }
}

// About a second or two each on a loaded 2-core machine, 4 PEs on 2 virtual nodes.
int default_iters(const std::string& phase) {
  if (phase == "heap") return 20;
  if (phase == "rma") return 40;
  if (phase == "atomics") return 20;
  if (phase == "coll") return 300;
  if (phase == "moe") return 200;
  if (phase == "net") return 30;
  return 1;
}

}  // namespace

int main(int argc, char** argv) {
  int iters = -1;
  uint64_t seed = 1;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--phase" && i + 1 < argc) {
      g_phase = argv[++i];
    } else if (a == "--iters" && i + 1 < argc) {
      iters = std::atoi(argv[++i]);
    } else if (a == "--seed" && i + 1 < argc) {
      seed = std::strtoull(argv[++i], nullptr, 0);
    } else if (a == "--run-id" && i + 1 < argc) {
      ++i;
    } else {
      std::fprintf(stderr, "fault_pe: unknown argument '%s'\n", a.c_str());
      return 2;
    }
  }
  const char* phases[] = {"startup", "heap", "rma", "atomics", "coll", "moe", "net", "finalize"};
  bool known = false;
  for (const char* p : phases) known = known || g_phase == p;
  if (!known) {
    std::fprintf(stderr,
                 "fault_pe: --phase wants one of startup heap rma atomics coll moe net "
                 "finalize\n");
    return 2;
  }
  if (iters < 0) iters = default_iters(g_phase);
  auto t0 = std::chrono::steady_clock::now();

  // Before init the PE number comes from the launcher.
  const char* launcher_pe = std::getenv("GSHMEM_LAUNCHER_PE");
  g_me = launcher_pe ? std::atoi(launcher_pe) : -1;
  if (g_phase == "startup") marker("FAULT-PHASE");
  gshmem_init();
  g_me = gshmem_my_pe();
  // Everyone is up and the heap works, whichever phase is aimed at.
  auto* probe = static_cast<uint64_t*>(gshmem_calloc(1, 8));
  gshmem_uint64_atomic_add(probe, uint64_t(g_me) + 1, 0);
  gshmem_barrier_all();
  if (g_me == 0) {
    int n = gshmem_n_pes();
    expect_eq(*probe, uint64_t(n) * (n + 1) / 2, "start-up probe");
  }
  gshmem_barrier_all();
  gshmem_free(probe);

  if (g_phase != "startup" && g_phase != "finalize") marker("FAULT-PHASE");
  if (g_phase == "heap") heap_phase(iters, seed);
  if (g_phase == "rma") rma_phase(iters, seed, false, 512);
  if (g_phase == "atomics") atomics_phase(iters, seed);
  if (g_phase == "coll") coll_phase(iters, seed);
  if (g_phase == "moe") moe_phase(iters, seed);
  if (g_phase == "net") rma_phase(iters, seed, true, 40000);  // > a bounce slot: several writes
  if (g_phase != "startup" && g_phase != "finalize") marker("FAULT-END");

  if (g_phase == "finalize") marker("FAULT-PHASE");
  gshmem_finalize();
  double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::printf("FAULT-DONE %s pe=%d ok seconds=%.2f\n", g_phase.c_str(), g_me, s);
  std::fflush(stdout);
  return 0;
}
