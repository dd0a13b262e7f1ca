// One-process tests of the collectives' building blocks: half/bfloat16 rounding, the reduction
// operators (wrap-around, complex, the (type, op) table), and the planner (its choices for
// shapes that exist nowhere here, the overrides, gshmem-info --plan's parser, the calibration
// file and what a calibration changes).
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <vector>

#include "collectives/adapt.hpp"
#include "collectives/calibrate.hpp"
#include "collectives/calibration.hpp"
#include "collectives/host_reducer.hpp"
#include "collectives/planner.hpp"
#include "gshmem/coll/numeric.cuh"

namespace gc = gshmem::coll;

namespace {

uint16_t h(float f) {
  return gc::float_to_half(f).bits;
}
uint16_t b(float f) {
  return gc::float_to_bf16(f).bits;
}

TEST(Numeric, HalfRoundsToNearestEven) {
  EXPECT_EQ(h(0.0f), 0x0000);
  EXPECT_EQ(h(-0.0f), 0x8000);
  EXPECT_EQ(h(1.0f), 0x3c00);
  EXPECT_EQ(h(-2.0f), 0xc000);
  EXPECT_EQ(h(65504.0f), 0x7bff);                      // largest half
  EXPECT_EQ(h(65519.0f), 0x7bff);                      // rounds down
  EXPECT_EQ(h(65520.0f), 0x7c00);                      // ties to even: overflows to infinity
  EXPECT_EQ(h(std::ldexp(1.0f, -14)), 0x0400);         // smallest normal
  EXPECT_EQ(h(std::ldexp(1.0f, -24)), 0x0001);         // smallest subnormal
  EXPECT_EQ(h(std::ldexp(1.0f, -25)), 0x0000);         // half of it: tie to even (0)
  EXPECT_EQ(h(std::ldexp(3.0f, -25)), 0x0002);         // 1.5 units: tie to even (2)
  EXPECT_EQ(h(1.0f + std::ldexp(1.0f, -11)), 0x3c00);  // tie between 1 and 1+2^-10: even
  EXPECT_EQ(h(1.0f + 3 * std::ldexp(1.0f, -11)), 0x3c02);
  EXPECT_EQ(h(0.1f), 0x2e66);
  EXPECT_EQ(h(INFINITY), 0x7c00);
  EXPECT_TRUE(std::isnan(gc::half_to_float(gc::float_to_half(NAN))));
  for (uint32_t bits = 0; bits < 0x7c00; ++bits) {  // every finite half survives the round trip
    gc::half_t x{uint16_t(bits)};
    ASSERT_EQ(gc::float_to_half(gc::half_to_float(x)).bits, bits);
  }
  EXPECT_EQ(gc::half_to_float(gc::half_t{0x0001}), std::ldexp(1.0f, -24));
}

TEST(Numeric, Bfloat16RoundsToNearestEven) {
  EXPECT_EQ(b(1.0f), 0x3f80);
  EXPECT_EQ(b(1.0f + std::ldexp(1.0f, -8)), 0x3f80);      // tie: even
  EXPECT_EQ(b(1.0f + 3 * std::ldexp(1.0f, -8)), 0x3f82);  // tie: even (up)
  EXPECT_EQ(b(-3.0f), 0xc040);
  EXPECT_TRUE(std::isnan(gc::bf16_to_float(gc::float_to_bf16(NAN))));
  EXPECT_EQ(gc::bf16_to_float(gc::bfloat16_t{0x4049}), 3.140625f);
}

TEST(Numeric, OperatorsWrapAndTable) {
  EXPECT_EQ(gc::OpSum::apply<int8_t>(127, 1), -128);
  EXPECT_EQ(gc::OpSum::apply<int32_t>(INT32_MAX, 1), INT32_MIN);
  EXPECT_EQ(gc::OpProd::apply<uint16_t>(65535, 65535), 1);  // no int overflow on the way
  EXPECT_EQ(gc::OpProd::apply<int64_t>(INT64_MIN, -1), INT64_MIN);
  gc::complexf_t p = gc::OpProd::apply(gc::complexf_t{1, 2}, gc::complexf_t{3, 4});
  EXPECT_EQ(p.re, -5.0f);
  EXPECT_EQ(p.im, 10.0f);
  // The (type, op) table: bitwise on integers, AVG on floating types, complex SUM/PROD only.
  EXPECT_EQ(gc::host_reducer(GSHMEM_INT32, GSHMEM_AVG).reduce_fn, nullptr);
  EXPECT_EQ(gc::host_reducer(GSHMEM_FLOAT, GSHMEM_BXOR).reduce_fn, nullptr);
  EXPECT_EQ(gc::host_reducer(GSHMEM_COMPLEXD, GSHMEM_MIN).reduce_fn, nullptr);
  EXPECT_EQ(gc::host_reducer(GSHMEM_COMPLEXD, GSHMEM_AVG).reduce_fn, nullptr);
  EXPECT_NE(gc::host_reducer(GSHMEM_HALF, GSHMEM_AVG).reduce_fn, nullptr);
  EXPECT_NE(gc::host_reducer(GSHMEM_LONGDOUBLE, GSHMEM_MAX).reduce_fn, nullptr);
  EXPECT_NE(gc::host_reducer(GSHMEM_UINT8, GSHMEM_BAND).reduce_fn, nullptr);
  // half reduces in fp32 and rounds once: 2048 + 1 + 1 is 2050 (2048 + 1 alone would tie back).
  gc::half_t x[3] = {gc::float_to_half(2048), gc::float_to_half(1), gc::float_to_half(1)};
  const void* srcs[3] = {&x[0], &x[1], &x[2]};
  gc::half_t out;
  gc::host_reducer(GSHMEM_HALF, GSHMEM_SUM).reduce<gshmem::Thread>(&out, srcs, 3, 1);
  EXPECT_EQ(gc::half_to_float(out), 2050.0f);
  // AVG divides once at the end.
  float f = 7;
  gc::host_reducer(GSHMEM_FLOAT, GSHMEM_AVG).finish<gshmem::Thread>(&f, 1, 2);
  EXPECT_EQ(f, 3.5f);
}

// A value of T other than a special one: inexact (so the order of the reduction shows), finite.
template <class T, class Next>
T ordinary(Next& next) {
  auto inexact = [&] { return double(int(next() % 2001) - 1000) / 7.0; };
  if constexpr (std::is_floating_point_v<T>) {
    return T(inexact());
  } else if constexpr (std::is_same_v<T, gc::half_t> || std::is_same_v<T, gc::bfloat16_t>) {
    return T{uint16_t((next() & 0x3bff) | (next() & 0x8000))};
  } else if constexpr (std::is_same_v<T, gc::complexf_t>) {
    return T{float(inexact()), float(inexact())};
  } else if constexpr (std::is_same_v<T, gc::complexd_t>) {
    return T{inexact(), inexact()};
  } else {
    return T(next());
  }
}

// NaN, -0, +0, +inf, -inf of a floating T (for MIN and MAX, whose result depends on the order of
// the comparison there).
template <class T>
std::vector<T> specials() {
  if constexpr (std::is_same_v<T, gc::half_t>) {
    return {T{0x7e00}, T{0x8000}, T{0x0000}, T{0x7c00}, T{0xfc00}};
  } else if constexpr (std::is_same_v<T, gc::bfloat16_t>) {
    return {T{0x7fc0}, T{0x8000}, T{0x0000}, T{0x7f80}, T{0xff80}};
  } else {
    const T inf = std::numeric_limits<T>::infinity();
    return {std::numeric_limits<T>::quiet_NaN(), T(-0.0), T(0.0), inf, -inf};
  }
}

// a and b hold the same bits, element by element (x87's long double: its 10 bytes, not the
// padding after them, which a store leaves as it was). Stricter than coll_check.hpp's same_bits,
// which compares long double and complex by value (-0 equals +0 there): here both sides reduce
// in the same order, so even the sign of a zero must match.
template <class T>
bool identical_bits(const T* a, const T* b, size_t count) {
  if constexpr (std::is_same_v<T, long double> && std::numeric_limits<long double>::digits == 64) {
    for (size_t i = 0; i < count; ++i) {
      if (std::memcmp(&a[i], &b[i], 10) != 0) return false;
    }
    return true;
  } else {
    return std::memcmp(a, b, count * sizeof(T)) == 0;
  }
}

// The host reducer against the device's reference loop (reduce_elements), bit for bit: every
// source count the algorithms use (1 to 16, through the fused passes and the tiled accumulator),
// lengths with and without a partial block or tile, one long enough for the prefetching loop
// (host_reducer.cpp), and out as a separate buffer, the first source or the last (ring and
// recursive doubling reduce in place). `with_specials`: one element in 13 is NaN, -0, +0 or an
// infinity. The library's loops are the clone this CPU picks (AVX2 on most x86-64), or the
// baseline build (GSHMEM_REDUCE_CLONES=OFF, CI's sanitizer tree); the reference is this file's.
template <class T, class Op>
void expect_same_as_reference(gshmem_datatype_t dtype, gshmem_redop_t op, uint32_t seed,
                              bool with_specials = false) {
  const gc::HostReducer r = gc::host_reducer(dtype, op);
  ASSERT_NE(r.reduce_fn, nullptr);
  uint64_t x = seed;
  auto next = [&] {
    x = x * 6364136223846793005ull + 1442695040888963407ull;
    return uint32_t(x >> 33);
  };
  std::vector<T> special;
  if constexpr (!std::is_integral_v<T> && !std::is_same_v<T, gc::complexf_t> &&
                !std::is_same_v<T, gc::complexd_t>) {
    if (with_specials) special = specials<T>();
  }
  for (size_t count :
       {size_t(1), size_t(15), size_t(64), size_t(1030), size_t(2500), size_t(70001)}) {
    for (int nsrc = 1; nsrc <= 16; ++nsrc) {
      // The long length with the fused counts (1, 2, 4) and the first tiled one (5) only.
      if (count > 2500 && nsrc != 1 && nsrc != 2 && nsrc != 4 && nsrc != 5) continue;
      std::vector<std::vector<T>> in(static_cast<size_t>(nsrc), std::vector<T>(count));
      for (auto& v : in) {
        for (T& e : v) {
          e = ordinary<T>(next);
          if (!special.empty() && next() % 13 == 0) e = special[next() % special.size()];
        }
      }
      for (int alias : {-1, 0, nsrc - 1}) {
        std::vector<std::vector<T>> mine = in, ref = in;
        std::vector<T> out_mine(count), out_ref(count);
        const void* sm[16];
        const void* sr[16];
        for (int k = 0; k < nsrc; ++k) {
          sm[k] = mine[size_t(k)].data();
          sr[k] = ref[size_t(k)].data();
        }
        T* om = alias < 0 ? out_mine.data() : mine[size_t(alias)].data();
        T* orf = alias < 0 ? out_ref.data() : ref[size_t(alias)].data();
        r.reduce<gshmem::Thread>(om, sm, nsrc, count);
        gc::reduce_elements<gshmem::Thread, T, Op>(orf, sr, nsrc, count);
        ASSERT_TRUE(identical_bits(om, orf, count))
            << gc::dtype_name(dtype) << " " << gc::op_name(op) << " count " << count << " nsrc "
            << nsrc << " alias " << alias;
      }
    }
  }
}

TEST(Numeric, HostReducerMatchesTheReferenceBitForBit) {
  expect_same_as_reference<float, gc::OpSum>(GSHMEM_FLOAT, GSHMEM_SUM, 1);
  expect_same_as_reference<float, gc::OpMax>(GSHMEM_FLOAT, GSHMEM_MAX, 2, true);
  expect_same_as_reference<double, gc::OpSum>(GSHMEM_DOUBLE, GSHMEM_SUM, 3);
  expect_same_as_reference<double, gc::OpProd>(GSHMEM_DOUBLE, GSHMEM_PROD, 4);
  expect_same_as_reference<gc::half_t, gc::OpSum>(GSHMEM_HALF, GSHMEM_SUM, 5);
  expect_same_as_reference<gc::bfloat16_t, gc::OpSum>(GSHMEM_BFLOAT16, GSHMEM_SUM, 6);
  expect_same_as_reference<int8_t, gc::OpSum>(GSHMEM_INT8, GSHMEM_SUM, 7);
  expect_same_as_reference<int32_t, gc::OpMin>(GSHMEM_INT32, GSHMEM_MIN, 8);
  expect_same_as_reference<uint64_t, gc::OpBxor>(GSHMEM_UINT64, GSHMEM_BXOR, 9);
  expect_same_as_reference<float, gc::OpMin>(GSHMEM_FLOAT, GSHMEM_MIN, 10, true);
  expect_same_as_reference<double, gc::OpMax>(GSHMEM_DOUBLE, GSHMEM_MAX, 11, true);
  expect_same_as_reference<gc::half_t, gc::OpMax>(GSHMEM_HALF, GSHMEM_MAX, 12, true);
  expect_same_as_reference<gc::half_t, gc::OpMin>(GSHMEM_HALF, GSHMEM_MIN, 13, true);
  expect_same_as_reference<gc::bfloat16_t, gc::OpMin>(GSHMEM_BFLOAT16, GSHMEM_MIN, 14, true);
  expect_same_as_reference<gc::bfloat16_t, gc::OpProd>(GSHMEM_BFLOAT16, GSHMEM_PROD, 15);
  expect_same_as_reference<gc::complexf_t, gc::OpProd>(GSHMEM_COMPLEXF, GSHMEM_PROD, 16);
  expect_same_as_reference<gc::complexd_t, gc::OpProd>(GSHMEM_COMPLEXD, GSHMEM_PROD, 17);
  expect_same_as_reference<long double, gc::OpSum>(GSHMEM_LONGDOUBLE, GSHMEM_SUM, 18);
  expect_same_as_reference<int16_t, gc::OpProd>(GSHMEM_INT16, GSHMEM_PROD, 19);
  expect_same_as_reference<int64_t, gc::OpMax>(GSHMEM_INT64, GSHMEM_MAX, 20);
  expect_same_as_reference<uint8_t, gc::OpBand>(GSHMEM_UINT8, GSHMEM_BAND, 21);
}

gc::TeamShape shape(int nodes, int ppn, gc::LinkClass intra, gc::LinkClass inter, bool gpu) {
  gc::TeamShape s;
  s.n = nodes * ppn;
  s.nodes = nodes;
  s.ppn = ppn;
  s.intra = intra;
  s.inter = inter;
  s.gpu = gpu;
  return s;
}

TEST(Planner, ChoicesFollowSizeAndShape) {
  gc::Overrides none;
  // One node of CPU PEs: the direct algorithms (load/store from peers).
  gc::TeamShape cpu = shape(1, 4, gc::LinkClass::HostMemory, gc::LinkClass::Tcp, false);
  gc::Plan small = gc::make_plan(gc::Coll::AllReduce, cpu, 8, none);
  gc::Plan large = gc::make_plan(gc::Coll::AllReduce, cpu, 64u << 20, none);
  EXPECT_EQ(small.algo, gc::Algo::Direct);
  EXPECT_EQ(large.algo, gc::Algo::Direct2);
  EXPECT_EQ(large.nch, 1);  // a CPU PE is one thread
  // 16 nodes x 8 GPUs over EFA: hierarchical, more channels for large messages, and the
  // prediction grows with the size.
  gc::TeamShape p5 = shape(16, 8, gc::LinkClass::NvLink, gc::LinkClass::Efa, true);
  gc::Plan a = gc::make_plan(gc::Coll::AllReduce, p5, 1u << 10, none);
  gc::Plan z = gc::make_plan(gc::Coll::AllReduce, p5, 1u << 30, none);
  EXPECT_EQ(z.algo, gc::Algo::Hier);
  EXPECT_GT(z.nch, 1);
  EXPECT_LT(a.predicted_us, z.predicted_us);
  EXPECT_FALSE(gc::applicable(gc::Coll::AllReduce, gc::Algo::Direct, p5));
  // Overrides win where they apply and are ignored (with a note) where they do not.
  gc::Overrides ring;
  std::string why;
  ASSERT_TRUE(gc::parse_algo_setting("allreduce:ring,broadcast:tree", &ring, &why));
  EXPECT_EQ(gc::make_plan(gc::Coll::AllReduce, cpu, 8, ring).algo, gc::Algo::Ring);
  EXPECT_TRUE(gc::make_plan(gc::Coll::AllReduce, cpu, 8, ring).forced);
  EXPECT_EQ(gc::make_plan(gc::Coll::Broadcast, cpu, 8, ring).algo, gc::Algo::Tree);
  gc::Overrides hier;
  ASSERT_TRUE(gc::parse_algo_setting("hier", &hier, &why));
  std::string note;
  gc::Plan p = gc::make_plan(gc::Coll::AllReduce, cpu, 8, hier, &note);
  EXPECT_NE(p.algo, gc::Algo::Hier);
  EXPECT_NE(note.find("does not apply"), std::string::npos);
  EXPECT_FALSE(gc::parse_algo_setting("allreduce:bogus", &hier, &why));
  EXPECT_NE(why.find("bogus"), std::string::npos);
  gc::Overrides chunky;
  chunky.nch = 3;
  chunky.chunk = 4096;
  gc::Plan c = gc::make_plan(gc::Coll::AllGather, cpu, 1 << 20, chunky);
  EXPECT_EQ(c.nch, 3);
  EXPECT_EQ(c.chunk, 4096u);
}

// The protocol: LL for small messages on one node of at most kLLMaxMembers PEs (CPU PEs and
// GPUs alike), simple for large ones and wherever LL does not apply; GSHMEM_PROTO's choices.
TEST(Planner, ProtocolFollowsSizeAndShape) {
  gc::Overrides none;
  for (bool gpu : {false, true}) {
    const gc::LinkClass intra = gpu ? gc::LinkClass::NvLink : gc::LinkClass::HostMemory;
    gc::TeamShape node = shape(1, 4, intra, gc::LinkClass::Efa, gpu);
    for (gc::Coll c : {gc::Coll::AllReduce, gc::Coll::AllGather, gc::Coll::ReduceScatter,
                       gc::Coll::Broadcast, gc::Coll::Reduce}) {
      SCOPED_TRACE(std::string(gc::coll_name(c)) + (gpu ? " on GPUs" : " on CPU PEs"));
      gc::Plan small = gc::make_plan(c, node, 64, none);
      EXPECT_EQ(small.proto, gc::Proto::LL);
      EXPECT_EQ(small.algo, gc::Algo::Direct);
      EXPECT_EQ(small.nch, 1);
      EXPECT_FALSE(small.proto_forced);
      EXPECT_EQ(gc::make_plan(c, node, 64u << 20, none).proto, gc::Proto::Simple);
    }
    EXPECT_EQ(gc::make_plan(gc::Coll::AllToAll, node, 64, none).proto, gc::Proto::Simple);
    // Across nodes and beyond kLLMaxMembers PEs: simple; forcing ll there says why.
    gc::Overrides ll;
    ll.proto = gc::Proto::LL;
    for (const gc::TeamShape& s :
         {shape(2, 2, intra, gc::LinkClass::Efa, gpu),
          shape(1, gc::kLLMaxMembers + 1, intra, gc::LinkClass::Efa, gpu)}) {
      EXPECT_EQ(gc::make_plan(gc::Coll::AllReduce, s, 64, none).proto, gc::Proto::Simple);
      std::string note;
      gc::Plan p = gc::make_plan(gc::Coll::AllReduce, s, 64, ll, &note);
      EXPECT_EQ(p.proto, gc::Proto::Simple);
      EXPECT_FALSE(p.proto_forced);
      EXPECT_NE(note.find("ll does not apply"), std::string::npos) << note;
    }
    // Forced: ll even for large messages (more rounds), simple even for small ones; an
    // algorithm LL does not carry keeps simple.
    gc::Plan big = gc::make_plan(gc::Coll::AllGather, node, 64u << 20, ll);
    EXPECT_EQ(big.proto, gc::Proto::LL);
    EXPECT_EQ(big.algo, gc::Algo::Direct);
    EXPECT_TRUE(big.proto_forced);
    gc::Overrides simple;
    simple.proto = gc::Proto::Simple;
    EXPECT_EQ(gc::make_plan(gc::Coll::AllReduce, node, 8, simple).proto, gc::Proto::Simple);
    gc::Overrides ring_ll = ll;
    std::string why, note;
    ASSERT_TRUE(gc::parse_algo_setting("ring", &ring_ll, &why));
    gc::Plan r = gc::make_plan(gc::Coll::AllReduce, node, 8, ring_ll, &note);
    EXPECT_EQ(r.algo, gc::Algo::Ring);
    EXPECT_EQ(r.proto, gc::Proto::Simple);
    EXPECT_NE(note.find("ll does not apply to allreduce with ring"), std::string::npos) << note;
  }
  gc::Proto p;
  EXPECT_TRUE(gc::parse_proto("ll", &p));
  EXPECT_EQ(p, gc::Proto::LL);
  EXPECT_TRUE(gc::parse_proto("simple", &p));
  EXPECT_EQ(p, gc::Proto::Simple);
  EXPECT_FALSE(gc::parse_proto("ll128", &p));
  EXPECT_STREQ(gc::proto_name(gc::Proto::LL), "ll");
}

TEST(Planner, PrintPlan) {
  char* text = nullptr;
  size_t len = 0;
  FILE* f = open_memstream(&text, &len);
  ASSERT_EQ(gc::print_plan("nodes=16,ppn=8,intra=nvlink,inter=efa,op=allreduce,sizes=8-1G", f), 0);
  std::fclose(f);
  std::string out(text, len);
  std::free(text);
  EXPECT_NE(out.find("16 node(s) x 8 PE(s) = 128 PEs"), std::string::npos) << out;
  EXPECT_NE(out.find("hier"), std::string::npos) << out;
  EXPECT_NE(out.find("1G"), std::string::npos) << out;
  EXPECT_NE(out.find("proto"), std::string::npos) << out;
  // One node: small sizes by the LL protocol, with its own column of predictions.
  text = nullptr;
  f = open_memstream(&text, &len);
  ASSERT_EQ(gc::print_plan("n=4,op=broadcast,sizes=8-16M", f), 0);
  std::fclose(f);
  out.assign(text, len);
  std::free(text);
  EXPECT_NE(out.find("direct/ll"), std::string::npos) << out;
  EXPECT_NE(out.find("direct    ll"), std::string::npos) << out;
  EXPECT_NE(out.find("direct    simple"), std::string::npos) << out;
  FILE* none = std::fopen("/dev/null", "w");
  EXPECT_EQ(gc::print_plan("n=4,proto=ll", none), 0);
  EXPECT_EQ(gc::print_plan("n=4,proto=fast", none), 2);
  std::fclose(none);
  FILE* sink = std::fopen("/dev/null", "w");
  EXPECT_EQ(gc::print_plan("nodes=3,ppn=2,n=5", sink), 2);
  EXPECT_EQ(gc::print_plan("intra=warp-drive", sink), 2);
  std::fclose(sink);
}

// The calibration file: what format_calibration writes parses back, and anything damaged or
// hostile is refused with the line named (a refused file leaves the planner on its constants).
TEST(Calibration, FileRoundTripAndHostileText) {
  gc::Calibration c;
  gc::TeamShape two = shape(1, 2, gc::LinkClass::HostMemory, gc::LinkClass::Tcp, false);
  gc::CalTable t{gc::shape_key(two), {}};
  t.curves.push_back(
      {gc::Coll::AllReduce, gc::Algo::Ring, gc::Proto::Simple, {{8, 0.5}, {1024, 2}}});
  t.curves.push_back(
      {gc::Coll::AllReduce, gc::Algo::Direct, gc::Proto::LL, {{8, 0.25}, {1024, 4}}});
  c.tables.push_back(t);
  gc::CalLink l;
  l.cls = gc::LinkClass::HostMemory;
  l.cost = gc::default_link_cost(l.cls);
  l.cost.alpha_us = 0.125;
  l.cost.gbps = 30;
  l.points = 4;
  l.rms = 0.1;
  c.links.push_back(l);
  const std::string text = gc::format_calibration(c);
  gc::Calibration back;
  std::string why;
  ASSERT_TRUE(gc::parse_calibration(text, &back, &why)) << why << "\n" << text;
  ASSERT_EQ(back.tables.size(), 1u);
  EXPECT_EQ(back.tables[0].shape, gc::shape_key(two));
  const gc::CalCurve* ring =
      back.tables[0].find(gc::Coll::AllReduce, gc::Algo::Ring, gc::Proto::Simple);
  ASSERT_NE(ring, nullptr);
  EXPECT_EQ(ring->points, t.curves[0].points);
  ASSERT_NE(back.link(gc::LinkClass::HostMemory), nullptr);
  EXPECT_DOUBLE_EQ(back.link(gc::LinkClass::HostMemory)->cost.alpha_us, 0.125);
  EXPECT_NE(back.table(two), nullptr);

  const char* hostile[] = {
      "link host alpha_us=-1 gbps=3 points=1 rms=0\n",
      "link host alpha_us=nan gbps=3 points=1 rms=0\n",
      "link warp alpha_us=1 gbps=3 points=1 rms=0\n",
      "link host alpha_us=1 gbps=3 points=1E80 rms=0\n",  // found by fuzz_calibration
      "link host alpha_us=1 gbps=3 points=1 rms=-1\n",
      "table n=2\nallreduce ring simple 8:1 4:2\nend\n",  // sizes must grow
      "table n=2\nallreduce ring simple 8:0\nend\n",      // no time
      "table n=2\nallreduce ring simple 8:1e400\nend\n",  // not finite
      "table n=2\nallreduce teleport simple 8:1\nend\n",  // no such algorithm
      "table n=2\nallreduce auto simple 8:1\nend\n",      // not a candidate
      "table n=2\nallreduce ring simple\nend\n",          // no points
      "table n=2\nallreduce ring simple 8:1\nallreduce ring simple 16:1\nend\n",
      "table n=2\nallreduce ring simple 8:1\n",  // no end
      "table n=2\nend\ntable n=2\nend\n",        // two tables for one shape
      "allreduce ring simple 8:1\n",             // outside a table
      "\x01\x02\x03 garbage\n",
      "table n=2\nend\n",                                    // no curves
      "table n=2\nallreduce ring simple 8:1\nrun 2\nend\n",  // runs count up from 1
      "table n=2\nallreduce ring simple 8:1\nrun 1\nend\n",  // a run without curves
      "table n=2\nrun 1\nallreduce ring simple 8:1\nend\n",  // run 0 without curves
      "table n=2\nallreduce ring simple 8:1\nrun 1.5\n",     // not a count
      "table n=2\nallreduce ring simple 8:1\nrun\nend\n",    // no number
      "run 1\n",                                             // outside a table
  };
  for (const char* h : hostile) {
    gc::Calibration bad;
    why.clear();
    EXPECT_FALSE(gc::parse_calibration(h, &bad, &why)) << h;
    EXPECT_NE(why.find("line "), std::string::npos) << h;
  }
  // A missing file is no error; an unreadable or damaged one says which file.
  EXPECT_EQ(gc::load_calibration("/nonexistent/gshmem-calibration.txt", &why), nullptr);
  EXPECT_TRUE(why.empty()) << why;
  EXPECT_EQ(gc::load_calibration("/proc/self/status", &why), nullptr);
  EXPECT_NE(why.find("/proc/self/status: line 1"), std::string::npos) << why;
}

TEST(Calibration, InterpolatesBetweenAndBeyondPoints) {
  gc::CalCurve c{
      gc::Coll::AllReduce, gc::Algo::Ring, gc::Proto::Simple, {{8, 1}, {1024, 2}, {2048, 4}}};
  EXPECT_DOUBLE_EQ(gc::interpolate(c, 1), 1);
  EXPECT_DOUBLE_EQ(gc::interpolate(c, 8), 1);
  EXPECT_DOUBLE_EQ(gc::interpolate(c, 1024), 2);
  EXPECT_DOUBLE_EQ(gc::interpolate(c, 1536), 3);
  EXPECT_DOUBLE_EQ(gc::interpolate(c, 4096), 8);  // the last segment's line
  gc::CalCurve falling{gc::Coll::AllReduce, gc::Algo::Ring, gc::Proto::Simple, {{8, 4}, {16, 2}}};
  EXPECT_GT(gc::interpolate(falling, 1 << 20), 0);
}

// With a table for the shape, the planner picks the least measured time (and says so); without
// one, or told to ignore it, the model; overrides still win; a fit moves the model's costs.
TEST(Calibration, MeasuredTimesDecideThePlan) {
  gc::TeamShape two = shape(1, 2, gc::LinkClass::HostMemory, gc::LinkClass::Tcp, false);
  gc::TeamShape three = shape(1, 3, gc::LinkClass::HostMemory, gc::LinkClass::Tcp, false);
  gc::Overrides none, model;
  model.use_calibration = false;
  const gc::Plan constants = gc::make_plan(gc::Coll::AllReduce, two, 1024, none);
  const gc::Plan constants3 = gc::make_plan(gc::Coll::AllReduce, three, 8, none);
  EXPECT_FALSE(constants.measured);
  EXPECT_NE(constants.algo, gc::Algo::Tree);
  auto cal = std::make_unique<gc::Calibration>();
  cal->origin = "test";
  gc::CalTable t{gc::shape_key(two), {}};
  // Tree is fastest at 1 KiB only; direct/ll everywhere else.
  t.curves.push_back(
      {gc::Coll::AllReduce, gc::Algo::Tree, gc::Proto::Simple, {{8, 5}, {1024, 1}, {4096, 9}}});
  t.curves.push_back(
      {gc::Coll::AllReduce, gc::Algo::Direct, gc::Proto::LL, {{8, 2}, {1024, 2}, {4096, 3}}});
  cal->tables.push_back(t);
  gc::CalLink l;
  l.cls = gc::LinkClass::HostMemory;
  l.cost = gc::default_link_cost(l.cls);
  l.cost.alpha_us = 100;  // absurd, so its effect is visible
  cal->links.push_back(l);
  gc::install_calibration(std::move(cal));

  gc::Plan p = gc::make_plan(gc::Coll::AllReduce, two, 1024, none);
  EXPECT_TRUE(p.measured);
  EXPECT_EQ(p.algo, gc::Algo::Tree);
  EXPECT_DOUBLE_EQ(p.predicted_us, 1);
  p = gc::make_plan(gc::Coll::AllReduce, two, 8, none);
  EXPECT_EQ(p.algo, gc::Algo::Direct);
  EXPECT_EQ(p.proto, gc::Proto::LL);
  EXPECT_EQ(gc::make_plan(gc::Coll::AllReduce, two, 1024, model).algo, constants.algo);
  // Forced: an algorithm the table has, and one it lacks (the model decides the rest).
  gc::Overrides ring;
  std::string why;
  ASSERT_TRUE(gc::parse_algo_setting("allreduce:ring", &ring, &why));
  p = gc::make_plan(gc::Coll::AllReduce, two, 1024, ring);
  EXPECT_EQ(p.algo, gc::Algo::Ring);
  EXPECT_FALSE(p.measured);
  // A collective the table lacks, and a shape it lacks: the model, with the fitted alpha.
  EXPECT_FALSE(gc::make_plan(gc::Coll::Broadcast, two, 1024, none).measured);
  EXPECT_DOUBLE_EQ(gc::link_cost(gc::LinkClass::HostMemory).alpha_us, 100);
  EXPECT_GT(gc::make_plan(gc::Coll::AllReduce, three, 8, none).predicted_us, 10);
  // Told to use the model alone: the constants, not the fitted costs.
  EXPECT_DOUBLE_EQ(gc::make_plan(gc::Coll::AllReduce, three, 8, model).predicted_us,
                   constants3.predicted_us);
  EXPECT_DOUBLE_EQ(gc::link_cost(gc::LinkClass::HostMemory).alpha_us, 100);
  gc::install_calibration(nullptr);
  EXPECT_DOUBLE_EQ(gc::link_cost(gc::LinkClass::HostMemory).alpha_us,
                   gc::default_link_cost(gc::LinkClass::HostMemory).alpha_us);
  EXPECT_FALSE(gc::make_plan(gc::Coll::AllReduce, two, 1024, none).measured);
}

// A tree of two PEs is one edge: its broadcast and reduce are the ring's schedule, so neither the
// planner (with a table or the model) nor the calibration offers it; forced, it still runs.
TEST(Calibration, TwoPeTreeIsTheRing) {
  gc::TeamShape two = shape(2, 1, gc::LinkClass::HostMemory, gc::LinkClass::Tcp, false);
  gc::TeamShape four = shape(4, 1, gc::LinkClass::HostMemory, gc::LinkClass::Tcp, false);
  auto has_tree = [](const std::vector<std::pair<gc::Algo, gc::Proto>>& c) {
    for (const auto& [a, pr] : c) {
      if (a == gc::Algo::Tree) return true;
    }
    return false;
  };
  EXPECT_FALSE(has_tree(gc::candidates(gc::Coll::Broadcast, two)));
  EXPECT_FALSE(has_tree(gc::candidates(gc::Coll::Reduce, two)));
  EXPECT_TRUE(has_tree(gc::candidates(gc::Coll::AllReduce, two)));  // up and down: not the ring's
  EXPECT_TRUE(has_tree(gc::candidates(gc::Coll::Broadcast, four)));
  auto cal = std::make_unique<gc::Calibration>();
  cal->origin = "test";
  gc::CalTable t{gc::shape_key(two), {}};
  // An old file's tree curve, the faster: never chosen at two PEs.
  t.curves.push_back(
      {gc::Coll::Broadcast, gc::Algo::Tree, gc::Proto::Simple, {{8, 1}, {1u << 20, 10}}});
  t.curves.push_back(
      {gc::Coll::Broadcast, gc::Algo::Ring, gc::Proto::Simple, {{8, 2}, {1u << 20, 20}}});
  cal->tables.push_back(t);
  gc::install_calibration(std::move(cal));
  gc::Overrides none, tree;
  std::string why;
  ASSERT_TRUE(gc::parse_algo_setting("broadcast:tree", &tree, &why));
  for (uint64_t bytes : {uint64_t(8), uint64_t(1) << 20}) {
    const gc::Plan p = gc::make_plan(gc::Coll::Broadcast, two, bytes, none);
    EXPECT_TRUE(p.measured);
    EXPECT_EQ(p.algo, gc::Algo::Ring) << bytes;
    EXPECT_EQ(gc::make_plan(gc::Coll::Broadcast, two, bytes, tree).algo, gc::Algo::Tree);
  }
  gc::install_calibration(nullptr);
  gc::Overrides model;
  model.use_calibration = false;
  for (uint64_t bytes = 8; bytes <= (uint64_t(1) << 30); bytes *= 8) {
    EXPECT_NE(gc::make_plan(gc::Coll::Broadcast, two, bytes, model).algo, gc::Algo::Tree);
    EXPECT_NE(gc::make_plan(gc::Coll::Reduce, two, bytes, model).algo, gc::Algo::Tree);
  }
}

// Each calibration job is a run of the table: runs survive the file, the newest kKeptRuns are
// kept, fresh=1 forgets the earlier runs of the collectives it measured, and the file refuses
// more runs than kMaxRuns.
TEST(Calibration, RunsRoundTripAndKeepTheNewest) {
  gc::TeamShape two = shape(1, 2, gc::LinkClass::HostMemory, gc::LinkClass::Tcp, false);
  auto job = [&](double ring_us, bool with_broadcast) {
    gc::CalTable t{gc::shape_key(two), {}};
    t.curves.push_back(
        {gc::Coll::AllReduce, gc::Algo::Ring, gc::Proto::Simple, {{8, ring_us}, {1024, 2}}});
    if (with_broadcast) {
      t.curves.push_back(
          {gc::Coll::Broadcast, gc::Algo::Direct, gc::Proto::Simple, {{8, 1}, {1024, 3}}});
    }
    return t;
  };
  gc::CalTable t = job(1, true);
  t.add_run(job(2, false));
  EXPECT_EQ(t.runs, 2);
  gc::Calibration c;
  c.tables.push_back(t);
  std::string why;
  gc::Calibration back;
  ASSERT_TRUE(gc::parse_calibration(gc::format_calibration(c), &back, &why)) << why;
  const gc::CalTable& b = back.tables.at(0);
  EXPECT_EQ(b.runs, 2);
  ASSERT_NE(b.find(gc::Coll::AllReduce, gc::Algo::Ring, gc::Proto::Simple, 1), nullptr);
  EXPECT_DOUBLE_EQ(
      b.find(gc::Coll::AllReduce, gc::Algo::Ring, gc::Proto::Simple, 1)->points[0].second, 2);
  EXPECT_EQ(b.find(gc::Coll::Broadcast, gc::Algo::Direct, gc::Proto::Simple, 1), nullptr);
  EXPECT_DOUBLE_EQ(b.mean_us(gc::Coll::AllReduce, gc::Algo::Ring, gc::Proto::Simple, 8), 1.5);

  // Six jobs: the newest four stay, renumbered from 0.
  for (int i = 3; i <= 6; ++i) t.add_run(job(i, false));
  EXPECT_EQ(t.runs, gc::kKeptRuns);
  EXPECT_EQ(t.find(gc::Coll::AllReduce, gc::Algo::Ring, gc::Proto::Simple, 0)->points[0].second, 3);
  EXPECT_EQ(t.find(gc::Coll::AllReduce, gc::Algo::Ring, gc::Proto::Simple, 3)->points[0].second, 6);
  EXPECT_FALSE(t.covers(gc::Coll::Broadcast));  // it was only in the oldest run

  // fresh: the AllReduce runs go, the Broadcast curve (not measured now) stays in its run.
  gc::CalTable f = job(1, true);
  f.add_run(job(2, false));
  f.add_run(job(7, false), true);
  EXPECT_EQ(f.runs, 2);
  EXPECT_NE(f.find(gc::Coll::Broadcast, gc::Algo::Direct, gc::Proto::Simple, 0), nullptr);
  EXPECT_EQ(f.find(gc::Coll::AllReduce, gc::Algo::Ring, gc::Proto::Simple, 0), nullptr);
  EXPECT_EQ(f.find(gc::Coll::AllReduce, gc::Algo::Ring, gc::Proto::Simple, 1)->points[0].second, 7);

  std::string many = "table n=2\nallreduce ring simple 8:1\n";
  for (int r = 1; r < gc::kMaxRuns; ++r) {
    many += "run " + std::to_string(r) + "\nallreduce ring simple 8:1\n";
  }
  EXPECT_TRUE(gc::parse_calibration(many + "end\n", &back, &why)) << why;
  many += "run " + std::to_string(gc::kMaxRuns) + "\nallreduce ring simple 8:1\nend\n";
  EXPECT_FALSE(gc::parse_calibration(many, &back, &why));
}

// The planner chooses, over a table's runs, the candidate whose mean loss against each run's
// fastest is least: one that is several times slower in some jobs loses to a steady one, and one
// far behind in one job loses to one never far behind; a run's loss counts at most kLossCap, so
// one point far slower in one job alone does not outweigh the other runs.
TEST(Calibration, ChoiceLosesLeastOverRuns) {
  gc::TeamShape four = shape(1, 4, gc::LinkClass::HostMemory, gc::LinkClass::Tcp, false);
  // 512 KiB takes half the 1 MiB time, unless direct_half says otherwise: a machine state slows
  // both sizes alike.
  auto job = [&](double direct_us, double direct2_us, double direct_half = -1) {
    gc::CalTable t{gc::shape_key(four), {}};
    t.curves.push_back({gc::Coll::AllReduce,
                        gc::Algo::Direct,
                        gc::Proto::Simple,
                        {{8, 100},
                         {1u << 19, direct_half < 0 ? direct_us / 2 : direct_half},
                         {1u << 20, direct_us}}});
    t.curves.push_back({gc::Coll::AllReduce,
                        gc::Algo::Direct2,
                        gc::Proto::Simple,
                        {{8, 100}, {1u << 19, direct2_us / 2}, {1u << 20, direct2_us}}});
    return t;
  };
  const std::vector<std::pair<gc::Algo, gc::Proto>> cands = {
      {gc::Algo::Direct, gc::Proto::Simple}, {gc::Algo::Direct2, gc::Proto::Simple}};
  double us = 0;
  // One run: the fastest.
  gc::CalTable t = job(115, 110);
  EXPECT_EQ(t.choose(gc::Coll::AllReduce, cands, 1u << 20, &us), 1);
  EXPECT_DOUBLE_EQ(us, 110);
  t = job(30, 36);
  EXPECT_EQ(t.choose(gc::Coll::AllReduce, cands, 1u << 20, &us), 0);
  // Direct wins one job by 1.2x and loses the other by 1.8x: direct2 loses less (1.1 to 1.4).
  t.add_run(job(117, 65));
  EXPECT_EQ(t.choose(gc::Coll::AllReduce, cands, 1u << 20, &us), 1);
  EXPECT_DOUBLE_EQ(us, (36 + 65) / 2.0);  // its mean time
  // Direct2 as fast as direct in three jobs and 3.4x slower in a fourth (2 PEs, AllReduce 512 KiB
  // on a shared host): the steady direct, where the fastest in most jobs would be direct2.
  gc::CalTable four_jobs = job(15, 14);
  four_jobs.add_run(job(16, 14));
  four_jobs.add_run(job(14, 13.9));
  four_jobs.add_run(job(15, 48));
  EXPECT_EQ(four_jobs.choose(gc::Coll::AllReduce, cands, 1u << 20, &us), 0);
  EXPECT_DOUBLE_EQ(us, 15);
  // A loss counts at most kLossCap. Direct 48 and 40 us in two jobs, 656 us in a third (7.6x that
  // job's fastest), its 512 KiB point as slow; direct2 2.1-2.3x slower in the first two. Direct
  // loses 1, 3 (not 7.6), 1 against direct2's 2.1, 1, 2.3: direct. Uncapped (3.2 against 1.8),
  // that one job would make the choice direct2. Its predicted time counts that job's time at most
  // kLossCap times the job's fastest too.
  gc::CalTable spiked = job(48, 100);
  spiked.add_run(job(656, 86));
  spiked.add_run(job(40, 90));
  EXPECT_EQ(spiked.choose(gc::Coll::AllReduce, cands, 1u << 20, &us), 0);
  EXPECT_DOUBLE_EQ(us, (48 + 3 * 86 + 40) / 3.0);
  // As recorded (2 PEs, AllReduce 1 MiB), the 512 KiB point of that job was as in the others: a
  // glitch of the 1 MiB point alone, which takes the job's level at 512 KiB (the median, 48 us).
  gc::CalTable glitch = job(48, 100);
  glitch.add_run(job(656, 86, 24));
  glitch.add_run(job(40, 90));
  EXPECT_EQ(glitch.choose(gc::Coll::AllReduce, cands, 1u << 20, &us), 0);
  EXPECT_DOUBLE_EQ(us, (48 + 48 + 40) / 3.0);
  EXPECT_DOUBLE_EQ(
      glitch.repaired(*glitch.find(gc::Coll::AllReduce, gc::Algo::Direct, gc::Proto::Simple, 1))
          .points[2]
          .second,
      48);
  // The plan's lookup repairs only the points it reads, to the same result, between sizes too.
  for (uint64_t b : {uint64_t(8), uint64_t(3) << 18, uint64_t(1) << 20, uint64_t(3) << 20}) {
    const gc::CalCurve& cv =
        *glitch.find(gc::Coll::AllReduce, gc::Algo::Direct, gc::Proto::Simple, 1);
    EXPECT_DOUBLE_EQ(glitch.repaired_at(cv, b), gc::interpolate(glitch.repaired(cv), b)) << b;
  }
  // Never below what a run measured at that size: X's last point is 1.6x the median in a run
  // whose one neighbour (a fast moment, 0.4x) would put it at 8 us, under every run's 20-32 us.
  gc::CalTable edge{gc::shape_key(four), {}};
  for (int r = 0; r < 3; ++r) {
    gc::CalTable j{gc::shape_key(four), {}};
    j.curves.push_back({gc::Coll::AllGather,
                        gc::Algo::Ring,
                        gc::Proto::Simple,
                        {{1u << 25, r < 2 ? 10.0 : 4.0}, {1u << 26, r < 2 ? 20.0 : 32.0}}});
    j.curves.push_back({gc::Coll::AllGather,
                        gc::Algo::RecDbl,
                        gc::Proto::Simple,
                        {{1u << 25, 9.5}, {1u << 26, 19.0}}});
    if (r == 0) {
      edge = j;
    } else {
      edge.add_run(j);
    }
  }
  EXPECT_DOUBLE_EQ(
      edge.repaired(*edge.find(gc::Coll::AllGather, gc::Algo::Ring, gc::Proto::Simple, 2))
          .points[1]
          .second,
      20);
  const std::vector<std::pair<gc::Algo, gc::Proto>> gather = {
      {gc::Algo::Ring, gc::Proto::Simple}, {gc::Algo::RecDbl, gc::Proto::Simple}};
  EXPECT_EQ(edge.choose(gc::Coll::AllGather, gather, 1u << 26, &us), 1);  // faster in every run
  // With two runs there is no median to go by: as measured.
  gc::CalTable two_runs = job(48, 100);
  two_runs.add_run(job(656, 86, 24));
  EXPECT_DOUBLE_EQ(
      two_runs.repaired(*two_runs.find(gc::Coll::AllReduce, gc::Algo::Direct, gc::Proto::Simple, 1))
          .points[2]
          .second,
      656);
  // A glitch that only a glitch of the point beside it would explain is left as measured: a
  // point is repaired only when it is kGlitch slower than its neighbours are, relative to theirs.
  gc::CalTable slow_pair = job(48, 100, 24);
  slow_pair.add_run(job(656, 86, 300));
  slow_pair.add_run(job(40, 90, 20));
  EXPECT_DOUBLE_EQ(
      slow_pair
          .repaired(*slow_pair.find(gc::Coll::AllReduce, gc::Algo::Direct, gc::Proto::Simple, 1))
          .points[2]
          .second,
      656);
  // A loss up to the cap counts in full: direct 3x slower in one job of two, direct2 2.8x slower
  // in the other: direct2 (a mean loss of 1.9 against 2.0). A cap under 2.8 would tie them.
  gc::CalTable state = job(100, 280);
  state.add_run(job(30, 10));
  EXPECT_EQ(state.choose(gc::Coll::AllReduce, cands, 1u << 20, &us), 1);
  // A candidate measured in no run is never chosen; none measured: -1.
  const std::vector<std::pair<gc::Algo, gc::Proto>> ring = {{gc::Algo::Ring, gc::Proto::Simple}};
  EXPECT_EQ(t.choose(gc::Coll::AllReduce, ring, 1u << 20, &us), -1);

  // make_plan goes by it.
  auto cal = std::make_unique<gc::Calibration>();
  cal->tables.push_back(t);
  gc::install_calibration(std::move(cal));
  gc::Overrides o;
  EXPECT_EQ(gc::make_plan(gc::Coll::AllReduce, four, 1u << 20, o).algo, gc::Algo::Direct2);
  EXPECT_TRUE(gc::make_plan(gc::Coll::AllReduce, four, 1u << 20, o).measured);
  gc::install_calibration(nullptr);
}

// The fit recovers the link costs that generated the measurements.
TEST(Calibration, FitRecoversLinkCosts) {
  gc::TeamShape four = shape(1, 4, gc::LinkClass::HostMemory, gc::LinkClass::Tcp, false);
  gc::LinkCost truth = gc::default_link_cost(gc::LinkClass::HostMemory);
  truth.alpha_us = 0.3;
  truth.gbps = 25;
  gc::Calibration c;
  c.tables.push_back({gc::shape_key(four), {}});
  {
    gc::ScopedLinkCost scoped(gc::LinkClass::HostMemory, truth);
    for (gc::Coll coll : {gc::Coll::AllReduce, gc::Coll::AllGather, gc::Coll::Broadcast}) {
      for (gc::Algo a : {gc::Algo::Direct, gc::Algo::Ring}) {
        gc::CalCurve cv{coll, a, gc::Proto::Simple, {}};
        gc::Overrides o;
        o.algo[int(coll)] = a;
        o.use_calibration = false;
        for (uint64_t b = 64; b <= (16u << 20); b *= 4) {
          gc::Plan p = gc::make_plan(coll, four, b, o);
          cv.points.emplace_back(b, gc::predict(coll, a, p.sub, four, b, p.nch, p.chunk));
        }
        c.tables[0].curves.push_back(cv);
      }
    }
  }
  gc::fit_links(&c);
  const gc::CalLink* l = c.link(gc::LinkClass::HostMemory);
  ASSERT_NE(l, nullptr);
  EXPECT_NEAR(l->cost.alpha_us, 0.3, 0.3 * 0.05);
  EXPECT_NEAR(l->cost.gbps, 25, 25 * 0.05);
  EXPECT_LT(l->rms, 0.05);
  EXPECT_EQ(c.link(gc::LinkClass::Tcp), nullptr);  // no multi-node table
}

}  // namespace

// The live choice's rule (collectives/adapt.hpp), on made-up epoch times: the first epochs probe
// every candidate once and keep the planner's choice unless another beat it by more than the
// hysteresis; then the choice holds while it runs as expected; when it runs far slower, the next
// epochs try the candidate that promises most and keep the faster; a candidate left because it
// was slow is tried again after ever longer waits; a gain within the hysteresis never switches.
TEST(LiveChoice, ChooserFollowsTheMachine) {
  using C = gc::Chooser;
  // direct2 expected 13 us, direct 14 us (2 PEs, 512 KiB: the calibration's means).
  const double expected[] = {13, 14};
  C c;
  c.reset(expected, 2, true);
  ASSERT_EQ(c.size(), 2);
  // The probe: direct runs an epoch, 4% slower than direct2: back to the plan.
  EXPECT_EQ(c.epoch_end(13.5), 1);
  EXPECT_EQ(c.epoch_end(14.0), 0);
  for (int e = 0; e < 50; ++e) ASSERT_EQ(c.epoch_end(13.5), 0) << "healthy, epoch " << e;
  // Within the hysteresis: 15 us against direct's expected 14 is no reason to move.
  EXPECT_EQ(c.epoch_end(15.0), 0);
  // A load that slows everything (19 us, 1.46x direct2's expected) is no reason to explore: direct
  // would be as slow, though its expected 14 us looks better.
  for (int e = 0; e < 20; ++e) ASSERT_EQ(c.epoch_end(19.0), 0) << "uniform slowdown, epoch " << e;
  // The far state: direct2 takes 48 us. Direct promises 14: tried at once, and kept.
  EXPECT_EQ(c.epoch_end(48.0), 1);
  for (int e = 0; e < 200; ++e) {
    // Direct's 14 us against direct2's expected 13: a gain within the hysteresis, so direct2
    // is not tried again even when what it showed has gone stale.
    ASSERT_EQ(c.epoch_end(14.0), 1) << "epoch " << e;
  }

  // At 1 MiB direct2 promises a real gain (25 against 30): it is retried after kBaseTtl * 2
  // epochs, then after twice as long each time it is still slow; when the machine comes back, it
  // stays.
  const double mib[] = {25, 30};
  c.reset(mib, 2, true);
  EXPECT_EQ(c.epoch_end(82.0), 1);  // the probe
  EXPECT_EQ(c.epoch_end(30.0), 1);  // direct kept
  long wait = C::kBaseTtl;
  long last_wait = 0;
  for (int round = 0; round < 4; ++round) {
    wait = std::min(wait * 2, C::kMaxTtl);
    long epochs = 0;
    while (c.epoch_end(30.0) == 1) {
      ++epochs;
      ASSERT_LT(epochs, 10 * C::kMaxTtl);
    }
    EXPECT_GT(epochs, last_wait) << "round " << round;
    EXPECT_LE(epochs, wait) << "round " << round;
    last_wait = epochs;
    EXPECT_EQ(c.epoch_end(82.0), 1) << "still slow: back to direct";
  }
  while (c.epoch_end(30.0) == 1) {
  }
  for (int e = 0; e < 100; ++e) ASSERT_EQ(c.epoch_end(25.0), 0) << "the machine came back";

  // A calibration made in another state of the machine: the plan (direct, 290 us) runs as
  // expected, so nothing would explore; the probe finds direct2 at 214 us, and it is kept.
  const double stale[] = {290, 320};
  c.reset(stale, 2, true);
  EXPECT_EQ(c.epoch_end(290.0), 1);
  for (int e = 0; e < 100; ++e) ASSERT_EQ(c.epoch_end(214.0), 1) << "epoch " << e;
  // A probe within the hysteresis keeps the plan.
  c.reset(stale, 2, true);
  EXPECT_EQ(c.epoch_end(290.0), 1);
  EXPECT_EQ(c.epoch_end(270.0), 0);
  for (int e = 0; e < 100; ++e) ASSERT_EQ(c.epoch_end(290.0), 0) << "epoch " << e;
  // Without the probe (the default), a plan that runs as expected is kept whatever the others
  // promise; degraded, it explores at once.
  c.reset(stale, 2, false);
  for (int e = 0; e < 50; ++e) ASSERT_EQ(c.epoch_end(290.0), 0) << "no probe, epoch " << e;
  EXPECT_EQ(c.epoch_end(440.0), 1);

  // A slow spell short of degraded (1.4x) after the probe: the other candidate's probe time, seen
  // in a calm epoch, is no reason to move.
  const double calm[] = {100, 110};
  c.reset(calm, 2, true);
  EXPECT_EQ(c.epoch_end(100.0), 1);
  EXPECT_EQ(c.epoch_end(105.0), 0);
  for (int e = 0; e < 20; ++e) ASSERT_EQ(c.epoch_end(140.0), 0) << "spell, epoch " << e;
  EXPECT_EQ(c.epoch_end(160.0), 1) << "degraded: the other is tried";

  // A probe winner other than the plan, then a spell short of degraded on it: the plan's calm
  // probe time is no reason to move (the move would stick: on the plan, the winner counts only
  // while the plan is degraded).
  const double won[] = {100, 120};
  c.reset(won, 2, true);
  EXPECT_EQ(c.epoch_end(100.0), 1);
  EXPECT_EQ(c.epoch_end(80.0), 1);
  for (int e = 0; e < 5; ++e) ASSERT_EQ(c.epoch_end(115.0), 1) << "spell, epoch " << e;
  for (int e = 0; e < 300; ++e) ASSERT_EQ(c.epoch_end(80.0), 1) << "epoch " << e;
  // The plan promises more than it gives (70 expected, 100 real, short of degraded), the winner
  // runs 80: the plan's scheduled retries check it against the winner and come back, each after
  // a longer wait.
  const double promise[] = {70, 120};
  const double real[] = {100, 80};
  c.reset(promise, 2, true);
  int at = c.epoch_end(real[0]);
  ASSERT_EQ(at, 1);
  int on_plan = 0;
  for (int e = 0; e < 300; ++e) {
    on_plan += at == 0;
    at = c.epoch_end(real[at]);
  }
  EXPECT_GE(on_plan, 1) << "the plan is retried";
  EXPECT_LE(on_plan, 6) << "and left again, after ever longer waits";

  // Three candidates, none as fast as expected (the model's constants, not a calibration): the
  // probe tries each once, the fastest is kept (until the others' probe times go stale: then,
  // degraded, it tries the one that promises most again).
  const double model[] = {5, 6, 9};
  const double actual[] = {30, 20, 40};
  c.reset(model, 3, true);
  int cur = 0;
  std::vector<int> tried;
  for (int e = 0; e < 4; ++e) {
    tried.push_back(cur);
    cur = c.epoch_end(actual[cur]);
  }
  EXPECT_EQ(tried, (std::vector<int>{0, 1, 2, 1}));
  for (int e = 0; e < 10; ++e) {
    ASSERT_EQ(cur, 1);
    cur = c.epoch_end(actual[cur]);
  }

  // Same numbers in, same answers out: what keeps the members of a team together.
  C one, two;
  one.reset(model, 3, true);
  two.reset(model, 3, true);
  uint64_t x = 12345;
  for (int e = 0; e < 1000; ++e) {
    x = x * 6364136223846793005ull + 1442695040888963407ull;
    const double us = 5 + double(x >> 40) / double(1u << 20);
    ASSERT_EQ(one.epoch_end(us), two.epoch_end(us));
  }
}

// GSHMEM_ADAPT: "bits", and every spelling of a Bool (as when it was one).
TEST(LiveChoice, AdaptSettingSpellings) {
  EXPECT_EQ(gc::adapt_setting("bits"), gc::Adapt::SameBits);
  for (const char* on : {"1", "on", "yes", "true"})
    EXPECT_EQ(gc::adapt_setting(on), gc::Adapt::Any);
  for (const char* off : {"0", "off", "no", "false"}) {
    EXPECT_EQ(gc::adapt_setting(off), gc::Adapt::Off);
  }
}
