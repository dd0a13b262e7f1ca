#include "tests/soak/mix.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <string>
#include <type_traits>
#include <vector>

#include "gshmem/collectives.h"
#include "gshmem/gshmem.h"
#include "tests/common/mp_util.hpp"
#include "tests/moe/moe_check.hpp"

namespace soak {

using gshmem_test::fill;
using gshmem_test::key;
using gshmem_test::same_bytes;
using gshmem_test::splitmix64;

bool Checker::check(bool ok, const char* what, ...) {
  if (ok) return true;
  if (++failures_ <= 20) {
    char msg[1024];
    va_list ap;
    va_start(ap, what);
    std::vsnprintf(msg, sizeof msg, what, ap);
    va_end(ap);
    std::fprintf(stderr, "[PE %d] FAILURE iteration %ld: %s (rerun with MP_TEST_SEED=%llu)\n",
                 gshmem_my_pe(), iteration_, msg, static_cast<unsigned long long>(seed_));
  }
  return false;
}

namespace {

constexpr size_t kMaxRma = 200000;  // bytes; above 64 KiB, where transports change paths
constexpr int kSlots = 4;
constexpr size_t kSlot = 256 * 1024;

// One of `options`, or the last (the largest) when `largest`.
template <class T, size_t N>
T pick(uint64_t& rng, const T (&options)[N], bool largest) {
  return largest ? options[N - 1] : options[splitmix64(rng) % N];
}

// Sender `pe`'s bytes for stream `tag` of this iteration.
std::vector<unsigned char> payload(uint64_t seed, const char* tag, int pe, size_t bytes) {
  std::vector<uint64_t> words((bytes + 7) / 8);
  fill(words.data(), words.size(), key(seed, tag, pe));
  std::vector<unsigned char> v(bytes);
  if (bytes) std::memcpy(v.data(), words.data(), bytes);
  return v;
}

std::string why(const testing::AssertionResult& r) {
  return r ? "" : r.message();
}

// ---- Collectives: inputs, the reference, the types --------------------------------------------

// Member p's element k. Floating types get small integers, so sums and averages are exact in any
// order; integer types get the full range (their sums and products wrap, as the reference's do).
template <class T>
T value(uint64_t seed, int p, size_t k) {
  uint64_t s = seed ^ (uint64_t(p) << 48) ^ k;  // seed is a key() of its own: streams differ
  uint64_t r = splitmix64(s);
  if constexpr (std::is_floating_point_v<T>) {
    return T(int64_t(r % 9) - 4);
  } else {
    return T(r);
  }
}

// Integer arithmetic in the unsigned type (wraps, as the library's does); floats as they are.
template <class T, bool = std::is_integral_v<T>>
struct Wide {
  using type = T;
};
template <class T>
struct Wide<T, true> {
  using type = std::make_unsigned_t<T>;
};

template <class T>
T apply(gshmem_redop_t op, T a, T b) {
  using W = typename Wide<T>::type;
  switch (op) {
    case GSHMEM_SUM:
    case GSHMEM_AVG:
      return T(W(a) + W(b));
    case GSHMEM_PROD:
      return T(W(a) * W(b));
    case GSHMEM_MIN:
      return std::min(a, b);
    case GSHMEM_MAX:
      return std::max(a, b);
    default:
      if constexpr (std::is_integral_v<T>) {
        if (op == GSHMEM_BAND) return T(a & b);
        if (op == GSHMEM_BOR) return T(a | b);
        return T(a ^ b);
      }
      return a;
  }
}

// op over the members (world PEs `members`) of element k of stream `seed`.
template <class T>
T reduced(gshmem_redop_t op, uint64_t seed, const std::vector<int>& members, size_t k) {
  T acc = value<T>(seed, members[0], k);
  for (size_t i = 1; i < members.size(); ++i) acc = apply(op, acc, value<T>(seed, members[i], k));
  if constexpr (std::is_floating_point_v<T>) {
    if (op == GSHMEM_AVG) acc = acc / T(members.size());
  }
  return acc;
}

template <class T>
constexpr gshmem_datatype_t dtype_of() {
  if constexpr (std::is_same_v<T, float>) return GSHMEM_FLOAT;
  if constexpr (std::is_same_v<T, double>) return GSHMEM_DOUBLE;
  if constexpr (std::is_same_v<T, uint8_t>) return GSHMEM_UINT8;
  if constexpr (std::is_same_v<T, int16_t>) return GSHMEM_INT16;
  if constexpr (std::is_same_v<T, int32_t>) return GSHMEM_INT32;
  if constexpr (std::is_same_v<T, uint32_t>) return GSHMEM_UINT32;
  if constexpr (std::is_same_v<T, int64_t>) return GSHMEM_INT64;
  return GSHMEM_UINT64;
}

template <class T>
std::string first_difference(const std::vector<T>& got, const std::vector<T>& want) {
  for (size_t i = 0; i < want.size(); ++i) {
    if (std::memcmp(&got[i], &want[i], sizeof(T)) != 0) {
      size_t bad = 0;
      for (size_t j = i; j < want.size(); ++j)
        bad += std::memcmp(&got[j], &want[j], sizeof(T)) != 0;
      return "element " + std::to_string(i) + " of " + std::to_string(want.size()) + " is " +
             std::to_string(got[i]) + ", expected " + std::to_string(want[i]) + " (" +
             std::to_string(bad) + " differ)";
    }
  }
  return "";
}

std::vector<int> world_members(gshmem_team_t team) {
  std::vector<int> m(size_t(gshmem_team_n_pes(team)));
  for (size_t i = 0; i < m.size(); ++i) {
    m[i] = gshmem_team_translate_pe(team, int(i), GSHMEM_TEAM_WORLD);
  }
  return m;
}

// One allreduce of `count` elements of T with `op` over `team`, checked. `in_place` runs it on a
// symmetric buffer, dst == src.
template <class T>
void allreduce(gshmem_team_t team, gshmem_redop_t op, size_t count, uint64_t seed, bool in_place,
               const char* what, Checker& c) {
  const std::vector<int> members = world_members(team);
  const int me = gshmem_my_pe();
  std::vector<T> src(count), want(count);
  for (size_t k = 0; k < count; ++k) {
    src[k] = value<T>(seed, me, k);
    want[k] = reduced<T>(op, seed, members, k);
  }
  std::vector<T> got(count);
  int rc;
  if (in_place) {
    // Symmetric over the world (the heap is world-wide), whichever team reduces.
    T* sym = static_cast<T*>(gshmem_malloc(count * sizeof(T)));
    std::copy(src.begin(), src.end(), sym);
    rc = gshmem_allreduce(team, sym, sym, count, dtype_of<T>(), op, nullptr);
    std::copy(sym, sym + count, got.begin());
    gshmem_free(sym);
  } else {
    rc = gshmem_allreduce(team, got.data(), src.data(), count, dtype_of<T>(), op, nullptr);
  }
  c.check(rc == 0, "%s allreduce op %d of %zu returned %d", what, int(op), count, rc);
  std::string d = first_difference(got, want);
  c.check(d.empty(), "%s allreduce dtype %d op %d of %zu: %s", what, int(dtype_of<T>()), int(op),
          count, d.c_str());
}

// allgather, reducescatter, broadcast, reduce and alltoall of int64 / double over `team`.
void team_collectives(gshmem_team_t team, size_t count, uint64_t seed, const char* what,
                      Checker& c) {
  const std::vector<int> members = world_members(team);
  const int n = int(members.size()), me = gshmem_my_pe(), mine = gshmem_team_my_pe(team);
  uint64_t rng = seed;
  int root = int(splitmix64(rng) % uint64_t(n));

  {  // allgather
    uint64_t s = key(seed, "allgather");
    std::vector<int64_t> src(count), got(count * size_t(n)), want(got.size());
    for (size_t k = 0; k < count; ++k) src[k] = value<int64_t>(s, me, k);
    for (int p = 0; p < n; ++p) {
      for (size_t k = 0; k < count; ++k)
        want[size_t(p) * count + k] = value<int64_t>(s, members[size_t(p)], k);
    }
    int rc = gshmem_allgather(team, got.data(), src.data(), count, GSHMEM_INT64, nullptr);
    std::string d = first_difference(got, want);
    c.check(rc == 0 && d.empty(), "%s allgather of %zu: rc %d %s", what, count, rc, d.c_str());
  }
  {  // reducescatter
    uint64_t s = key(seed, "reducescatter");
    std::vector<double> src(count * size_t(n)), got(count), want(count);
    for (size_t k = 0; k < src.size(); ++k) src[k] = value<double>(s, me, k);
    for (size_t k = 0; k < count; ++k) {
      want[k] = reduced<double>(GSHMEM_SUM, s, members, size_t(mine) * count + k);
    }
    int rc = gshmem_reducescatter(team, got.data(), src.data(), count, GSHMEM_DOUBLE, GSHMEM_SUM,
                                  nullptr);
    std::string d = first_difference(got, want);
    c.check(rc == 0 && d.empty(), "%s reducescatter of %zu: rc %d %s", what, count, rc, d.c_str());
  }
  {  // broadcast
    uint64_t s = key(seed, "broadcast");
    std::vector<int64_t> src(count), got(count), want(count);
    for (size_t k = 0; k < count; ++k) {
      src[k] = value<int64_t>(s, me, k);
      want[k] = value<int64_t>(s, members[size_t(root)], k);
    }
    int rc = gshmem_broadcast(team, got.data(), src.data(), count, GSHMEM_INT64, root, nullptr);
    std::string d = first_difference(got, want);
    c.check(rc == 0 && d.empty(), "%s broadcast of %zu from %d: rc %d %s", what, count, root, rc,
            d.c_str());
  }
  {  // reduce: the result on root only, every other dst untouched
    uint64_t s = key(seed, "reduce");
    std::vector<int64_t> src(count), got(count, -7), want(count, -7);
    for (size_t k = 0; k < count; ++k) {
      src[k] = value<int64_t>(s, me, k);
      if (mine == root) want[k] = reduced<int64_t>(GSHMEM_MAX, s, members, k);
    }
    int rc =
        gshmem_reduce(team, got.data(), src.data(), count, GSHMEM_INT64, GSHMEM_MAX, root, nullptr);
    std::string d = first_difference(got, want);
    c.check(rc == 0 && d.empty(), "%s reduce of %zu to %d: rc %d %s", what, count, root, rc,
            d.c_str());
  }
  {  // alltoall: block j of member i lands as block i of member j
    uint64_t s = key(seed, "alltoall");
    std::vector<int64_t> src(count * size_t(n)), got(src.size()), want(src.size());
    for (size_t k = 0; k < src.size(); ++k) src[k] = value<int64_t>(s, me, k);
    for (int i = 0; i < n; ++i) {
      for (size_t k = 0; k < count; ++k) {
        want[size_t(i) * count + k] =
            value<int64_t>(s, members[size_t(i)], size_t(mine) * count + k);
      }
    }
    int rc = gshmem_alltoall(team, got.data(), src.data(), count, GSHMEM_INT64, nullptr);
    std::string d = first_difference(got, want);
    c.check(rc == 0 && d.empty(), "%s alltoall of %zu: rc %d %s", what, count, rc, d.c_str());
  }
  c.check(gshmem_barrier(team) == 0, "%s barrier", what);
}

}  // namespace

Mix::Mix(unsigned parts) : parts_(parts), me_(gshmem_my_pe()), n_(gshmem_n_pes()) {
  slots_ = static_cast<unsigned char*>(gshmem_malloc(kSlots * kSlot));
  source_ = static_cast<unsigned char*>(gshmem_malloc(kSlot));
  signals_ = static_cast<uint64_t*>(gshmem_calloc(2, sizeof(uint64_t)));
  gshmem::moe::Config cfg;
  cfg.max_tokens = 12;
  cfg.num_experts = 2 * n_;
  cfg.experts_per_token = std::min(3, cfg.num_experts);
  cfg.hidden = 24;
  a2a_ = std::make_unique<gshmem::moe::AllToAll>(cfg);
}

Mix::~Mix() {
  a2a_.reset();
  gshmem_free(signals_);
  gshmem_free(source_);
  gshmem_free(slots_);
}

namespace {
const char* const kPartNames[] = {"heap",        "rma",   "atomics", "signals",
                                  "collectives", "teams", "moe"};
}

void Mix::iteration(long it, uint64_t seed, bool largest, Checker& c) {
  auto t = std::chrono::steady_clock::now();
  auto run = [&](int part, auto&& fn) {
    if (!(parts_ & (1u << part))) return;
    fn(key(seed, kPartNames[part]));
    auto now = std::chrono::steady_clock::now();
    seconds_[part] += std::chrono::duration<double>(now - t).count();
    t = now;
  };
  run(0, [&](uint64_t s) { heap(s, largest, c); });
  run(1, [&](uint64_t s) { rma(s, largest, c); });
  run(2, [&](uint64_t s) { atomics(it, s, c); });
  run(3, [&](uint64_t s) { signals(it, s, largest, c); });
  run(4, [&](uint64_t s) { collectives(s, largest, c); });
  run(5, [&](uint64_t s) { teams(s, c); });
  run(6, [&](uint64_t s) { moe(it, s, c); });
  gshmem_barrier_all();
}

unsigned Mix::parse_parts(const std::string& list) {
  unsigned mask = 0;
  size_t at = 0;
  while (at <= list.size()) {
    size_t end = std::min(list.find(',', at), list.size());
    std::string name = list.substr(at, end - at);
    int found = -1;
    for (int i = 0; i < kParts; ++i) {
      if (name == kPartNames[i]) found = i;
    }
    if (found < 0) return 0;
    mask |= 1u << found;
    at = end + 1;
  }
  return mask;
}

std::string Mix::times() const {
  std::string s;
  for (int i = 0; i < kParts; ++i) {
    if (!(parts_ & (1u << i))) continue;
    char part[64];
    std::snprintf(part, sizeof part, "%s%s %.1fs", s.empty() ? "" : ", ", kPartNames[i],
                  seconds_[i]);
    s += part;
  }
  return s;
}

// Each PE puts to its right neighbour (on its node but for the node's last PE) and to the PE
// half the world away (always another node with two nodes), blocking and non-blocking, and gets
// from both; then p/g of single elements.
void Mix::rma(uint64_t seed, bool largest, Checker& c) {
  static const size_t kSizes[] = {8, 1000, 4096, 65560, kMaxRma};
  uint64_t rng = seed;
  const size_t b0 = pick(rng, kSizes, largest), b1 = pick(rng, kSizes, largest);
  const int right = (me_ + 1) % n_, left = (me_ + n_ - 1) % n_;
  const int far = (me_ + n_ / 2) % n_, from_far = (me_ + n_ - n_ / 2) % n_;

  gshmem_test::poison(slots_, kSlots * kSlot);
  auto mine = payload(seed, "source", me_, kSlot);
  std::memcpy(source_, mine.data(), kSlot);
  gshmem_barrier_all();

  auto to_right = payload(seed, "put", me_, b0);
  auto to_far = payload(seed, "put_nbi", me_, b1);
  gshmem_putmem(slots_, to_right.data(), b0, right);
  gshmem_putmem_nbi(slots_ + kSlot, to_far.data(), b1, far);
  std::vector<unsigned char> got0(b0), got1(b1);
  gshmem_getmem(got0.data(), source_, b0, right);
  gshmem_getmem_nbi(got1.data(), source_ + kSlot - b1, b1, far);
  gshmem_quiet();
  // p to the right neighbour's slot 2, g from the far PE's source.
  const int pv = int(key(seed, "p", me_));
  gshmem_int_p(reinterpret_cast<int*>(slots_ + 2 * kSlot), pv, right);
  const double gv = gshmem_double_g(reinterpret_cast<const double*>(source_ + 8), far);
  gshmem_barrier_all();

  c.check(why(same_bytes(slots_, payload(seed, "put", left, b0).data(), b0)).empty(),
          "putmem of %zu from PE %d: %s", b0, left,
          why(same_bytes(slots_, payload(seed, "put", left, b0).data(), b0)).c_str());
  c.check(gshmem_test::all_poison(slots_ + b0, kSlot - b0), "putmem of %zu wrote past its end", b0);
  auto want1 = payload(seed, "put_nbi", from_far, b1);
  c.check(why(same_bytes(slots_ + kSlot, want1.data(), b1)).empty(),
          "putmem_nbi of %zu from PE %d: %s", b1, from_far,
          why(same_bytes(slots_ + kSlot, want1.data(), b1)).c_str());
  auto src_right = payload(seed, "source", right, kSlot);
  auto src_far = payload(seed, "source", far, kSlot);
  c.check(why(same_bytes(got0.data(), src_right.data(), b0)).empty(), "getmem of %zu from PE %d",
          b0, right);
  c.check(why(same_bytes(got1.data(), src_far.data() + kSlot - b1, b1)).empty(),
          "getmem_nbi of %zu from PE %d", b1, far);
  int pgot;
  std::memcpy(&pgot, slots_ + 2 * kSlot, sizeof pgot);
  c.check(pgot == int(key(seed, "p", left)), "int_p from PE %d: %d", left, pgot);
  double gwant;
  std::memcpy(&gwant, src_far.data() + 8, sizeof gwant);
  c.check(std::memcmp(&gv, &gwant, sizeof gv) == 0, "double_g from PE %d", far);
  gshmem_barrier_all();
}

// Atomics on counters of one PE (another each iteration): every PE's contributions are known, so
// the totals are exact; swap's returned values and the final value are a permutation.
void Mix::atomics(long it, uint64_t seed, Checker& c) {
  struct Counters {
    int64_t add;
    uint32_t cas;
    int inc;
    uint64_t bor, bxor, band;
    double swapped;
    unsigned long long uadd;
  };
  auto* ctr = static_cast<Counters*>(gshmem_calloc(1, sizeof(Counters)));
  const int target = int(it % n_);
  if (me_ == target) {
    ctr->band = ~0ull;
    ctr->swapped = 0;
  }
  gshmem_barrier_all();
  constexpr int kOps = 4;
  for (int j = 0; j < kOps; ++j) {
    int64_t v = int64_t(key(seed, "add", me_, j) % 1000) - 300;
    gshmem_int64_atomic_fetch_add(&ctr->add, v, target);
    gshmem_ulonglong_atomic_add(&ctr->uadd, key(seed, "uadd", me_, j), target);
    int before = gshmem_int_atomic_fetch_inc(&ctr->inc, target);
    c.check(before >= 0 && before < n_ * kOps, "int fetch_inc returned %d", before);
  }
  // A compare-and-swap loop adds me + 1.
  for (int tries = 0;; ++tries) {
    uint32_t old = gshmem_uint32_atomic_fetch(&ctr->cas, target);
    if (gshmem_uint32_atomic_compare_swap(&ctr->cas, old, old + uint32_t(me_ + 1), target) == old) {
      break;
    }
    if (!c.check(tries < 10000, "uint32 compare_swap never succeeded")) break;
  }
  gshmem_uint64_atomic_or(&ctr->bor, 1ull << (me_ % 64), target);
  gshmem_uint64_atomic_fetch_xor(&ctr->bxor, key(seed, "xor", me_), target);
  gshmem_uint64_atomic_and(&ctr->band, ~(1ull << ((me_ + 7) % 64)), target);
  double old = gshmem_double_atomic_swap(&ctr->swapped, double(me_ + 1), target);
  gshmem_barrier_all();

  // The olds of the swaps and the final value are 0 .. n, each once.
  std::vector<double> all(static_cast<size_t>(n_));
  int rc = gshmem_allgather(GSHMEM_TEAM_WORLD, all.data(), &old, 1, GSHMEM_DOUBLE, nullptr);
  c.check(rc == 0, "allgather of swap results: %d", rc);
  all.push_back(gshmem_double_atomic_fetch(&ctr->swapped, target));
  std::sort(all.begin(), all.end());
  for (int i = 0; i <= n_; ++i) c.check(all[size_t(i)] == double(i), "double swap values");

  int64_t add = 0;
  unsigned long long uadd = 0;
  uint32_t cas = 0;
  uint64_t bor = 0, bxor = 0, band = ~0ull;
  for (int p = 0; p < n_; ++p) {
    for (int j = 0; j < kOps; ++j) {
      add += int64_t(key(seed, "add", p, j) % 1000) - 300;
      uadd += key(seed, "uadd", p, j);
    }
    cas += uint32_t(p + 1);
    bor |= 1ull << (p % 64);
    bxor ^= key(seed, "xor", p);
    band &= ~(1ull << ((p + 7) % 64));
  }
  c.check(gshmem_int64_atomic_fetch(&ctr->add, target) == add, "int64 fetch_add total");
  c.check(gshmem_ulonglong_atomic_fetch(&ctr->uadd, target) == uadd, "ulonglong add total");
  c.check(gshmem_int_atomic_fetch(&ctr->inc, target) == n_ * kOps, "int fetch_inc total");
  c.check(gshmem_uint32_atomic_fetch(&ctr->cas, target) == cas, "uint32 compare_swap total");
  c.check(gshmem_uint64_atomic_fetch(&ctr->bor, target) == bor, "uint64 or");
  c.check(gshmem_uint64_atomic_fetch(&ctr->bxor, target) == bxor, "uint64 fetch_xor");
  c.check(gshmem_uint64_atomic_fetch(&ctr->band, target) == band, "uint64 and");
  gshmem_barrier_all();
  gshmem_free(ctr);
}

// Put-with-signal to the right neighbour (blocking) and to the far PE (non-blocking), both adding
// 1 to the receiver's first signal word; a signal_op sets the second to the iteration.
void Mix::signals(long it, uint64_t seed, bool largest, Checker& c) {
  static const size_t kSizes[] = {8, 4096, 70000, kMaxRma};
  uint64_t rng = seed;
  const size_t bytes = pick(rng, kSizes, largest);
  const int right = (me_ + 1) % n_, left = (me_ + n_ - 1) % n_;
  const int far = (me_ + n_ / 2) % n_, from_far = (me_ + n_ - n_ / 2) % n_;
  const uint64_t base = uint64_t(it) * 2;  // the first word counts up across iterations

  auto a = payload(seed, "sig", me_, bytes), b = payload(seed, "sig_nbi", me_, bytes);
  gshmem_putmem_signal(slots_ + 2 * kSlot, a.data(), bytes, &signals_[0], 1, GSHMEM_SIGNAL_ADD,
                       right);
  gshmem_putmem_signal_nbi(slots_ + 3 * kSlot, b.data(), bytes, &signals_[0], 1, GSHMEM_SIGNAL_ADD,
                           far);
  gshmem_signal_op(&signals_[1], uint64_t(it) + 1, GSHMEM_SIGNAL_SET, right);

  uint64_t got = gshmem_signal_wait_until(&signals_[0], GSHMEM_CMP_GE, base + 2);
  c.check(got == base + 2, "signal word is %llu, expected %llu", (unsigned long long)got,
          (unsigned long long)(base + 2));
  c.check(same_bytes(slots_ + 2 * kSlot, payload(seed, "sig", left, bytes).data(), bytes),
          "putmem_signal of %zu from PE %d", bytes, left);
  c.check(same_bytes(slots_ + 3 * kSlot, payload(seed, "sig_nbi", from_far, bytes).data(), bytes),
          "putmem_signal_nbi of %zu from PE %d", bytes, from_far);
  gshmem_uint64_wait_until(&signals_[1], GSHMEM_CMP_EQ, uint64_t(it) + 1);
  c.check(gshmem_signal_fetch(&signals_[1]) == uint64_t(it) + 1, "signal_op set");
  gshmem_quiet();  // the nbi source is reused after this
  gshmem_barrier_all();
}

void Mix::collectives(uint64_t seed, bool largest, Checker& c) {
  static const size_t kCounts[] = {1, 13, 1000, 20000};  // 20000 x 8 bytes: 160 KB
  uint64_t rng = seed;
  const size_t n1 = pick(rng, kCounts, largest), n2 = pick(rng, kCounts, largest);
  const bool in_place = splitmix64(rng) & 1;
  const gshmem_team_t w = GSHMEM_TEAM_WORLD;
  allreduce<int32_t>(w, GSHMEM_SUM, n1, key(seed, 1), in_place, "world", c);
  allreduce<int64_t>(w, GSHMEM_MIN, n2, key(seed, 2), !in_place, "world", c);
  allreduce<uint64_t>(w, GSHMEM_BXOR, n1, key(seed, 3), false, "world", c);
  allreduce<double>(w, GSHMEM_SUM, n2, key(seed, 4), false, "world", c);
  allreduce<double>(w, GSHMEM_AVG, n1, key(seed, 5), false, "world", c);
  allreduce<float>(w, GSHMEM_MAX, n2, key(seed, 6), false, "world", c);
  allreduce<uint32_t>(w, GSHMEM_PROD, n1 < 1000 ? n1 : 1000, key(seed, 7), false, "world", c);
  allreduce<uint8_t>(w, GSHMEM_BOR, n2, key(seed, 8), false, "world", c);
  allreduce<int16_t>(w, GSHMEM_BAND, n1, key(seed, 9), false, "world", c);
  team_collectives(w, n2 < 1000 ? n2 : 1000, key(seed, "world"), "world", c);
  gshmem_barrier_all();
}

// Teams made and destroyed every iteration: evens and odds (strided), rows of two and columns of
// the world (2-D); a collective or two on each.
void Mix::teams(uint64_t seed, Checker& c) {
  gshmem_team_t evens, odds, rows, cols;
  c.check(gshmem_team_split_strided(GSHMEM_TEAM_WORLD, 0, 2, (n_ + 1) / 2, nullptr, 0, &evens) == 0,
          "split evens");
  c.check(gshmem_team_split_strided(GSHMEM_TEAM_WORLD, 1, 2, n_ / 2, nullptr, 0, &odds) == 0,
          "split odds");
  c.check(gshmem_team_split_2d(GSHMEM_TEAM_WORLD, 2, nullptr, 0, &rows, nullptr, 0, &cols) == 0,
          "split_2d");
  gshmem_team_t parity = me_ % 2 ? odds : evens;
  c.check(parity != GSHMEM_TEAM_INVALID && (me_ % 2 ? evens : odds) == GSHMEM_TEAM_INVALID,
          "membership of the strided teams");
  c.check(rows != GSHMEM_TEAM_INVALID && cols != GSHMEM_TEAM_INVALID, "2-D membership");
  if (parity != GSHMEM_TEAM_INVALID) {
    allreduce<int64_t>(parity, GSHMEM_SUM, 257, key(seed, "parity"), false, "parity team", c);
    team_collectives(parity, 33, key(seed, "parity collectives"), "parity team", c);
  }
  if (rows != GSHMEM_TEAM_INVALID) {
    allreduce<int32_t>(rows, GSHMEM_MAX, 100, key(seed, "rows"), false, "row team", c);
  }
  if (cols != GSHMEM_TEAM_INVALID) {
    allreduce<double>(cols, GSHMEM_SUM, 5000, key(seed, "cols"), true, "column team", c);
  }
  for (gshmem_team_t t : {cols, rows, odds, evens}) {
    if (t != GSHMEM_TEAM_INVALID) gshmem_team_destroy(t);
  }
}

// The run's handle, split halves on odd iterations, a routing that changes; and a handle of
// another shape (fp8-like bytes with scales, f32 out) made, used once and destroyed.
void Mix::moe(long it, uint64_t seed, Checker& c) {
  namespace ref = gshmem::moe::reference;
  auto one = [&](gshmem::moe::AllToAll& a2a, ref::Routing routing, bool split, uint64_t s,
                 const char* what) {
    const gshmem::moe::Config& cfg = a2a.config();
    auto all = ref::synthesize_all(cfg, n_, moe_test::random_tokens(cfg, n_, s), routing, s);
    const ref::Inputs& in = all[size_t(me_)];
    const float* scales = in.scales.empty() ? nullptr : in.scales.data();
    gshmem::moe::ExpertBatch b;
    if (split) {
      a2a.dispatch_send(in.x.data(), scales, in.indices.data(), &in.tokens);
      b = a2a.dispatch_recv();
    } else {
      b = a2a.dispatch(in.x.data(), scales, in.indices.data(), &in.tokens);
    }
    std::string d = ref::check_dispatch(cfg, n_, all, me_, b);
    c.check(d.empty(), "%s dispatch: %s", what, d.c_str());
    std::vector<uint8_t> y(size_t(b.num_local_experts) * size_t(b.expert_capacity) *
                           moe_test::y_bytes(cfg));
    ref::run_experts(cfg, me_, b, y.data());
    std::vector<uint8_t> out(size_t(in.tokens) * moe_test::y_bytes(cfg) + 1);
    if (split) {
      a2a.combine_send(y.data());
      a2a.combine_recv(out.data(), in.weights.data());
    } else {
      a2a.combine(out.data(), y.data(), in.weights.data());
    }
    std::string e =
        ref::check_combine(cfg, out.data(), ref::expected_combine(cfg, n_, all, me_), in.tokens);
    c.check(e.empty(), "%s combine: %s", what, e.c_str());
  };
  static const ref::Routing kRoutings[] = {ref::Routing::Uniform, ref::Routing::Masked,
                                           ref::Routing::Skewed};
  one(*a2a_, kRoutings[it % 3], it % 2 == 1, key(seed, "run"), "run's handle");

  gshmem::moe::Config cfg;
  cfg.max_tokens = 8;
  cfg.num_experts = n_;
  cfg.experts_per_token = std::min(2, n_);
  cfg.hidden = 40;
  cfg.dispatch_type = gshmem::moe::DType::Bytes;
  cfg.combine_type = gshmem::moe::DType::F32;
  cfg.scale_block = 16;
  gshmem::moe::AllToAll fresh(cfg);
  one(fresh, ref::Routing::Uniform, false, key(seed, "fresh"), "iteration's handle");
}

// Blocks of varying sizes (one of several MiB on most iterations) from malloc, calloc, align and
// realloc, each written whole; calloc's must read zero (the space was written before), realloc
// must keep its prefix, a put into each peer's big block must land; then all freed in an order
// of the seed's choosing.
void Mix::heap(uint64_t seed, bool largest, Checker& c) {
  static const size_t kSmall[] = {64, 4096, 100000, 1 << 20};
  static const size_t kLarge[] = {0, 8 << 20, 24 << 20};
  uint64_t rng = seed;
  std::vector<std::pair<unsigned char*, size_t>> blocks;
  for (int i = 0; i < 5; ++i) {
    size_t bytes = pick(rng, kSmall, largest);
    unsigned char* p = nullptr;
    switch (i % 3) {
      case 0:
        p = static_cast<unsigned char*>(gshmem_malloc(bytes));
        break;
      case 1:
        p = static_cast<unsigned char*>(gshmem_calloc(bytes / 8, 8));
        if (p) {
          c.check(std::all_of(p, p + bytes, [](unsigned char b) { return b == 0; }),
                  "calloc of %zu is not zero", bytes);
        }
        break;
      default:
        p = static_cast<unsigned char*>(gshmem_align(size_t(1) << (12 + i), bytes));
        if (p) {
          c.check(reinterpret_cast<uintptr_t>(p) % (uintptr_t(1) << (12 + i)) == 0,
                  "gshmem_align alignment");
        }
        break;
    }
    if (!c.check(p != nullptr, "allocation %d of %zu bytes failed", i, bytes)) continue;
    std::memset(p, int(0x40 + i), bytes);
    blocks.push_back({p, bytes});
  }
  if (!blocks.empty()) {  // realloc the first block to twice its size
    auto& [p, bytes] = blocks.front();
    auto* q = static_cast<unsigned char*>(gshmem_realloc(p, 2 * bytes));
    if (c.check(q != nullptr, "realloc to %zu failed", 2 * bytes)) {
      c.check(std::all_of(q, q + bytes, [](unsigned char b) { return b == 0x40; }),
              "realloc lost the block's contents");
      p = q;
      bytes *= 2;
      std::memset(p, 0x40, bytes);
    }
  }
  const size_t big = pick(rng, kLarge, largest);
  if (big) {
    auto* p = static_cast<unsigned char*>(gshmem_malloc(big));
    if (c.check(p != nullptr, "malloc of %zu failed", big)) {
      std::memset(p, 0x5a, big);
      const int right = (me_ + 1) % n_, left = (me_ + n_ - 1) % n_;
      gshmem_barrier_all();
      uint64_t mark = key(seed, "mark", me_);
      gshmem_uint64_p(reinterpret_cast<uint64_t*>(p + big - 8), mark, right);
      gshmem_barrier_all();
      uint64_t got;
      std::memcpy(&got, p + big - 8, 8);
      c.check(got == key(seed, "mark", left), "put into the %zu-byte block", big);
      blocks.push_back({p, big});
    }
  }
  gshmem_barrier_all();
  for (size_t i = blocks.size(); i > 1; --i) std::swap(blocks[i - 1], blocks[splitmix64(rng) % i]);
  for (auto& [p, bytes] : blocks) gshmem_free(p);
}

}  // namespace soak
