/* The active-set collectives (pSync/pWrk, PE_start/logPE_stride/PE_size) over several active
 * sets: the whole world, the even PEs, all but PE 0, and each PE alone. PEs outside a set do
 * not call. Checks the data of barrier, sync, broadcast32/64 (the root's dest stays untouched),
 * collect32/64 with a different size on every member, fcollect32/64, alltoall32/64,
 * alltoalls32/64 and the TYPE_OP_to_all reductions (in place too), that pSync is back at
 * SHMEM_SYNC_VALUE afterwards, and that one pSync serves calls of different routines separated
 * only by shmem_barrier on the same pSync.
 *
 *   active_set [--few]   --few: the world set only (network runs) */
#include <complex.h>
#include <string.h>

#include "check.h"

#define MAXN 16 /* elements per member */
#define MAXPES 64

static int me, npes;
static long pSync[SHMEM_SYNC_SIZE]; /* a global pSync (zero = SHMEM_SYNC_VALUE) */
static long* heap_pSync;            /* and one in the heap */

static int32_t src32[MAXPES * MAXN * 3], dst32[MAXPES * MAXN * 3];
static int64_t src64[MAXPES * MAXN * 3], dst64[MAXPES * MAXN * 3];

struct set {
  int start, log_stride, size;
};

static int stride(struct set s) {
  return 1 << s.log_stride;
}
static int in_set(struct set s) {
  int d = me - s.start;
  return d >= 0 && d % stride(s) == 0 && d / stride(s) < s.size;
}
static int index_of(struct set s) {
  return (me - s.start) / stride(s);
}
static int pe_of(struct set s, int i) {
  return s.start + i * stride(s);
}

static void check_psync(long* ps) {
  for (int i = 0; i < SHMEM_SYNC_SIZE; ++i) CHECK_EQ(ps[i], SHMEM_SYNC_VALUE);
}

static void sync_and_barrier(struct set s, long* ps) {
  int i = index_of(s), next = pe_of(s, (i + 1) % s.size);
  static int mark[MAXPES];
  shmem_int_p(&mark[me], 1 + i, next);
  shmem_barrier(s.start, s.log_stride, s.size, ps); /* includes quiet: the mark is there */
  int prev = pe_of(s, (i + s.size - 1) % s.size);
  CHECK_EQ(mark[prev], 1 + (i + s.size - 1) % s.size);
  shmem_sync(s.start, s.log_stride, s.size, ps);
  mark[prev] = 0;
  shmem_sync(s.start, s.log_stride, s.size, ps);
}

#define DEF_MOVEMENT(BITS)                                                                      \
  static void movement_##BITS(struct set s, long* ps) {                                         \
    int i = index_of(s), n = s.size;                                                            \
    int##BITS##_t* src = src##BITS;                                                             \
    int##BITS##_t* dst = dst##BITS;                                                             \
    for (int k = 0; k < MAXPES * MAXN * 3; ++k) {                                               \
      src[k] = (int##BITS##_t)(1000 * me + k);                                                  \
      dst[k] = -1;                                                                              \
    }                                                                                           \
    /* broadcast from the last member: the root's dest stays as it was. */                      \
    int root = n - 1;                                                                           \
    shmem_barrier(s.start, s.log_stride, s.size, ps);                                           \
    shmem_broadcast##BITS(dst, src, MAXN, root, s.start, s.log_stride, s.size, ps);             \
    for (int k = 0; k < MAXN; ++k) {                                                            \
      CHECK_EQ(dst[k], i == root ? -1 : 1000 * pe_of(s, root) + k);                             \
    }                                                                                           \
    /* collect: member j gives j + 1 elements. */                                               \
    shmem_barrier(s.start, s.log_stride, s.size, ps);                                           \
    shmem_collect##BITS(dst, src, (size_t)(i + 1), s.start, s.log_stride, s.size, ps);          \
    for (int j = 0, at = 0; j < n; at += j + 1, ++j) {                                          \
      for (int k = 0; k <= j; ++k) CHECK_EQ(dst[at + k], 1000 * pe_of(s, j) + k);               \
    }                                                                                           \
    shmem_barrier(s.start, s.log_stride, s.size, ps);                                           \
    shmem_fcollect##BITS(dst, src, MAXN, s.start, s.log_stride, s.size, ps);                    \
    for (int j = 0; j < n; ++j) {                                                               \
      for (int k = 0; k < MAXN; ++k) CHECK_EQ(dst[j * MAXN + k], 1000 * pe_of(s, j) + k);       \
    }                                                                                           \
    /* alltoall: block j of member i's source -> block i of member j's dest. */                 \
    shmem_barrier(s.start, s.log_stride, s.size, ps);                                           \
    shmem_alltoall##BITS(dst, src, MAXN, s.start, s.log_stride, s.size, ps);                    \
    for (int j = 0; j < n; ++j) {                                                               \
      for (int k = 0; k < MAXN; ++k) {                                                          \
        CHECK_EQ(dst[j * MAXN + k], 1000 * pe_of(s, j) + i * MAXN + k);                         \
      }                                                                                         \
    }                                                                                           \
    /* alltoalls: element k of block j at source[3 * (j * 4 + k)], to dest[2 * (i * 4 + k)]. */ \
    shmem_barrier(s.start, s.log_stride, s.size, ps);                                           \
    for (int k = 0; k < MAXPES * MAXN * 3; ++k) dst[k] = -1;                                    \
    shmem_barrier(s.start, s.log_stride, s.size, ps);                                           \
    shmem_alltoalls##BITS(dst, src, 2, 3, 4, s.start, s.log_stride, s.size, ps);                \
    for (int j = 0; j < n; ++j) {                                                               \
      for (int k = 0; k < 4; ++k) {                                                             \
        CHECK_EQ(dst[2 * (j * 4 + k)], 1000 * pe_of(s, j) + 3 * (i * 4 + k));                   \
        CHECK_EQ(dst[2 * (j * 4 + k) + 1], -1);                                                 \
      }                                                                                         \
    }                                                                                           \
    shmem_barrier(s.start, s.log_stride, s.size, ps);                                           \
  }
DEF_MOVEMENT(32)
DEF_MOVEMENT(64)

/* Reductions: member j contributes j + 1 + k at element k (and bit j for the bitwise ones). */
static long long sum_of(struct set s, int k) {
  return (long long)s.size * (s.size + 1) / 2 + (long long)s.size * k;
}
#define DEF_REDUCE_DATA(NAME, T, A) \
  static T red_src_##NAME[MAXN], red_dst_##NAME[MAXN], red_wrk_##NAME[MAXN];
GSHMEM_COMPAT_TO_ALL_ARITH(DEF_REDUCE_DATA, )
#define DEF_FILL(NAME, T, A)                                                                     \
  static void fill_##NAME(struct set s, int bits) {                                              \
    for (int k = 0; k < MAXN; ++k) {                                                             \
      red_src_##NAME[k] = bits ? (T)((1 << index_of(s)) | (1 << 10)) : (T)(index_of(s) + 1 + k); \
    }                                                                                            \
  }
GSHMEM_COMPAT_TO_ALL_MINMAX(DEF_FILL, )

static void reductions(struct set s, long* ps) {
  int n = s.size, all_bits = (1 << n) - 1;
#define TO_ALL(NAME, OP)                                                                    \
  shmem_##NAME##_##OP##_to_all(red_dst_##NAME, red_src_##NAME, MAXN, s.start, s.log_stride, \
                               s.size, red_wrk_##NAME, ps)
  fill_short(s, 1);
  TO_ALL(short, and);
  for (int k = 0; k < MAXN; ++k) CHECK_EQ(red_dst_short[k], n == 1 ? all_bits | 1024 : 1024);
  TO_ALL(short, or);
  for (int k = 0; k < MAXN; ++k) CHECK_EQ(red_dst_short[k], all_bits | 1024);
  TO_ALL(short, xor);
  for (int k = 0; k < MAXN; ++k) CHECK_EQ(red_dst_short[k], all_bits | (n % 2 ? 1024 : 0));
  fill_int(s, 0);
  TO_ALL(int, sum);
  for (int k = 0; k < MAXN; ++k) CHECK_EQ(red_dst_int[k], sum_of(s, k));
  fill_long(s, 0);
  TO_ALL(long, max);
  for (int k = 0; k < MAXN; ++k) CHECK_EQ(red_dst_long[k], n + k);
  fill_longlong(s, 0);
  TO_ALL(longlong, min);
  for (int k = 0; k < MAXN; ++k) CHECK_EQ(red_dst_longlong[k], 1 + k);
  /* In place: dest is source. */
  fill_double(s, 0);
  shmem_double_sum_to_all(red_src_double, red_src_double, MAXN, s.start, s.log_stride, s.size,
                          red_wrk_double, ps);
  for (int k = 0; k < MAXN; ++k) CHECK(red_src_double[k] == (double)sum_of(s, k));
  CHECK(red_dst_double[0] == 0); /* not the dest this time */
  fill_float(s, 0);
  TO_ALL(float, prod);
  float want = 1;
  for (int j = 0; j < n; ++j) want *= (float)(j + 1);
  CHECK(red_dst_float[0] == want);
  fill_longdouble(s, 0);
  TO_ALL(longdouble, max);
  CHECK(red_dst_longdouble[3] == (long double)(n + 3));
  for (int k = 0; k < MAXN; ++k) red_src_complexd[k] = (index_of(s) + 1) + 1.0 * _Complex_I;
  TO_ALL(complexd, sum);
  CHECK(red_dst_complexd[5] == (double)n * (n + 1) / 2 + n * 1.0 * _Complex_I);
  for (int k = 0; k < MAXN; ++k) red_src_complexf[k] = 1.0f * _Complex_I; /* i^n */
  TO_ALL(complexf, prod);
  float _Complex wantc = 1;
  for (int j = 0; j < n; ++j) wantc *= 1.0f * _Complex_I;
  CHECK(red_dst_complexf[0] == wantc);
#undef TO_ALL
}

/* One pSync for calls of different routines, separated only by shmem_barrier on that same
 * pSync; each round writes its own slice of dest. */
static int64_t chain_dst[8][MAXPES * 4];
static void back_to_back(struct set s, long* ps) {
  int i = index_of(s), n = s.size;
  int64_t mine[4];
  for (int r = 0; r < 8; ++r) {
    for (int k = 0; k < 4; ++k) mine[k] = 100 * r + 10 * i + k;
    switch (r % 4) {
      case 0:
        shmem_fcollect64(chain_dst[r], mine, 4, s.start, s.log_stride, s.size, ps);
        break;
      case 1:
        shmem_broadcast64(chain_dst[r], mine, 4, 0, s.start, s.log_stride, s.size, ps);
        break;
      case 2:
        shmem_sync(s.start, s.log_stride, s.size, ps);
        break;
      default:
        shmem_collect64(chain_dst[r], mine, 4, s.start, s.log_stride, s.size, ps);
        break;
    }
    shmem_barrier(s.start, s.log_stride, s.size, ps);
  }
  shmem_barrier(s.start, s.log_stride, s.size, ps);
  for (int r = 0; r < 8; ++r) {
    if (r % 4 == 2) continue;
    if (r % 4 == 1) {
      if (i != 0) {
        for (int k = 0; k < 4; ++k) CHECK_EQ(chain_dst[r][k], 100 * r + k);
      }
      continue;
    }
    for (int j = 0; j < n; ++j) {
      for (int k = 0; k < 4; ++k) CHECK_EQ(chain_dst[r][4 * j + k], 100 * r + 10 * j + k);
    }
  }
}

static void run(struct set s, long* ps) {
  if (in_set(s)) {
    sync_and_barrier(s, ps);
    movement_32(s, ps);
    movement_64(s, ps);
    reductions(s, ps);
    back_to_back(s, ps);
  }
  shmem_barrier_all();
  check_psync(ps);
  shmem_barrier_all();
}

int main(int argc, char** argv) {
  shmem_init();
  int few = argc > 1 && strcmp(argv[1], "--few") == 0;
  me = shmem_my_pe();
  npes = shmem_n_pes();
  CHECK(npes <= MAXPES);
  heap_pSync = shmem_malloc(SHMEM_SYNC_SIZE * sizeof(long));
  for (int i = 0; i < SHMEM_SYNC_SIZE; ++i) heap_pSync[i] = SHMEM_SYNC_VALUE;
  shmem_barrier_all();
  struct set world = {0, 0, npes}, evens = {0, 1, (npes + 1) / 2}, tail = {1, 0, npes - 1},
             alone = {me, 0, 1};
  run(world, pSync);
  if (few) {
    shmem_free(heap_pSync);
    if (me == 0) printf("active_set: %d PEs OK (--few)\n", npes);
    shmem_finalize();
    return 0;
  }
  if (npes > 1) run(tail, heap_pSync);
  run(evens, heap_pSync);
  run(alone, heap_pSync);
  if (npes >= 4) {
    struct set odd_pair = {1, 1, npes / 2};
    run(odd_pair, pSync);
  }
  shmem_free(heap_pSync);
  if (me == 0) printf("active_set: %d PEs OK\n", npes);
  shmem_finalize();
  return 0;
}
