#include "moe/reference.hpp"

#include <cmath>
#include <cstring>

#include "gshmem/coll/numeric.cuh"

namespace gshmem::moe::reference {

namespace {

// A value of a floating payload as fp32, and back (round to nearest even).
float load(DType t, const void* row, int64_t i) {
  const auto* p = static_cast<const uint8_t*>(row);
  switch (t) {
    case DType::F32: {
      float f;
      std::memcpy(&f, p + 4 * i, 4);
      return f;
    }
    case DType::BF16: {
      coll::bfloat16_t h;
      std::memcpy(&h, p + 2 * i, 2);
      return coll::bf16_to_float(h);
    }
    case DType::F16: {
      coll::half_t h;
      std::memcpy(&h, p + 2 * i, 2);
      return coll::half_to_float(h);
    }
    case DType::Bytes:
      return float(p[i]);
  }
  return 0;
}

void store(DType t, void* row, int64_t i, float v) {
  auto* p = static_cast<uint8_t*>(row);
  switch (t) {
    case DType::F32:
      std::memcpy(p + 4 * i, &v, 4);
      break;
    case DType::BF16: {
      coll::bfloat16_t h = coll::float_to_bf16(v);
      std::memcpy(p + 2 * i, &h, 2);
      break;
    }
    case DType::F16: {
      coll::half_t h = coll::float_to_half(v);
      std::memcpy(p + 2 * i, &h, 2);
      break;
    }
    case DType::Bytes:
      p[i] = uint8_t(std::lround(v));
      break;
  }
}

size_t x_bytes(const Config& c) {
  return size_t(c.hidden) * dtype_size(c.dispatch_type);
}
size_t y_bytes(const Config& c) {
  return size_t(c.hidden) * dtype_size(c.combine_type);
}

uint64_t mix(uint64_t& state) {
  uint64_t z = (state += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

// Uniform in [0, 1).
float unit(uint64_t& state) {
  return float(mix(state) >> 40) / float(1ull << 24);
}

// Values exactly representable in every payload type (bytes: 0..255; bf16: 8 significant bits).
constexpr int kOriginValues = 3;  // group, token / 256, token % 256

}  // namespace

std::vector<std::vector<Origin>> dispatch(const Config& cfg, int n, const std::vector<Inputs>& all,
                                          int me) {
  const int L = cfg.num_experts / n, K = cfg.experts_per_token, dp = cfg.dp_size;
  std::vector<std::vector<Origin>> rows(static_cast<size_t>(L));
  for (int e = 0; e < L; ++e) {
    const int expert = me * L + e;
    for (int s = 0; s < n; ++s) {
      const Inputs& in = all[size_t(s)];
      for (int t = 0; t < in.tokens; ++t) {
        if (t % dp != s % dp) continue;  // another member of s's group sends it
        for (int k = 0; k < K; ++k) {
          if (in.indices[size_t(t * K + k)] == expert) rows[size_t(e)].push_back({s, t, k});
        }
      }
    }
  }
  return rows;
}

std::vector<uint8_t> combine(const Config& cfg, int n, const std::vector<Inputs>& all, int me,
                             const ExpertOutput& y) {
  (void)n;
  const Inputs& in = all[size_t(me)];
  const int K = cfg.experts_per_token, H = cfg.hidden, dp = cfg.dp_size;
  const int group_start = me - me % dp;
  std::vector<uint8_t> out(size_t(in.tokens) * y_bytes(cfg));
  std::vector<const void*> rows(static_cast<size_t>(K));
  for (int t = 0; t < in.tokens; ++t) {
    for (int k = 0; k < K; ++k) {
      int32_t expert = in.indices[size_t(t * K + k)];
      rows[size_t(k)] = expert < 0 ? nullptr : y(expert, {group_start + t % dp, t, k});
    }
    for (int h = 0; h < H; ++h) {
      float acc = 0;
      for (int k = 0; k < K; ++k) {
        if (rows[size_t(k)]) {
          acc += in.weights[size_t(t * K + k)] * load(cfg.combine_type, rows[size_t(k)], h);
        }
      }
      store(cfg.combine_type, out.data() + size_t(t) * y_bytes(cfg), h, acc);
    }
  }
  return out;
}

std::string check_dispatch(const Config& cfg, int n, const std::vector<Inputs>& all, int me,
                           const ExpertBatch& got) {
  const auto expected = dispatch(cfg, n, all, me);
  const int L = cfg.num_experts / n, S = cfg.scales_per_token();
  const size_t xb = x_bytes(cfg);
  auto who = [&](const void* row) {
    auto [g, t] = origin_of(cfg, row);
    return "(group " + std::to_string(g) + ", token " + std::to_string(t) + ")";
  };
  if (got.num_local_experts != L)
    return "num_local_experts is " + std::to_string(got.num_local_experts);
  for (int e = 0; e < L; ++e) {
    const auto& want = expected[size_t(e)];
    const std::string where = "PE " + std::to_string(me) + " local expert " + std::to_string(e);
    if (got.counts[e] != int32_t(want.size())) {
      return where + ": count " + std::to_string(got.counts[e]) + ", expected " +
             std::to_string(want.size());
    }
    for (size_t i = 0; i < want.size(); ++i) {
      const Origin& o = want[i];
      const size_t row = size_t(e) * size_t(got.expert_capacity) + i;
      const auto* g = static_cast<const uint8_t*>(got.x) + row * xb;
      const uint8_t* w = all[size_t(o.member)].x.data() + size_t(o.token) * xb;
      const std::string what = where + " row " + std::to_string(i) + " (from member " +
                               std::to_string(o.member) + " token " + std::to_string(o.token) +
                               " slot " + std::to_string(o.slot) + ")";
      if (std::memcmp(g, w, xb) != 0) return what + ": holds " + who(g) + ", expected " + who(w);
      if (S && std::memcmp(got.scales + row * size_t(S),
                           all[size_t(o.member)].scales.data() + size_t(o.token) * size_t(S),
                           size_t(S) * sizeof(float)) != 0) {
        return what + ": the scales differ";
      }
    }
  }
  return "";
}

std::string check_combine(const Config& cfg, const void* got, const std::vector<uint8_t>& expected,
                          int32_t tokens) {
  // Both sides accumulate in fp32 in slot order; allow one rounding step of the output type.
  const float tol = cfg.combine_type == DType::F32   ? 1e-5f
                    : cfg.combine_type == DType::F16 ? 1.0f / 1024
                                                     : 1.0f / 128;
  for (int64_t i = 0; i < int64_t(tokens) * cfg.hidden; ++i) {
    float g = load(cfg.combine_type, got, i), w = load(cfg.combine_type, expected.data(), i);
    if (!(std::fabs(g - w) <= tol * std::fmax(1.0f, std::fabs(w)))) {
      return "token " + std::to_string(i / cfg.hidden) + " value " +
             std::to_string(i % cfg.hidden) + ": " + std::to_string(g) + ", expected " +
             std::to_string(w);
    }
  }
  return "";
}

Inputs synthesize(const Config& cfg, int n, int group, int32_t tokens, Routing routing,
                  uint64_t seed) {
  Inputs in;
  const int H = cfg.hidden, K = cfg.experts_per_token, E = cfg.num_experts;
  const int S = cfg.scales_per_token();
  const size_t xb = x_bytes(cfg);
  uint64_t st = seed ^ (uint64_t(group) << 40) ^ (uint64_t(n) << 20) ^ uint64_t(tokens);
  mix(st);
  in.tokens = tokens;
  in.x.resize(size_t(tokens) * xb);
  in.scales.resize(size_t(tokens) * size_t(S));
  in.indices.resize(size_t(tokens) * size_t(K));
  in.weights.resize(size_t(tokens) * size_t(K));
  std::vector<int32_t> pick(static_cast<size_t>(E));
  for (int32_t t = 0; t < tokens; ++t) {
    void* row = in.x.data() + size_t(t) * xb;
    const float origin[kOriginValues] = {float(group), float(t / 256), float(t % 256)};
    for (int h = 0; h < H; ++h) {
      float v = h < kOriginValues                   ? origin[h]
                : cfg.dispatch_type == DType::Bytes ? float(mix(st) & 0xff)
                                                    : unit(st) * 4 - 2;
      store(cfg.dispatch_type, row, h, v);
    }
    for (int s = 0; s < S; ++s) in.scales[size_t(t * S + s)] = 0.5f + unit(st);
    // Distinct experts: a partial Fisher-Yates shuffle.
    for (int x = 0; x < E; ++x) pick[size_t(x)] = x;
    for (int k = 0; k < K; ++k) {
      int32_t x = k;
      if (routing != Routing::Skewed) {
        int j = k + int(mix(st) % uint64_t(E - k));
        std::swap(pick[size_t(k)], pick[size_t(j)]);
        x = pick[size_t(k)];
      }
      if (routing == Routing::Masked && (mix(st) & 3) == 0) x = -1;
      in.indices[size_t(t * K + k)] = x;
      in.weights[size_t(t * K + k)] = 0.05f + unit(st);
    }
  }
  return in;
}

std::vector<Inputs> synthesize_all(const Config& cfg, int n, const std::vector<int32_t>& tokens,
                                   Routing routing, uint64_t seed) {
  std::vector<Inputs> all;
  for (int s = 0; s < n; ++s) {
    const int g = s / cfg.dp_size;
    all.push_back(synthesize(cfg, n, g, tokens[size_t(g)], routing, seed));
  }
  return all;
}

std::pair<int32_t, int32_t> origin_of(const Config& cfg, const void* row) {
  if (cfg.hidden < kOriginValues) return {-1, -1};
  float v[kOriginValues];
  for (int h = 0; h < kOriginValues; ++h) v[h] = load(cfg.dispatch_type, row, h);
  if (v[1] < 0 || v[2] < 0 || v[2] > 255) return {-1, -1};
  return {int32_t(v[0]), int32_t(v[1]) * 256 + int32_t(v[2])};
}

void expert_output(const Config& cfg, int32_t expert, const void* row, const float* scales,
                   void* out) {
  const int block = cfg.resolved_scale_block();
  const float mul = 1 + float(expert % 7) / 8, add = float(expert % 5) / 16;
  for (int h = 0; h < cfg.hidden; ++h) {
    float v = load(cfg.dispatch_type, row, h);
    if (cfg.dispatch_type == DType::Bytes) v = (v - 128) / 32;
    if (block > 0 && scales) v *= scales[h / block];
    store(cfg.combine_type, out, h, v * mul + add);
  }
}

void run_experts(const Config& cfg, int me, const ExpertBatch& batch, void* y) {
  const size_t xb = batch.token_bytes, yb = y_bytes(cfg);
  for (int e = 0; e < batch.num_local_experts; ++e) {
    for (int32_t i = 0; i < batch.counts[e]; ++i) {
      const size_t row = size_t(e) * size_t(batch.expert_capacity) + size_t(i);
      const float* s = batch.scales ? batch.scales + row * size_t(batch.scales_per_token) : nullptr;
      expert_output(cfg, me * batch.num_local_experts + e,
                    static_cast<const uint8_t*>(batch.x) + row * xb, s,
                    static_cast<uint8_t*>(y) + row * yb);
    }
  }
}

std::vector<uint8_t> expected_combine(const Config& cfg, int n, const std::vector<Inputs>& all,
                                      int me) {
  const size_t S = size_t(cfg.scales_per_token()), xb = x_bytes(cfg);
  // combine() holds one row per slot of a token at a time.
  std::vector<std::vector<uint8_t>> slot_rows(size_t(cfg.experts_per_token),
                                              std::vector<uint8_t>(y_bytes(cfg)));
  return combine(cfg, n, all, me, [&](int32_t expert, const Origin& o) -> const void* {
    const Inputs& src = all[size_t(o.member)];
    void* out = slot_rows[size_t(o.slot)].data();
    expert_output(cfg, expert, src.x.data() + size_t(o.token) * xb,
                  S ? src.scales.data() + size_t(o.token) * S : nullptr, out);
    return out;
  });
}

}  // namespace gshmem::moe::reference
