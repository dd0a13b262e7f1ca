#include <gtest/gtest.h>

#include <cstdint>
#include <set>
#include <string>

#include "host/base/env.hpp"

using gshmem::Env;

TEST(Env, ParsesSizesWithUnits) {
  uint64_t b = 0;
  EXPECT_TRUE(Env::parse_size("4096", &b));
  EXPECT_EQ(b, 4096u);
  EXPECT_TRUE(Env::parse_size("512M", &b));
  EXPECT_EQ(b, 512ull << 20);
  EXPECT_TRUE(Env::parse_size("2G", &b));
  EXPECT_EQ(b, 2ull << 30);
  EXPECT_TRUE(Env::parse_size("1.5k", &b));
  EXPECT_EQ(b, 1536u);
  EXPECT_TRUE(Env::parse_size("64 KiB", &b));
  EXPECT_EQ(b, 64u << 10);
  EXPECT_FALSE(Env::parse_size("12X", &b));
  EXPECT_FALSE(Env::parse_size("-1G", &b));
  EXPECT_FALSE(Env::parse_size("", &b));
  EXPECT_FALSE(Env::parse_size("0.3", &b));
}

TEST(Env, ParsesSeconds) {
  double s = 0;
  EXPECT_TRUE(Env::parse_seconds("30", &s));
  EXPECT_DOUBLE_EQ(s, 30);
  EXPECT_TRUE(Env::parse_seconds("250ms", &s));
  EXPECT_DOUBLE_EQ(s, 0.25);
  EXPECT_TRUE(Env::parse_seconds("2m", &s));
  EXPECT_DOUBLE_EQ(s, 120);
  EXPECT_FALSE(Env::parse_seconds("soon", &s));
  // A huge value reads as the bound (never), with or without a unit, and every value converts
  // without overflow; a positive one never becomes 0 ("no limit" to GSHMEM_TIMEOUT).
  EXPECT_TRUE(Env::parse_seconds("1e30", &s));
  EXPECT_DOUBLE_EQ(s, Env::kForeverSeconds);
  EXPECT_TRUE(Env::parse_seconds("1.7e308m", &s));
  EXPECT_DOUBLE_EQ(s, Env::kForeverSeconds);
  EXPECT_EQ(Env::to_nanoseconds(Env::kForeverSeconds), uint64_t(1e18));
  EXPECT_EQ(Env::to_nanoseconds(1e30), UINT64_MAX);
  EXPECT_EQ(Env::to_nanoseconds(0.25), 250000000u);
  EXPECT_EQ(Env::to_nanoseconds(1e-12), 1u);
  EXPECT_EQ(Env::to_nanoseconds(0), 0u);
}

TEST(Env, RegistryNamesAreUniquePrefixedAndDescribed) {
  std::set<std::string> names;
  for (const auto& spec : Env::registry()) {
    std::string name = spec.name;
    EXPECT_EQ(name.rfind("GSHMEM_", 0), 0u) << name;
    EXPECT_TRUE(names.insert(name).second) << "duplicate " << name;
    EXPECT_GT(std::string(spec.description).size(), 10u) << name;
  }
}

TEST(Env, EveryDefaultIsReadable) {
  const Env& env = Env::get();
  for (const auto& e : env.entries()) EXPECT_FALSE(e.spec->name == nullptr);
  EXPECT_GT(env.size("GSHMEM_SYMMETRIC_SIZE"), 0u);
  EXPECT_GE(env.seconds("GSHMEM_BOOTSTRAP_TIMEOUT"), 0.0);
}

TEST(Env, FormatsBytes) {
  EXPECT_EQ(gshmem::format_bytes(512), "512 B");
  EXPECT_EQ(gshmem::format_bytes(1ull << 30), "1 GiB");
  EXPECT_EQ(gshmem::format_bytes((1ull << 30) - 20 * 1024), "1023.98 MiB");
  EXPECT_EQ(gshmem::format_bytes(1536), "1.50 KiB");
}
