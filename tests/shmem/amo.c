/* Atomics through the OpenSHMEM API: every operation of every AMO type (standard, extended,
 * bitwise; plain, _nbi and ctx_ forms, and the C11 generic names) on three kinds of symmetric
 * target: the heap, a global and a function-local static. All PEs hammer PE 0's words at once,
 * so lost updates show in the totals; with --ppn some PEs reach PE 0 through the network while
 * others are mapped, and both kinds of atomics must agree on the same word.
 *
 *   amo [--few]   --few: only int, int64, uint64, double and fewer updates (the network runs
 *                 are slow on small machines) */
#include <string.h>

#include "check.h"

static int K = 40; /* updates per PE per counter (--few: 8) */
/* Words of a target. */
enum { ADD, INC, FADD, FINC, SET, SWAP, CSWAP, NBI, CTX, BITS, WORDS };

static int me, npes, right, left;

/* Standard AMO types: sums, increments, set/fetch/swap/compare_swap, the _nbi and ctx_ forms. */
#define DEF_AMO(NAME, T, A)                                                                      \
  static T glob_amo_##NAME[WORDS];                                                               \
  static void amo_##NAME(T* t) {                                                                 \
    T seen = 0, f = 0;                                                                           \
    for (int k = 0; k < K; ++k) {                                                                \
      shmem_##NAME##_atomic_add(&t[ADD], (T)2, 0);                                               \
      shmem_##NAME##_atomic_inc(&t[INC], 0);                                                     \
      seen = (T)(seen + shmem_##NAME##_atomic_fetch_add(&t[FADD], (T)1, 0));                     \
      (void)shmem_##NAME##_atomic_fetch_inc(&t[FINC], 0);                                        \
      shmem_##NAME##_atomic_fetch_add_nbi(&f, &t[NBI], (T)1, 0);                                 \
      shmem_ctx_##NAME##_atomic_add(SHMEM_CTX_DEFAULT, &t[CTX], (T)1, 0);                        \
    }                                                                                            \
    shmem_quiet();                                                                               \
    shmem_##NAME##_atomic_set(&t[SET], (T)TAG(me, 0, 1), right);                                 \
    shmem_barrier_all();                                                                         \
    if (me == 0) {                                                                               \
      CHECK_EQ(t[ADD], 2 * K * npes);                                                            \
      CHECK_EQ(t[INC], K* npes);                                                                 \
      CHECK_EQ(t[FADD], K* npes);                                                                \
      CHECK_EQ(t[FINC], K* npes);                                                                \
      CHECK_EQ(t[NBI], K* npes);                                                                 \
      CHECK_EQ(t[CTX], K* npes);                                                                 \
    }                                                                                            \
    /* Every fetch_add saw a distinct old value below K * npes, so the values seen by one PE     \
     * add up to at least 0 + 1 + ... + K-1. */                                                  \
    CHECK((long long)seen >= (long long)K * (K - 1) / 2);                                        \
    CHECK_EQ(t[SET], TAG(left, 0, 1));                                                           \
    CHECK_EQ(shmem_##NAME##_atomic_fetch(&t[SET], right), TAG(me, 0, 1));                        \
    shmem_##NAME##_atomic_fetch_nbi(&f, &t[SET], right);                                         \
    CHECK_EQ(f, TAG(me, 0, 1));                                                                  \
    CHECK_EQ(shmem_ctx_##NAME##_atomic_fetch(SHMEM_CTX_DEFAULT, &t[SET], right), TAG(me, 0, 1)); \
    shmem_##NAME##_atomic_set(&t[SWAP], (T)TAG(me, 1, 2), right);                                \
    shmem_##NAME##_atomic_set(&t[CSWAP], (T)TAG(me, 2, 3), right);                               \
    shmem_barrier_all();                                                                         \
    CHECK_EQ(shmem_##NAME##_atomic_swap(&t[SWAP], (T)TAG(me, 1, 4), right), TAG(me, 1, 2));      \
    shmem_##NAME##_atomic_swap_nbi(&f, &t[SWAP], (T)TAG(me, 1, 5), right);                       \
    shmem_quiet();                                                                               \
    CHECK_EQ(f, TAG(me, 1, 4));                                                                  \
    /* A compare_swap whose condition fails changes nothing and returns the value. */            \
    CHECK_EQ(shmem_##NAME##_atomic_compare_swap(&t[CSWAP], (T)99, (T)1, right), TAG(me, 2, 3));  \
    CHECK_EQ(shmem_##NAME##_atomic_compare_swap(&t[CSWAP], (T)TAG(me, 2, 3), (T)7, right),       \
             TAG(me, 2, 3));                                                                     \
    shmem_##NAME##_atomic_compare_swap_nbi(&f, &t[CSWAP], (T)7, (T)8, right);                    \
    shmem_quiet();                                                                               \
    CHECK_EQ(f, 7);                                                                              \
    shmem_##NAME##_atomic_fetch_inc_nbi(&f, &t[CSWAP], right);                                   \
    shmem_quiet();                                                                               \
    CHECK_EQ(f, 8);                                                                              \
    CHECK_EQ(shmem_ctx_##NAME##_atomic_swap(SHMEM_CTX_DEFAULT, &t[CSWAP], (T)0, right), 9);      \
    shmem_barrier_all();                                                                         \
    CHECK_EQ(t[SWAP], TAG(left, 1, 5));                                                          \
    CHECK_EQ(t[CSWAP], 0);                                                                       \
    shmem_barrier_all();                                                                         \
  }                                                                                              \
  static void amo_targets_##NAME(void) {                                                         \
    static T stat[WORDS];                                                                        \
    T* heap = (T*)shmem_calloc(WORDS, sizeof(T));                                                \
    amo_##NAME(heap);                                                                            \
    amo_##NAME(glob_amo_##NAME);                                                                 \
    amo_##NAME(stat);                                                                            \
    shmem_free(heap);                                                                            \
  }
GSHMEM_COMPAT_AMO_TYPES(DEF_AMO, )

/* Bitwise types: every PE sets, then clears, then toggles its own bit in PE 0's word. */
#define DEF_BITWISE(NAME, T, A)                                                             \
  static T glob_bit_##NAME;                                                                 \
  static void bitwise_##NAME(T* w) {                                                        \
    T bit = (T)((T)1 << me), all = (T)(((T)1 << npes) - 1), f = 0;                          \
    shmem_##NAME##_atomic_or(w, bit, 0);                                                    \
    shmem_barrier_all();                                                                    \
    CHECK_EQ(shmem_##NAME##_atomic_fetch(w, 0), all);                                       \
    shmem_barrier_all();                                                                    \
    CHECK(shmem_##NAME##_atomic_fetch_and(w, (T)~bit, 0) & bit);                            \
    shmem_barrier_all();                                                                    \
    CHECK_EQ(shmem_##NAME##_atomic_fetch(w, 0), 0);                                         \
    shmem_barrier_all();                                                                    \
    shmem_##NAME##_atomic_xor(w, bit, 0);                                                   \
    shmem_ctx_##NAME##_atomic_fetch_xor_nbi(SHMEM_CTX_DEFAULT, &f, w, (T)(bit << npes), 0); \
    shmem_quiet();                                                                          \
    CHECK(f& bit);                                                                          \
    shmem_barrier_all();                                                                    \
    CHECK_EQ(shmem_##NAME##_atomic_fetch(w, 0), (T)(all | (all << npes)));                  \
    shmem_barrier_all();                                                                    \
    shmem_##NAME##_atomic_and(w, (T) ~(bit | (bit << npes)), 0);                            \
    shmem_##NAME##_atomic_fetch_or_nbi(&f, w, (T)0, 0);                                     \
    CHECK_EQ(shmem_##NAME##_atomic_fetch_or(w, (T)0, 0) & (bit | (bit << npes)), 0);        \
    shmem_ctx_##NAME##_atomic_fetch_and_nbi(SHMEM_CTX_DEFAULT, &f, w, (T) ~(T)0, 0);        \
    shmem_##NAME##_atomic_fetch_xor(w, (T)0, 0);                                            \
    shmem_##NAME##_atomic_fetch_and_nbi(&f, w, (T) ~(T)0, 0);                               \
    shmem_##NAME##_atomic_fetch_xor_nbi(&f, w, (T)0, 0);                                    \
    shmem_ctx_##NAME##_atomic_or(SHMEM_CTX_DEFAULT, w, (T)0, 0);                            \
    shmem_barrier_all();                                                                    \
    CHECK_EQ(*w, 0);                                                                        \
    shmem_barrier_all();                                                                    \
  }                                                                                         \
  static void bitwise_targets_##NAME(void) {                                                \
    static T stat;                                                                          \
    T* heap = (T*)shmem_calloc(1, sizeof(T));                                               \
    bitwise_##NAME(heap);                                                                   \
    bitwise_##NAME(&glob_bit_##NAME);                                                       \
    bitwise_##NAME(&stat);                                                                  \
    shmem_free(heap);                                                                       \
  }
GSHMEM_COMPAT_AMO_BITWISE(DEF_BITWISE, )

/* Extended types (float, double): fetch, set, swap. */
#define DEF_EXTENDED(NAME, T, A)                                                    \
  static T glob_ext_##NAME;                                                         \
  static void extended_##NAME(void) {                                               \
    static T stat;                                                                  \
    T f = 0;                                                                        \
    shmem_##NAME##_atomic_set(&glob_ext_##NAME, (T)(me + 0.5), right);              \
    shmem_ctx_##NAME##_atomic_set(SHMEM_CTX_DEFAULT, &stat, (T)(me + 0.25), right); \
    shmem_barrier_all();                                                            \
    CHECK(glob_ext_##NAME == (T)(left + 0.5) && stat == (T)(left + 0.25));          \
    shmem_barrier_all(); /* the left neighbour swaps them next */                   \
    CHECK(shmem_##NAME##_atomic_fetch(&glob_ext_##NAME, right) == (T)(me + 0.5));   \
    CHECK(shmem_##NAME##_atomic_swap(&stat, (T)-1.5, right) == (T)(me + 0.25));     \
    shmem_##NAME##_atomic_swap_nbi(&f, &glob_ext_##NAME, (T)2.5, right);            \
    shmem_quiet();                                                                  \
    CHECK(f == (T)(me + 0.5));                                                      \
    shmem_ctx_##NAME##_atomic_fetch_nbi(SHMEM_CTX_DEFAULT, &f, &stat, right);       \
    shmem_quiet();                                                                  \
    CHECK(f == (T)-1.5);                                                            \
    shmem_barrier_all();                                                            \
    CHECK(glob_ext_##NAME == (T)2.5);                                               \
    shmem_barrier_all();                                                            \
  }
GSHMEM_COMPAT_AMO_EXTENDED_ONLY(DEF_EXTENDED, )

/* The C11 generic names. */
long gen_counter;
static unsigned int gen_bits;
static double gen_double;
static void generic_forms(void) {
  long f = 0;
  shmem_ctx_t ctx = SHMEM_CTX_DEFAULT;
  shmem_atomic_add(&gen_counter, 1L, 0);
  shmem_atomic_inc(ctx, &gen_counter, 0);
  shmem_atomic_fetch_add_nbi(&f, &gen_counter, 2L, 0);
  (void)shmem_atomic_fetch_inc(&gen_counter, 0);
  shmem_atomic_or(&gen_bits, 1u << me, 0);
  shmem_atomic_set(&gen_double, 1.5, right);
  shmem_quiet();
  shmem_barrier_all();
  if (me == 0) CHECK_EQ(gen_counter, 5 * npes);
  CHECK_EQ(shmem_atomic_fetch(&gen_bits, 0), (1u << npes) - 1);
  CHECK(gen_double == 1.5);
  shmem_barrier_all();
  CHECK(shmem_atomic_swap(&gen_double, 2.0, right) == 1.5);
  shmem_barrier_all();
  if (me == 0) {
    CHECK_EQ(shmem_atomic_compare_swap(&gen_counter, 5L * npes, 0L, 0), 5 * npes);
    CHECK_EQ(shmem_atomic_fetch_xor(ctx, &gen_bits, (1u << npes) - 1, 0), (1u << npes) - 1);
  }
  shmem_barrier_all();
  CHECK_EQ(gen_counter, 0);
  CHECK_EQ(gen_bits, 0);
}

int main(int argc, char** argv) {
  shmem_init();
  me = shmem_my_pe();
  npes = shmem_n_pes();
  right = (me + 1) % npes;
  left = (me + npes - 1) % npes;
  if (argc > 1 && strcmp(argv[1], "--few") == 0) {
    K = 8;
    amo_targets_int();
    amo_targets_int64();
    bitwise_targets_uint64();
    extended_double();
  } else {
#define RUN_AMO(NAME, T, A) amo_targets_##NAME();
    GSHMEM_COMPAT_AMO_TYPES(RUN_AMO, )
#define RUN_BITWISE(NAME, T, A) bitwise_targets_##NAME();
    GSHMEM_COMPAT_AMO_BITWISE(RUN_BITWISE, )
#define RUN_EXTENDED(NAME, T, A) extended_##NAME();
    GSHMEM_COMPAT_AMO_EXTENDED_ONLY(RUN_EXTENDED, )
  }
  generic_forms();
  if (me == 0) printf("amo: %d PEs OK\n", npes);
  shmem_finalize();
  return 0;
}
