// One-process tests of the collectives' building blocks: half/bfloat16 rounding, the reduction
// operators (wrap-around, complex, the (type, op) table), and the planner (its choices for
// shapes that exist nowhere here, the overrides, gshmem-info --plan's parser).
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <vector>

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

// The host reducer against the device's reference loop (reduce_elements), bit for bit: every
// source count the algorithms use (1 to 16, through the fused passes and the tiled accumulator),
// lengths with and without a partial block or tile, and out as a separate buffer, the first
// source or the last (ring and recursive doubling reduce in place).
template <class T, class Op>
void expect_same_as_reference(gshmem_datatype_t dtype, gshmem_redop_t op, uint32_t seed) {
  const gc::HostReducer r = gc::host_reducer(dtype, op);
  ASSERT_NE(r.reduce_fn, nullptr);
  uint64_t x = seed;
  auto next = [&] {
    x = x * 6364136223846793005ull + 1442695040888963407ull;
    return uint32_t(x >> 33);
  };
  for (size_t count : {size_t(1), size_t(15), size_t(64), size_t(1030), size_t(2500)}) {
    for (int nsrc = 1; nsrc <= 16; ++nsrc) {
      std::vector<std::vector<T>> in(static_cast<size_t>(nsrc), std::vector<T>(count));
      for (auto& v : in) {
        for (T& e : v) {
          if constexpr (std::is_floating_point_v<T>) {
            e = T(int(next() % 2001) - 1000) / T(7);  // inexact, so the order shows
          } else if constexpr (std::is_same_v<T, gc::half_t> || std::is_same_v<T, gc::bfloat16_t>) {
            e = T{uint16_t((next() & 0x3bff) | (next() & 0x8000))};  // finite
          } else {
            e = T(next());
          }
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
        ASSERT_EQ(std::memcmp(om, orf, count * sizeof(T)), 0)
            << gc::dtype_name(dtype) << " " << gc::op_name(op) << " count " << count << " nsrc "
            << nsrc << " alias " << alias;
      }
    }
  }
}

TEST(Numeric, HostReducerMatchesTheReferenceBitForBit) {
  expect_same_as_reference<float, gc::OpSum>(GSHMEM_FLOAT, GSHMEM_SUM, 1);
  expect_same_as_reference<float, gc::OpMax>(GSHMEM_FLOAT, GSHMEM_MAX, 2);
  expect_same_as_reference<double, gc::OpSum>(GSHMEM_DOUBLE, GSHMEM_SUM, 3);
  expect_same_as_reference<double, gc::OpProd>(GSHMEM_DOUBLE, GSHMEM_PROD, 4);
  expect_same_as_reference<gc::half_t, gc::OpSum>(GSHMEM_HALF, GSHMEM_SUM, 5);
  expect_same_as_reference<gc::bfloat16_t, gc::OpSum>(GSHMEM_BFLOAT16, GSHMEM_SUM, 6);
  expect_same_as_reference<int8_t, gc::OpSum>(GSHMEM_INT8, GSHMEM_SUM, 7);
  expect_same_as_reference<int32_t, gc::OpMin>(GSHMEM_INT32, GSHMEM_MIN, 8);
  expect_same_as_reference<uint64_t, gc::OpBxor>(GSHMEM_UINT64, GSHMEM_BXOR, 9);
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

}  // namespace
