/* Point-to-point latencies through any OpenSHMEM 1.4 library, for side-by-side figures with
 * the gshmem perftests: same test ids, table layout and JSON lines (see perftest/common/table.hpp).
 * PE 0 measures against PE 1; barrier_latency uses every PE.
 *
 *   oshcc -O2 shmem_latency.c -o shmem_latency && oshrun -np 2 ./shmem_latency [--json]
 *       [-b MIN -e MAX -f F]   put/get sizes (default 8..64K; K and M suffixes)
 *       [-n ITERS -w WARMUP]   p and atomics (default 20000/1000); put/get run ITERS/20 and
 *                              WARMUP/10, barriers ITERS/10 and WARMUP/5: with the defaults,
 *                              the gshmem programs' defaults
 *
 * Build with -Wno-unused-parameter, as gshmem does: bodies share one signature.
 * Plain C and only standard OpenSHMEM calls, so the same source builds with Open MPI's oshcc and
 * with gshmem's own shmem.h. Output is flushed per row: some libraries crash in shmem_finalize. */
#include <shmem.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static struct {
  size_t min, max, factor;
  long iters, warmup;
  int json;
} opt = {8, 64 << 10, 2, 20000, 1000, 0};

static int me;

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* Table header; only PE 0 prints. `with_op`: an op column follows size; `with_npes`: then a PEs
 * column. */
static void header(const char* test, const char* title, int with_op, int with_npes) {
  if (me != 0) return;
  printf("# %s: %s\n%-14s", test, title, "size(B)");
  if (with_op) printf("%-14s", "op");
  if (with_npes) printf("%-14s", "PEs");
  printf("latency(us)\n");
  fflush(stdout);
}

/* Four significant digits, never an exponent, as the C++ harness prints them. */
static void print_latency(double us) {
  int decimals = 3;
  for (double v = us; v >= 10 && decimals > 0; v /= 10) --decimals;
  for (double v = us; v > 0 && v < 1 && decimals < 6; v *= 10) ++decimals;
  printf("%.*f\n", decimals, us);
}

/* One row; `op` fills the extra column when the table has one. */
static void row(const char* test, size_t size, const char* op, int npes, double us) {
  if (me != 0) return;
  printf("%-14zu", size);
  if (op) printf("%-14s", op);
  if (npes) printf("%-14d", npes);
  print_latency(us);
  if (opt.json) {
    printf("{\"test\":\"%s\",\"size\":%zu", test, size);
    if (op) printf(",\"op\":\"%s\"", op);
    if (npes) printf(",\"npes\":%d", npes);
    printf(",\"value\":%.6g,\"unit\":\"us\"}\n", us);
  }
  fflush(stdout);
}

static size_t parse_size(const char* s) {
  char* end;
  size_t v = strtoull(s, &end, 10);
  if (*end == 'K' || *end == 'k') v <<= 10;
  if (*end == 'M' || *end == 'm') v <<= 20;
  return v;
}

static int parse_args(int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    const char* a = argv[i];
    const char* v = i + 1 < argc ? argv[i + 1] : NULL;
    if (!strcmp(a, "--json")) {
      opt.json = 1;
      continue;
    }
    if (!v) return 0;
    ++i;
    if (!strcmp(a, "-b"))
      opt.min = parse_size(v);
    else if (!strcmp(a, "-e"))
      opt.max = parse_size(v);
    else if (!strcmp(a, "-f"))
      opt.factor = parse_size(v);
    else if (!strcmp(a, "-n"))
      opt.iters = atol(v);
    else if (!strcmp(a, "-w"))
      opt.warmup = atol(v);
    else
      return 0;
  }
  return opt.min > 0 && opt.min <= opt.max && opt.factor >= 2 && opt.iters >= 20 && opt.warmup >= 0;
}

/* The one timing loop: WARMUP untimed calls, ITERS timed; microseconds per timed call. Bodies
 * take the call number k, counted from 0 over both phases. Every PE calls it the same way. */
typedef void (*body_fn)(long k);
static double time_us(long warmup, long iters, body_fn body) {
  long k = 0;
  for (long i = 0; i < warmup; ++i) body(k++);
  double t0 = now_s();
  for (long i = 0; i < iters; ++i) body(k++);
  return (now_s() - t0) / iters * 1e6;
}

/* Symmetric state of the bodies below. */
static long* word;
static char* remote;
static char* local;
static size_t msg;
static long expected;
static volatile long sink;

static void put_quiet(long k) {
  shmem_putmem(remote, local, msg, 1);
  shmem_quiet();
}
static void get_body(long k) {
  shmem_getmem(local, remote, msg, 1);
}
static void p_quiet(long k) {
  shmem_long_p(word, k, 1);
  shmem_quiet();
}
static void ping(long k) {
  if (me == 0) {
    shmem_long_p(word, k + 1, 1);
    shmem_long_wait_until(word, SHMEM_CMP_EQ, k + 1);
  } else {
    shmem_long_wait_until(word, SHMEM_CMP_EQ, k + 1);
    shmem_long_p(word, k + 1, 0);
  }
}
static void fetch_add(long k) {
  sink += shmem_long_atomic_fetch_add(word, 1, 1);
}
static void add_quiet(long k) {
  shmem_long_atomic_add(word, 1, 1);
  shmem_quiet();
}
static void cswap(long k) {
  long old = shmem_long_atomic_compare_swap(word, expected, expected + 1, 1);
  expected = old == expected ? expected + 1 : old;
}
static void swap(long k) {
  sink += shmem_long_atomic_swap(word, k, 1);
}
static void fetch(long k) {
  sink += shmem_long_atomic_fetch(word, 1);
}
static void barrier_all(long k) {
  shmem_barrier_all();
}
static void sync_all(long k) {
  shmem_sync_all();
}

/* PE 0 times `body` between barriers; the other PEs wait. */
static double on_pe0(body_fn body, long iters, long warmup) {
  double us = 0;
  shmem_barrier_all();
  if (me == 0) us = time_us(warmup, iters, body);
  shmem_barrier_all();
  return us;
}

int main(int argc, char** argv) {
  shmem_init();
  me = shmem_my_pe();
  int npes = shmem_n_pes();
  if (!parse_args(argc, argv) || npes < 2) {
    if (me == 0)
      fprintf(stderr, "usage: oshrun -np 2 %s [--json] [-b MIN -e MAX -f F -n ITERS -w WARMUP]\n",
              argv[0]);
    fflush(stderr);
    shmem_finalize();
    return 2;
  }
  word = shmem_calloc(1, sizeof(long));
  remote = shmem_malloc(opt.max);
  local = malloc(opt.max);
  memset(local, 1, opt.max);
  memset(remote, 0, opt.max);
  long sized_iters = opt.iters / 20, sized_warmup = opt.warmup / 10;
  long barrier_iters = opt.iters / 10, barrier_warmup = opt.warmup / 5;

  header("put_latency", "shmem_putmem + shmem_quiet, PE 0 -> PE 1", 0, 0);
  for (msg = opt.min; msg <= opt.max; msg *= opt.factor)
    row("put_latency", msg, NULL, 0, on_pe0(put_quiet, sized_iters, sized_warmup));
  header("get_latency", "shmem_getmem, PE 0 <- PE 1", 0, 0);
  for (msg = opt.min; msg <= opt.max; msg *= opt.factor)
    row("get_latency", msg, NULL, 0, on_pe0(get_body, sized_iters, sized_warmup));

  header("p_latency", "shmem_long_p + shmem_quiet, PE 0 -> PE 1", 0, 0);
  row("p_latency", sizeof(long), NULL, 0, on_pe0(p_quiet, opt.iters, opt.warmup));

  header("p_pingpong", "shmem_long_p + shmem_long_wait_until, PE 0 <-> PE 1, half RTT", 0, 0);
  *word = 0;
  shmem_barrier_all();
  if (me < 2) {
    double us = time_us(opt.warmup, opt.iters, ping) / 2;
    row("p_pingpong", sizeof(long), NULL, 0, us);
  }
  shmem_barrier_all();

  header("atomic_latency", "shmem_long_atomic_* on PE 1's word, from PE 0", 1, 0);
  row("atomic_latency", sizeof(long), "fetch_add", 0, on_pe0(fetch_add, opt.iters, opt.warmup));
  row("atomic_latency", sizeof(long), "add", 0, on_pe0(add_quiet, opt.iters, opt.warmup));
  if (me == 0) expected = shmem_long_atomic_fetch(word, 1);
  row("atomic_latency", sizeof(long), "compare_swap", 0, on_pe0(cswap, opt.iters, opt.warmup));
  row("atomic_latency", sizeof(long), "swap", 0, on_pe0(swap, opt.iters, opt.warmup));
  row("atomic_latency", sizeof(long), "fetch", 0, on_pe0(fetch, opt.iters, opt.warmup));

  /* Every PE runs the loop; PE 0's time is reported. */
  header("barrier_latency", "all PEs, PE 0's time", 1, 1);
  shmem_barrier_all();
  row("barrier_latency", 0, "barrier_all", npes,
      time_us(barrier_warmup, barrier_iters, barrier_all));
  shmem_barrier_all();
  row("barrier_latency", 0, "sync_all", npes, time_us(barrier_warmup, barrier_iters, sync_all));

  shmem_barrier_all();
  free(local);
  shmem_free(remote);
  shmem_free(word);
  fflush(stdout);
  shmem_finalize();
  return 0;
}
