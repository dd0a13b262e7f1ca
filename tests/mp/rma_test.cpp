// RMA: every typed wrapper for every type of GSHMEM_FOR_RMA_TYPES (generated from the X-macro list,
// so a type added there is tested here), the sized forms of GSHMEM_FOR_SIZES, and the byte forms.
//
// Each check: destinations poisoned, every PE moves fresh random data to every PE (itself
// included), the receiver regenerates what the sender sent and compares, and the bytes around
// the range must still hold the poison. Large transfers (a few MiB) go to the ring neighbour and
// to self only, to keep 8 PEs on 2 cores quick.
#include <gtest/gtest.h>

#include <cstring>
#include <functional>
#include <vector>

#include "gshmem/gshmem.h"
#include "tests/common/mp_util.hpp"

#ifdef __SANITIZE_ADDRESS__
#include <sanitizer/asan_interface.h>
#endif

using namespace gshmem_test;

namespace {

// Who talks to whom. All pairs: every PE with every PE. Ring: each PE with itself and the next.
struct Pairs {
  bool all;
  int me = gshmem_my_pe(), n = gshmem_n_pes();

  std::vector<int> targets() const {  // PEs this PE writes to / reads from
    std::vector<int> v;
    if (all) {
      for (int pe = 0; pe < n; ++pe) v.push_back(pe);
    } else {
      v.push_back(me);
      if (n > 1) v.push_back((me + 1) % n);
    }
    return v;
  }
  std::vector<int> sources() const {  // PEs that write to / read from this PE
    std::vector<int> v;
    if (all) {
      for (int pe = 0; pe < n; ++pe) v.push_back(pe);
    } else {
      v.push_back(me);
      if (n > 1) v.push_back((me + n - 1) % n);
    }
    return v;
  }
  size_t slots() const { return all ? size_t(n) : 2; }
  // Slot, in `self`'s buffer, that belongs to `other`.
  size_t slot(int other, int self) const { return all ? size_t(other) : other == self ? 0 : 1; }
};

const std::vector<size_t> kCounts = {0, 1, 3, 17, 1001};
constexpr size_t kGuard = 5;  // poisoned elements after each slot, to catch overruns

template <class T>
using PutFn = std::function<void(T*, const T*, size_t, int)>;
template <class T>
using StridedFn = std::function<void(T*, const T*, ptrdiff_t, ptrdiff_t, size_t, int)>;

// Put-like: every PE writes `count` elements into its slot of every target's buffer.
template <class T>
void check_put(const char* what, const PutFn<T>& put, bool nbi, size_t count, Pairs pairs) {
  SCOPED_TRACE(std::string(what) + " of " + std::to_string(count) + " elements");
  const size_t stride = count + kGuard;
  T* dst = static_cast<T*>(gshmem_malloc(pairs.slots() * stride * sizeof(T)));
  EXPECT_NE(dst, nullptr);
  if (!dst) return;
  poison(dst, pairs.slots() * stride * sizeof(T));
  gshmem_barrier_all();

  uint64_t tag = key(what, count);
  std::vector<std::vector<T>> sent;
  for (int t : pairs.targets()) {
    sent.push_back(make_data<T>(count, key(job_seed(), tag, pairs.me, t)));
    put(dst + pairs.slot(pairs.me, t) * stride, sent.back().data(), count, t);
    // A blocking put has read its source when it returns: scribbling on it must not matter.
    if (!nbi) poison(sent.back().data(), count * sizeof(T));
  }
  if (nbi) gshmem_quiet();
  gshmem_barrier_all();

  for (int s : pairs.sources()) {
    std::vector<T> want = make_data<T>(count, key(job_seed(), tag, s, pairs.me));
    const T* got = dst + pairs.slot(s, pairs.me) * stride;
    EXPECT_TRUE(same_bytes(got, want.data(), count * sizeof(T))) << "data from PE " << s;
    EXPECT_TRUE(all_poison(got + count, kGuard * sizeof(T))) << "after data from PE " << s;
  }
  gshmem_barrier_all();
  gshmem_free(dst);
}

// Get-like: every PE reads `count` elements from its slot of every target's buffer.
template <class T>
void check_get(const char* what, const PutFn<T>& get, bool nbi, size_t count, Pairs pairs) {
  SCOPED_TRACE(std::string(what) + " of " + std::to_string(count) + " elements");
  const size_t stride = count + kGuard;
  T* src = static_cast<T*>(gshmem_malloc(pairs.slots() * stride * sizeof(T)));
  EXPECT_NE(src, nullptr);
  if (!src) return;
  uint64_t tag = key(what, count);
  for (int reader : pairs.sources()) {
    fill(src + pairs.slot(reader, pairs.me) * stride, count,
         key(job_seed(), tag, pairs.me, reader));
  }
  gshmem_barrier_all();

  std::vector<std::vector<T>> got;
  std::vector<int> from = pairs.targets();
  for (int t : from) {
    got.emplace_back(stride);
    poison(got.back().data(), stride * sizeof(T));
    get(got.back().data(), src + pairs.slot(pairs.me, t) * stride, count, t);
  }
  if (nbi) gshmem_quiet();
  for (size_t i = 0; i < from.size(); ++i) {
    std::vector<T> want = make_data<T>(count, key(job_seed(), tag, from[i], pairs.me));
    EXPECT_TRUE(same_bytes(got[i].data(), want.data(), count * sizeof(T)))
        << "data from PE " << from[i];
    EXPECT_TRUE(all_poison(got[i].data() + count, kGuard * sizeof(T)))
        << "after data from PE " << from[i];
  }
  gshmem_barrier_all();
  gshmem_free(src);
}

struct StrideCase {
  ptrdiff_t dst, src;
  size_t count;
};
const std::vector<StrideCase> kStrides = {{1, 1, 0}, {1, 1, 7}, {2, 3, 5}, {3, 1, 4}, {1, 4, 1}};

size_t span(ptrdiff_t stride, size_t count) {
  return count ? (count - 1) * size_t(stride) + 1 : 0;
}

// Strided put: element i of the source (stride src) lands at dst[i * dst_stride] everywhere.
template <class T>
void check_iput(const char* what, const StridedFn<T>& iput, StrideCase c) {
  SCOPED_TRACE(std::string(what) + " dst_stride " + std::to_string(c.dst) + " src_stride " +
               std::to_string(c.src) + " count " + std::to_string(c.count));
  Pairs pairs{true};
  const size_t stride = span(c.dst, c.count) + kGuard;
  T* dst = static_cast<T*>(gshmem_malloc(pairs.slots() * stride * sizeof(T)));
  EXPECT_NE(dst, nullptr);
  if (!dst) return;
  poison(dst, pairs.slots() * stride * sizeof(T));
  gshmem_barrier_all();
  uint64_t tag = key(what, c.dst, c.src, c.count);
  for (int t : pairs.targets()) {
    std::vector<T> src = make_data<T>(span(c.src, c.count), key(job_seed(), tag, pairs.me, t));
    iput(dst + size_t(pairs.me) * stride, src.data(), c.dst, c.src, c.count, t);
  }
  gshmem_barrier_all();
  for (int s : pairs.sources()) {
    std::vector<T> src = make_data<T>(span(c.src, c.count), key(job_seed(), tag, s, pairs.me));
    std::vector<T> want(stride);
    poison(want.data(), stride * sizeof(T));
    for (size_t i = 0; i < c.count; ++i) want[i * size_t(c.dst)] = src[i * size_t(c.src)];
    EXPECT_TRUE(same_bytes(dst + size_t(s) * stride, want.data(), stride * sizeof(T)))
        << "strided data from PE " << s << " (gaps must keep their poison)";
  }
  gshmem_barrier_all();
  gshmem_free(dst);
}

template <class T>
void check_iget(const char* what, const StridedFn<T>& iget, StrideCase c) {
  SCOPED_TRACE(std::string(what) + " dst_stride " + std::to_string(c.dst) + " src_stride " +
               std::to_string(c.src) + " count " + std::to_string(c.count));
  Pairs pairs{true};
  const size_t sspan = span(c.src, c.count) + kGuard;
  T* src = static_cast<T*>(gshmem_malloc(pairs.slots() * sspan * sizeof(T)));
  EXPECT_NE(src, nullptr);
  if (!src) return;
  uint64_t tag = key(what, c.dst, c.src, c.count);
  for (int reader : pairs.sources()) {
    fill(src + size_t(reader) * sspan, sspan, key(job_seed(), tag, pairs.me, reader));
  }
  gshmem_barrier_all();
  const size_t dspan = span(c.dst, c.count) + kGuard;
  for (int t : pairs.targets()) {
    std::vector<T> got(dspan);
    poison(got.data(), dspan * sizeof(T));
    iget(got.data(), src + size_t(pairs.me) * sspan, c.dst, c.src, c.count, t);
    std::vector<T> owner = make_data<T>(sspan, key(job_seed(), tag, t, pairs.me));
    std::vector<T> want(dspan);
    poison(want.data(), dspan * sizeof(T));
    for (size_t i = 0; i < c.count; ++i) want[i * size_t(c.dst)] = owner[i * size_t(c.src)];
    EXPECT_TRUE(same_bytes(got.data(), want.data(), dspan * sizeof(T)))
        << "strided data from PE " << t << " (gaps must keep their poison)";
  }
  gshmem_barrier_all();
  gshmem_free(src);
}

// ---- Typed wrappers ----------------------------------------------------------------------------

template <class T>
struct RmaOps {
  const char* name;
  void (*put)(T*, const T*, size_t, int);
  void (*put_nbi)(T*, const T*, size_t, int);
  void (*get)(T*, const T*, size_t, int);
  void (*get_nbi)(T*, const T*, size_t, int);
  void (*p)(T*, T, int);
  T (*g)(const T*, int);
  void (*iput)(T*, const T*, ptrdiff_t, ptrdiff_t, size_t, int);
  void (*iget)(T*, const T*, ptrdiff_t, ptrdiff_t, size_t, int);
  void (*put_signal)(T*, const T*, size_t, uint64_t*, uint64_t, int, int);
  void (*put_signal_nbi)(T*, const T*, size_t, uint64_t*, uint64_t, int, int);
};

// p to every PE, then g from every PE.
template <class T>
void check_p_g(const RmaOps<T>& ops) {
  SCOPED_TRACE(std::string("gshmem_") + ops.name + "_p/_g");
  int me = gshmem_my_pe(), n = gshmem_n_pes();
  constexpr size_t k = 3;
  T* cells = static_cast<T*>(gshmem_malloc(size_t(n) * k * sizeof(T)));
  EXPECT_NE(cells, nullptr);
  if (!cells) return;
  poison(cells, size_t(n) * k * sizeof(T));
  gshmem_barrier_all();
  uint64_t tag = key(ops.name, "p");
  for (int t = 0; t < n; ++t) {
    std::vector<T> v = make_data<T>(k, key(job_seed(), tag, me, t));
    for (size_t i = 0; i < k; ++i) ops.p(&cells[size_t(me) * k + i], v[i], t);
  }
  gshmem_barrier_all();
  for (int s = 0; s < n; ++s) {
    std::vector<T> want = make_data<T>(k, key(job_seed(), tag, s, me));
    EXPECT_TRUE(same_bytes(&cells[size_t(s) * k], want.data(), k * sizeof(T))) << "p from PE " << s;
  }
  gshmem_barrier_all();
  // g: each PE's cells now hold what the others p'd; read them back from every PE.
  for (int t = 0; t < n; ++t) {
    for (int s = 0; s < n; ++s) {
      std::vector<T> want = make_data<T>(k, key(job_seed(), tag, s, t));
      for (size_t i = 0; i < k; ++i) {
        T got = ops.g(&cells[size_t(s) * k + i], t);
        EXPECT_TRUE(same_bytes(&got, &want[i], sizeof(T)))
            << "g of element " << i << " of slot " << s << " on PE " << t;
      }
    }
  }
  gshmem_barrier_all();
  gshmem_free(cells);
}

// put_signal and put_signal_nbi, with SET and ADD: the data is there once the signal is.
template <class T>
void check_put_signal(const RmaOps<T>& ops) {
  int me = gshmem_my_pe(), n = gshmem_n_pes();
  const size_t count = 129, stride = count + kGuard;
  T* dst = static_cast<T*>(gshmem_malloc(size_t(n) * stride * sizeof(T)));
  auto* sig = static_cast<uint64_t*>(gshmem_malloc(size_t(n) * sizeof(uint64_t)));
  EXPECT_TRUE(dst && sig);
  if (!dst || !sig) return;
  struct Variant {
    const char* what;
    void (*fn)(T*, const T*, size_t, uint64_t*, uint64_t, int, int);
    int op;
  } variants[] = {{"put_signal SET", ops.put_signal, GSHMEM_SIGNAL_SET},
                  {"put_signal ADD", ops.put_signal, GSHMEM_SIGNAL_ADD},
                  {"put_signal_nbi SET", ops.put_signal_nbi, GSHMEM_SIGNAL_SET},
                  {"put_signal_nbi ADD", ops.put_signal_nbi, GSHMEM_SIGNAL_ADD}};
  for (const Variant& v : variants) {
    SCOPED_TRACE(std::string("gshmem_") + ops.name + "_" + v.what);
    poison(dst, size_t(n) * stride * sizeof(T));
    for (int s = 0; s < n; ++s) sig[s] = v.op == GSHMEM_SIGNAL_ADD ? 1000 : 0;
    gshmem_barrier_all();
    uint64_t tag = key(ops.name, v.what);
    std::vector<std::vector<T>> sent;
    for (int t = 0; t < n; ++t) {
      sent.push_back(make_data<T>(count, key(job_seed(), tag, me, t)));
      v.fn(dst + size_t(me) * stride, sent.back().data(), count, &sig[me], uint64_t(me + 1) * 7,
           v.op, t);
    }
    for (int s = 0; s < n; ++s) {
      uint64_t want_sig = uint64_t(s + 1) * 7 + (v.op == GSHMEM_SIGNAL_ADD ? 1000 : 0);
      uint64_t seen = gshmem_signal_wait_until(&sig[s], GSHMEM_CMP_EQ, want_sig);
      EXPECT_EQ(seen, want_sig);
      std::vector<T> want = make_data<T>(count, key(job_seed(), tag, s, me));
      EXPECT_TRUE(same_bytes(dst + size_t(s) * stride, want.data(), count * sizeof(T)))
          << "data from PE " << s << " once its signal arrived";
      EXPECT_TRUE(all_poison(dst + size_t(s) * stride + count, kGuard * sizeof(T)));
    }
    gshmem_quiet();
    gshmem_barrier_all();
  }
  gshmem_free(sig);
  gshmem_free(dst);
}

template <class T>
void run_typed(const RmaOps<T>& ops) {
  SCOPED_TRACE(seed_note());
  std::string base = std::string("gshmem_") + ops.name;
  std::string put = base + "_put", put_nbi = base + "_put_nbi", get = base + "_get",
              get_nbi = base + "_get_nbi";
  for (size_t count : kCounts) {
    check_put<T>(put.c_str(), ops.put, false, count, Pairs{true});
    check_put<T>(put_nbi.c_str(), ops.put_nbi, true, count, Pairs{true});
    check_get<T>(get.c_str(), ops.get, false, count, Pairs{true});
    check_get<T>(get_nbi.c_str(), ops.get_nbi, true, count, Pairs{true});
  }
  check_p_g(ops);
  std::string iput = base + "_iput", iget = base + "_iget";
  for (StrideCase c : kStrides) {
    check_iput<T>(iput.c_str(), ops.iput, c);
    check_iget<T>(iget.c_str(), ops.iget, c);
  }
  check_put_signal(ops);
}

}  // namespace

#define GSHMEM_TEST_RMA_TYPE(NAME, T)                                                             \
  TEST(RmaTyped, NAME) {                                                                          \
    run_typed(RmaOps<T>{#NAME, gshmem_##NAME##_put, gshmem_##NAME##_put_nbi, gshmem_##NAME##_get, \
                        gshmem_##NAME##_get_nbi, gshmem_##NAME##_p, gshmem_##NAME##_g,            \
                        gshmem_##NAME##_iput, gshmem_##NAME##_iget, gshmem_##NAME##_put_signal,   \
                        gshmem_##NAME##_put_signal_nbi});                                         \
  }
GSHMEM_FOR_RMA_TYPES(GSHMEM_TEST_RMA_TYPE)
#undef GSHMEM_TEST_RMA_TYPE

// ---- Sized forms: elements of BITS/8 bytes
// -------------------------------------------------------

namespace {

template <size_t Bytes>
struct Elem {
  unsigned char b[Bytes];
};

struct SizedOps {
  int bits;
  void (*put)(void*, const void*, size_t, int);
  void (*put_nbi)(void*, const void*, size_t, int);
  void (*get)(void*, const void*, size_t, int);
  void (*get_nbi)(void*, const void*, size_t, int);
  void (*iput)(void*, const void*, ptrdiff_t, ptrdiff_t, size_t, int);
  void (*iget)(void*, const void*, ptrdiff_t, ptrdiff_t, size_t, int);
};

template <size_t Bytes>
void run_sized(const SizedOps& ops) {
  using E = Elem<Bytes>;
  SCOPED_TRACE(seed_note());
  std::string b = std::to_string(ops.bits);
  auto wrap = [](void (*fn)(void*, const void*, size_t, int)) {
    return PutFn<E>([fn](E* d, const E* s, size_t n, int pe) { fn(d, s, n, pe); });
  };
  auto wrap_strided = [](void (*fn)(void*, const void*, ptrdiff_t, ptrdiff_t, size_t, int)) {
    return StridedFn<E>([fn](E* d, const E* s, ptrdiff_t ds, ptrdiff_t ss, size_t n, int pe) {
      fn(d, s, ds, ss, n, pe);
    });
  };
  std::string put = "gshmem_put" + b, put_nbi = put + "_nbi", get = "gshmem_get" + b,
              get_nbi = get + "_nbi", iput = "gshmem_iput" + b, iget = "gshmem_iget" + b;
  for (size_t count : kCounts) {
    check_put<E>(put.c_str(), wrap(ops.put), false, count, Pairs{true});
    check_put<E>(put_nbi.c_str(), wrap(ops.put_nbi), true, count, Pairs{true});
    check_get<E>(get.c_str(), wrap(ops.get), false, count, Pairs{true});
    check_get<E>(get_nbi.c_str(), wrap(ops.get_nbi), true, count, Pairs{true});
  }
  // A few MiB, an odd element count: ring neighbour and self.
  size_t large = (3u << 20) / Bytes + 3;
  check_put<E>(put.c_str(), wrap(ops.put), false, large, Pairs{false});
  check_get<E>(get_nbi.c_str(), wrap(ops.get_nbi), true, large, Pairs{false});
  for (StrideCase c : kStrides) {
    check_iput<E>(iput.c_str(), wrap_strided(ops.iput), c);
    check_iget<E>(iget.c_str(), wrap_strided(ops.iget), c);
  }
}

}  // namespace

#define GSHMEM_TEST_SIZED(BITS)                                                                    \
  TEST(RmaSized, Bits##BITS) {                                                                     \
    run_sized<BITS / 8>(SizedOps{BITS, gshmem_put##BITS, gshmem_put##BITS##_nbi, gshmem_get##BITS, \
                                 gshmem_get##BITS##_nbi, gshmem_iput##BITS, gshmem_iget##BITS});   \
  }
GSHMEM_FOR_SIZES(GSHMEM_TEST_SIZED)
#undef GSHMEM_TEST_SIZED

// ---- Bytes
// ---------------------------------------------------------------------------------------

TEST(RmaMem, PutmemGetmemAllSizes) {
  SCOPED_TRACE(seed_note());
  using Byte = unsigned char;
  PutFn<Byte> put = [](Byte* d, const Byte* s, size_t n, int pe) { gshmem_putmem(d, s, n, pe); };
  PutFn<Byte> put_nbi = [](Byte* d, const Byte* s, size_t n, int pe) {
    gshmem_putmem_nbi(d, s, n, pe);
  };
  PutFn<Byte> get = [](Byte* d, const Byte* s, size_t n, int pe) { gshmem_getmem(d, s, n, pe); };
  PutFn<Byte> get_nbi = [](Byte* d, const Byte* s, size_t n, int pe) {
    gshmem_getmem_nbi(d, s, n, pe);
  };
  for (size_t bytes : {size_t(0), size_t(1), size_t(7), size_t(64), size_t(4099)}) {
    check_put<Byte>("gshmem_putmem", put, false, bytes, Pairs{true});
    check_put<Byte>("gshmem_putmem_nbi", put_nbi, true, bytes, Pairs{true});
    check_get<Byte>("gshmem_getmem", get, false, bytes, Pairs{true});
    check_get<Byte>("gshmem_getmem_nbi", get_nbi, true, bytes, Pairs{true});
  }
  size_t large = (4u << 20) + 13;
  check_put<Byte>("gshmem_putmem", put, false, large, Pairs{false});
  check_put<Byte>("gshmem_putmem_nbi", put_nbi, true, large, Pairs{false});
  check_get<Byte>("gshmem_getmem", get, false, large, Pairs{false});
  check_get<Byte>("gshmem_getmem_nbi", get_nbi, true, large, Pairs{false});
}

// Misaligned ends on both sides: the destination starts one byte into a block and the source
// three bytes into a buffer.
TEST(RmaMem, UnalignedAddresses) {
  SCOPED_TRACE(seed_note());
  int me = gshmem_my_pe(), n = gshmem_n_pes();
  const size_t bytes = 1000003, stride = bytes + 64;
  auto* dst = static_cast<unsigned char*>(gshmem_malloc(size_t(n) * stride));
  ASSERT_NE(dst, nullptr);  // same result on every PE: returning here keeps them in step
  poison(dst, size_t(n) * stride);
  gshmem_barrier_all();
  int t = (me + 1) % n;
  std::vector<unsigned char> src(bytes + 3);
  fill(src.data() + 3, bytes, key(job_seed(), "unaligned", me));
  gshmem_putmem(dst + size_t(me) * stride + 1, src.data() + 3, bytes, t);
  gshmem_barrier_all();
  int s = (me + n - 1) % n;
  std::vector<unsigned char> want =
      make_data<unsigned char>(bytes, key(job_seed(), "unaligned", s));
  unsigned char* got = dst + size_t(s) * stride;
  EXPECT_TRUE(all_poison(got, 1));
  EXPECT_TRUE(same_bytes(got + 1, want.data(), bytes));
  EXPECT_TRUE(all_poison(got + 1 + bytes, stride - bytes - 1));
  // And back with getmem into a misaligned local buffer.
  std::vector<unsigned char> back(bytes + 5);
  poison(back.data(), back.size());
  gshmem_getmem(back.data() + 1, dst + size_t(me) * stride + 1, bytes, t);
  EXPECT_TRUE(same_bytes(back.data() + 1, src.data() + 3, bytes));
  EXPECT_TRUE(all_poison(back.data() + 1 + bytes, 4));
  gshmem_barrier_all();
  gshmem_free(dst);
}

// ---- Static data: globals are symmetric too (GSHMEM_STATIC_DATA, on by default) ---------------

namespace {
long g_slots[64];
uint64_t g_counter;
int g_untouched = 17;  // initialised data (not bss) must keep its value
}  // namespace

TEST(RmaStatic, GlobalsAreRemoteTargets) {
  int me = gshmem_my_pe(), n = gshmem_n_pes();
  ASSERT_LE(n, 64);
  EXPECT_EQ(g_untouched, 17);
  for (int t = 0; t < n; ++t) {
    gshmem_long_p(&g_slots[me], 1000 + me, t);
    gshmem_uint64_atomic_add(&g_counter, uint64_t(me + 1), t);
  }
  gshmem_barrier_all();
  for (int s = 0; s < n; ++s) EXPECT_EQ(g_slots[s], 1000 + s) << "slot of PE " << s;
  EXPECT_EQ(g_counter, uint64_t(n) * uint64_t(n + 1) / 2);
  long got[64] = {};
  gshmem_long_get(got, g_slots, size_t(n), (me + 1) % n);
  for (int s = 0; s < n; ++s) EXPECT_EQ(got[s], 1000 + s) << "slot " << s << " read remotely";
  EXPECT_EQ(gshmem_int_g(&g_untouched, (me + 1) % n), 17);
  gshmem_barrier_all();
}

#ifdef __SANITIZE_ADDRESS__
// Under AddressSanitizer (-DGSHMEM_ASAN=ON) the remapped data segment keeps its shadow: a
// global's redzone is still poisoned after gshmem_init, so overflows of globals are still seen.
TEST(RmaStatic, AsanStillGuardsTheGlobals) {
  ASSERT_NE(gshmem_ptr(g_slots, gshmem_my_pe()), nullptr) << "g_slots is not in the static segment";
  EXPECT_FALSE(__asan_address_is_poisoned(&g_slots[63]));
  EXPECT_TRUE(__asan_address_is_poisoned(reinterpret_cast<char*>(g_slots) + sizeof g_slots))
      << "the redzone after g_slots lost its poison in the remap";
}
#endif
