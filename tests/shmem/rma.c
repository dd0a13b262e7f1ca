/* RMA through the OpenSHMEM API: every typed routine of every standard RMA type (put, put_nbi,
 * p, iput, ctx_put, put_signal, get, get_nbi, g, iget, ctx_get, ctx_g), the sized and mem forms
 * and the C11 generic names, each into three kinds of symmetric target: the heap, a global
 * array and a function-local static array. Each PE writes to its right neighbour and reads from
 * it; values carry the writer's PE, so a misplaced or missing write shows. Run with --ppn too:
 * then the neighbours sit on different virtual nodes and the globals travel over the network.
 *
 *   rma [--few]   --few: only char, long double and the 32-bit sized forms (for the slow
 *                 network runs; the element type changes nothing on the wire but the size) */
#include <string.h>

#include "check.h"

#define N 8
/* Regions of a target: one per way of writing it. */
enum { PUT, PUT_NBI, P, IPUT, CTX_PUT, PUT_SIGNAL, REGIONS };

static int me, npes, right, left;
static uint64_t sig; /* the put_signal target: a global too */
static uint64_t round_no;

/* Checks region r of the local target holds what the left neighbour wrote there (iput fills
 * every other element). */
#define CHECK_REGION(target, r, salt, step) \
  for (int i = 0; i < N / (step); ++i) CHECK_EQ((target)[(r)*N + i * (step)], TAG(left, i, salt))

#define DEF_RMA(NAME, T, A)                                                                      \
  static T glob_##NAME[REGIONS * N];                                                             \
  static void rma_##NAME(T* target) {                                                            \
    T src[N], got[N];                                                                            \
    for (int i = 0; i < N; ++i) src[i] = (T)TAG(me, i, 1);                                       \
    ++round_no;                                                                                  \
    shmem_##NAME##_put(target + PUT * N, src, N, right);                                         \
    shmem_##NAME##_put_nbi(target + PUT_NBI * N, src, N, right);                                 \
    for (int i = 0; i < N; ++i) shmem_##NAME##_p(target + P * N + i, src[i], right);             \
    shmem_##NAME##_iput(target + IPUT * N, src, 2, 1, N / 2, right);                             \
    shmem_ctx_##NAME##_put(SHMEM_CTX_DEFAULT, target + CTX_PUT * N, src, N, right);              \
    shmem_##NAME##_put_signal(target + PUT_SIGNAL * N, src, N, &sig, round_no, SHMEM_SIGNAL_SET, \
                              right);                                                            \
    /* The signal says the data is there, before any quiet or barrier. */                        \
    CHECK_EQ(shmem_signal_wait_until(&sig, SHMEM_CMP_EQ, round_no), round_no);                   \
    CHECK_REGION(target, PUT_SIGNAL, 1, 1);                                                      \
    shmem_barrier_all();                                                                         \
    CHECK_REGION(target, PUT, 1, 1);                                                             \
    CHECK_REGION(target, PUT_NBI, 1, 1);                                                         \
    CHECK_REGION(target, P, 1, 1);                                                               \
    CHECK_REGION(target, IPUT, 1, 2);                                                            \
    CHECK_REGION(target, CTX_PUT, 1, 1);                                                         \
    /* Reads: the right neighbour's regions hold this PE's values. */                            \
    memset(got, 0, sizeof got);                                                                  \
    shmem_##NAME##_get(got, target + PUT * N, N, right);                                         \
    for (int i = 0; i < N; ++i) CHECK_EQ(got[i], TAG(me, i, 1));                                 \
    memset(got, 0, sizeof got);                                                                  \
    shmem_##NAME##_get_nbi(got, target + PUT_NBI * N, N, right);                                 \
    shmem_quiet();                                                                               \
    for (int i = 0; i < N; ++i) CHECK_EQ(got[i], TAG(me, i, 1));                                 \
    for (int i = 0; i < N; ++i) CHECK_EQ(shmem_##NAME##_g(target + P * N + i, right), src[i]);   \
    memset(got, 0, sizeof got);                                                                  \
    shmem_##NAME##_iget(got, target + IPUT * N, 1, 2, N / 2, right);                             \
    for (int i = 0; i < N / 2; ++i) CHECK_EQ(got[i], TAG(me, i, 1));                             \
    memset(got, 0, sizeof got);                                                                  \
    shmem_ctx_##NAME##_get(SHMEM_CTX_DEFAULT, got, target + CTX_PUT * N, N, right);              \
    for (int i = 0; i < N; ++i) CHECK_EQ(got[i], TAG(me, i, 1));                                 \
    CHECK_EQ(shmem_ctx_##NAME##_g(SHMEM_CTX_DEFAULT, target + PUT_SIGNAL * N, right), src[0]);   \
    shmem_barrier_all();                                                                         \
  }                                                                                              \
  static void rma_targets_##NAME(void* heap) {                                                   \
    static T stat[REGIONS * N];                                                                  \
    rma_##NAME((T*)heap);                                                                        \
    rma_##NAME(glob_##NAME);                                                                     \
    rma_##NAME(stat);                                                                            \
  }
GSHMEM_COMPAT_RMA_TYPES(DEF_RMA, )

/* Sized forms: element i of a BITS-bit array holds TAG(pe, i, salt) in its first byte. */
static unsigned char sized_target[REGIONS * N * 16];
#define DEF_SIZED(BITS, A)                                                                  \
  static void sized_##BITS(void) {                                                          \
    enum { B = BITS / 8 };                                                                  \
    unsigned char src[N * B], got[N * B];                                                   \
    memset(src, 0, sizeof src);                                                             \
    for (int i = 0; i < N; ++i) src[i * B] = (unsigned char)TAG(me, i, BITS);               \
    ++round_no;                                                                             \
    shmem_put##BITS(sized_target + PUT * N * B, src, N, right);                             \
    shmem_put##BITS##_nbi(sized_target + PUT_NBI * N * B, src, N, right);                   \
    shmem_iput##BITS(sized_target + IPUT * N * B, src, 2, 1, N / 2, right);                 \
    shmem_ctx_put##BITS(SHMEM_CTX_DEFAULT, sized_target + CTX_PUT * N * B, src, N, right);  \
    shmem_put##BITS##_signal_nbi(sized_target + PUT_SIGNAL * N * B, src, N, &sig, round_no, \
                                 SHMEM_SIGNAL_SET, right);                                  \
    shmem_signal_wait_until(&sig, SHMEM_CMP_EQ, round_no);                                  \
    shmem_barrier_all();                                                                    \
    for (int i = 0; i < N; ++i) {                                                           \
      CHECK_EQ(sized_target[(PUT * N + i) * B], TAG(left, i, BITS));                        \
      CHECK_EQ(sized_target[(PUT_NBI * N + i) * B], TAG(left, i, BITS));                    \
      CHECK_EQ(sized_target[(CTX_PUT * N + i) * B], TAG(left, i, BITS));                    \
      CHECK_EQ(sized_target[(PUT_SIGNAL * N + i) * B], TAG(left, i, BITS));                 \
    }                                                                                       \
    for (int i = 0; i < N / 2; ++i) {                                                       \
      CHECK_EQ(sized_target[(IPUT * N + 2 * i) * B], TAG(left, i, BITS));                   \
    }                                                                                       \
    memset(got, 0, sizeof got);                                                             \
    shmem_get##BITS(got, sized_target + PUT * N * B, N, right);                             \
    CHECK(memcmp(got, src, sizeof src) == 0);                                               \
    memset(got, 0, sizeof got);                                                             \
    shmem_get##BITS##_nbi(got, sized_target + PUT_NBI * N * B, N, right);                   \
    shmem_quiet();                                                                          \
    CHECK(memcmp(got, src, sizeof src) == 0);                                               \
    memset(got, 0, sizeof got);                                                             \
    shmem_iget##BITS(got, sized_target + IPUT * N * B, 1, 2, N / 2, right);                 \
    CHECK(memcmp(got, src, sizeof src / 2) == 0);                                           \
    memset(got, 0, sizeof got);                                                             \
    shmem_ctx_get##BITS(SHMEM_CTX_DEFAULT, got, sized_target + CTX_PUT * N * B, N, right);  \
    CHECK(memcmp(got, src, sizeof src) == 0);                                               \
    shmem_barrier_all();                                                                    \
  }
GSHMEM_COMPAT_SIZES(DEF_SIZED, )

/* Byte forms, into the heap. */
static void mem_forms(char* heap) {
  char src[64], got[64];
  for (int i = 0; i < 64; ++i) src[i] = (char)TAG(me, i, 9);
  ++round_no;
  shmem_putmem(heap, src, 64, right);
  shmem_putmem_nbi(heap + 64, src, 64, right);
  shmem_ctx_putmem(SHMEM_CTX_DEFAULT, heap + 128, src, 64, right);
  shmem_ctx_putmem_nbi(SHMEM_CTX_DEFAULT, heap + 192, src, 64, right);
  shmem_ctx_putmem_signal(SHMEM_CTX_DEFAULT, heap + 256, src, 64, &sig, round_no, SHMEM_SIGNAL_SET,
                          right);
  shmem_signal_wait_until(&sig, SHMEM_CMP_EQ, round_no);
  ++round_no;
  shmem_barrier_all();
  shmem_putmem_signal_nbi(heap + 320, src, 64, &sig, 1, SHMEM_SIGNAL_ADD, right);
  shmem_signal_wait_until(&sig, SHMEM_CMP_EQ, round_no);
  CHECK_EQ(shmem_signal_fetch(&sig), round_no);
  shmem_barrier_all();
  for (int r = 0; r < 6; ++r) {
    for (int i = 0; i < 64; ++i) CHECK_EQ(heap[r * 64 + i], TAG(left, i, 9));
  }
  memset(got, 0, sizeof got);
  shmem_getmem(got, heap, 64, right);
  CHECK(memcmp(got, src, 64) == 0);
  memset(got, 0, sizeof got);
  shmem_getmem_nbi(got, heap + 64, 64, right);
  shmem_quiet();
  CHECK(memcmp(got, src, 64) == 0);
  memset(got, 0, sizeof got);
  shmem_ctx_getmem(SHMEM_CTX_DEFAULT, got, heap + 128, 64, right);
  CHECK(memcmp(got, src, 64) == 0);
  memset(got, 0, sizeof got);
  shmem_ctx_getmem_nbi(SHMEM_CTX_DEFAULT, got, heap + 192, 64, right);
  shmem_ctx_quiet(SHMEM_CTX_DEFAULT);
  CHECK(memcmp(got, src, 64) == 0);
  shmem_barrier_all();
}

/* The C11 generic names, with arrays (which must decay) and typedef'd element types. */
long gen_long[N];
static double gen_double[N];
static int8_t gen_i8[N];
static size_t gen_size[N];
static void generic_forms(void) {
  long sl[N];
  double sd[N];
  int8_t s8[N];
  size_t ss[N];
  shmem_ctx_t ctx = SHMEM_CTX_DEFAULT;
  for (int i = 0; i < N; ++i) {
    sl[i] = TAG(me, i, 11);
    sd[i] = TAG(me, i, 12);
    s8[i] = (int8_t)TAG(me, i, 13);
    ss[i] = (size_t)TAG(me, i, 14);
  }
  shmem_put(gen_long, sl, N, right);
  shmem_put_nbi(ctx, gen_double, sd, N, right);
  shmem_iput(gen_i8, s8, 1, 1, N, right);
  shmem_put(ctx, gen_size, ss, N - 1, right);
  shmem_p(&gen_size[N - 1], ss[N - 1], right);
  shmem_barrier_all();
  for (int i = 0; i < N; ++i) {
    CHECK_EQ(gen_long[i], TAG(left, i, 11));
    CHECK_EQ(gen_double[i], TAG(left, i, 12));
    CHECK_EQ(gen_i8[i], TAG(left, i, 13));
    CHECK_EQ(gen_size[i], TAG(left, i, 14));
  }
  long gl[N];
  shmem_get(gl, gen_long, N, right);
  for (int i = 0; i < N; ++i) CHECK_EQ(gl[i], sl[i]);
  CHECK_EQ(shmem_g(&gen_double[2], right), sd[2]);
  CHECK_EQ(shmem_g(ctx, &gen_i8[3], right), s8[3]);
  shmem_barrier_all();
}

int main(int argc, char** argv) {
  shmem_init();
  me = shmem_my_pe();
  npes = shmem_n_pes();
  right = (me + 1) % npes;
  left = (me + npes - 1) % npes;
  void* heap = shmem_malloc(REGIONS * N * sizeof(long double));
  CHECK(heap != NULL);
  if (argc > 1 && strcmp(argv[1], "--few") == 0) {
    rma_targets_char(heap);
    rma_targets_longdouble(heap);
    sized_32();
  } else {
#define RUN_RMA(NAME, T, A) rma_targets_##NAME(heap);
    GSHMEM_COMPAT_RMA_TYPES(RUN_RMA, )
#define RUN_SIZED(BITS, A) sized_##BITS();
    GSHMEM_COMPAT_SIZES(RUN_SIZED, )
  }
  mem_forms(heap);
  generic_forms();
  shmem_free(heap);
  if (me == 0) printf("rma: %d PEs OK\n", npes);
  shmem_finalize();
  return 0;
}
