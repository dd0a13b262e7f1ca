// The MoE reference on hand-worked examples (one process): the order dispatch promises, what a
// DP group sends, the weighted sums of combine, and the synthetic workloads' origin encoding.
#include <gtest/gtest.h>

#include <cstring>

#include "moe/reference.hpp"

namespace {

namespace ref = gshmem::moe::reference;
using gshmem::moe::Config;
using gshmem::moe::DType;

Config tiny(int dp) {
  Config c;
  c.max_tokens = 4;
  c.num_experts = 4;  // 2 members: member 0 owns experts 0 and 1, member 1 owns 2 and 3
  c.experts_per_token = 2;
  c.hidden = 4;
  c.dispatch_type = c.combine_type = DType::F32;
  c.dp_size = dp;
  return c;
}

ref::Inputs with_indices(std::vector<int32_t> idx, std::vector<float> w) {
  ref::Inputs in;
  in.tokens = int32_t(idx.size() / 2);
  in.indices = std::move(idx);
  in.weights = std::move(w);
  return in;
}

bool same(const std::vector<ref::Origin>& a, const std::vector<ref::Origin>& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (a[i].member != b[i].member || a[i].token != b[i].token || a[i].slot != b[i].slot) {
      return false;
    }
  }
  return true;
}

TEST(MoeReference, DispatchOrder) {
  std::vector<ref::Inputs> all = {with_indices({1, 2, 2, -1}, {}),
                                  with_indices({0, 3, 3, 1, 1, 0}, {})};
  auto at0 = ref::dispatch(tiny(1), 2, all, 0);
  EXPECT_TRUE(same(at0[0], {{1, 0, 0}, {1, 2, 1}}));
  EXPECT_TRUE(same(at0[1], {{0, 0, 0}, {1, 1, 1}, {1, 2, 0}}));
  auto at1 = ref::dispatch(tiny(1), 2, all, 1);
  EXPECT_TRUE(same(at1[0], {{0, 0, 1}, {0, 1, 0}}));
  EXPECT_TRUE(same(at1[1], {{1, 0, 1}, {1, 1, 0}}));
}

// One DP group of two: member 0 sends the even tokens, member 1 the odd ones.
TEST(MoeReference, DataParallelSenders) {
  ref::Inputs in = with_indices({0, 2, 0, 3, 1, 0}, {});
  std::vector<ref::Inputs> all = {in, in};
  auto at0 = ref::dispatch(tiny(2), 2, all, 0);
  EXPECT_TRUE(same(at0[0], {{0, 0, 0}, {0, 2, 1}, {1, 1, 0}}));
  EXPECT_TRUE(same(at0[1], {{0, 2, 0}}));
}

TEST(MoeReference, CombineSums) {
  Config cfg = tiny(1);
  std::vector<ref::Inputs> all = {with_indices({1, 2, 2, -1}, {0.5f, 0.25f, 2.0f, 9.0f}),
                                  with_indices({0, 3}, {1, 1})};
  std::vector<float> rows[4];
  for (int x = 0; x < 4; ++x) rows[x].assign(4, float(x + 1));
  auto out = ref::combine(cfg, 2, all, 0, [&](int32_t x, const ref::Origin& o) -> const void* {
    EXPECT_EQ(o.member, 0);
    return rows[x].data();
  });
  ASSERT_EQ(out.size(), 2 * 4 * sizeof(float));
  float got[8];
  std::memcpy(got, out.data(), sizeof got);
  for (int h = 0; h < 4; ++h) {
    EXPECT_EQ(got[h], 0.5f * 2 + 0.25f * 3);
    EXPECT_EQ(got[4 + h], 2.0f * 3);  // the -1 slot and its weight are ignored
  }
}

TEST(MoeReference, OriginsDecode) {
  for (DType t : {DType::F32, DType::BF16, DType::F16, DType::Bytes}) {
    Config cfg = tiny(1);
    cfg.max_tokens = 700;
    cfg.num_experts = 8;
    cfg.dispatch_type = t;
    ref::Inputs in = ref::synthesize(cfg, 2, 1, 700, ref::Routing::Uniform, 7);
    const size_t xb = size_t(cfg.hidden) * gshmem::moe::dtype_size(t);
    for (int tok : {0, 255, 256, 699}) {
      auto [g, tk] = ref::origin_of(cfg, in.x.data() + size_t(tok) * xb);
      EXPECT_EQ(g, 1);
      EXPECT_EQ(tk, tok);
    }
    for (int tok = 0; tok < 700; ++tok) {
      int32_t a = in.indices[size_t(tok * 2)], b = in.indices[size_t(tok * 2 + 1)];
      EXPECT_NE(a, b);
      EXPECT_TRUE(a >= 0 && a < 8 && b >= 0 && b < 8);
    }
  }
}

}  // namespace
