// Helpers shared by the multi-PE tests: reproducible random data, poison patterns, byte
// comparisons that report the first difference, and the error-mode switch for bad-input tests.
//
// Random data: every test derives its data from one job-wide seed (PE 0's clock, or MP_TEST_SEED
// to reproduce a run) mixed with a tag and the PEs involved, so a receiver can regenerate exactly
// what a sender sent. SCOPED_TRACE(seed_note()) puts the seed in every failure message.
#pragma once

#include <gtest/gtest.h>
#include <sched.h>
#include <unistd.h>

#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>
#include <type_traits>
#include <vector>

#include "gshmem/gshmem.h"
#include "gshmem/gshmem.hpp"

namespace gshmem_test {

inline uint64_t splitmix64(uint64_t& state) {
  uint64_t z = (state += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

// One part of a key: an integer, or a string hashed by its content (the same on every PE).
struct KeyPart {
  uint64_t v;
  template <class Int, class = std::enable_if_t<std::is_integral_v<Int> || std::is_enum_v<Int>>>
  KeyPart(Int i) : v(uint64_t(i)) {}
  KeyPart(const char* s) : v(1469598103934665603ull) {
    for (; *s; ++s) v = (v ^ uint8_t(*s)) * 1099511628211ull;
  }
  KeyPart(const std::string& s) : KeyPart(s.c_str()) {}
};

// A key for one stream of data: mixes any number of integers and strings.
template <class... Parts>
uint64_t key(const Parts&... parts) {
  uint64_t h = 0x6a09e667f3bcc909ull;
  for (KeyPart p : {KeyPart(parts)...}) {
    uint64_t s = h ^ p.v;
    h = splitmix64(s);
  }
  return h;
}

// True when the PEs of the world are split over (virtual) nodes that cannot map each other.
inline bool split_nodes() {
  return gshmem_team_n_pes(GSHMEM_TEAM_SHARED) < gshmem_n_pes();
}

// The job-wide seed. Collective the first time (every PE's first call must be at the same point
// of the program, which holds for tests that run in the same order on every PE).
inline uint64_t job_seed() {
  static uint64_t seed = [] {
    uint64_t mine = 0;
    if (const char* s = std::getenv("MP_TEST_SEED")) {
      mine = std::strtoull(s, nullptr, 0);
    } else {
      mine = uint64_t(std::chrono::system_clock::now().time_since_epoch().count()) ^
             (uint64_t(getpid()) << 32);
    }
    auto* slot = static_cast<uint64_t*>(gshmem_calloc(1, sizeof(uint64_t)));
    if (gshmem_my_pe() == 0) {
      for (int pe = 0; pe < gshmem_n_pes(); ++pe) gshmem_uint64_p(slot, mine, pe);
    }
    gshmem_barrier_all();
    uint64_t shared = *slot;
    gshmem_barrier_all();
    gshmem_free(slot);
    return shared;
  }();
  return seed;
}

inline std::string seed_note() {
  return "seed " + std::to_string(job_seed()) +
         " (rerun with MP_TEST_SEED=" + std::to_string(job_seed()) + "), PE " +
         std::to_string(gshmem_my_pe()) + " of " + std::to_string(gshmem_n_pes());
}

// Fills n elements with data from stream k. Floating types get finite values (no NaN, so the
// bytes compare equal after any copy).
template <class T>
void fill(T* out, size_t n, uint64_t k) {
  uint64_t s = k;
  for (size_t i = 0; i < n; ++i) {
    if constexpr (std::is_floating_point_v<T>) {
      out[i] = T(int64_t(splitmix64(s) % 2000001) - 1000000) / T(8);
    } else {
      unsigned char bytes[sizeof(T)];
      for (size_t b = 0; b < sizeof(T); b += 8) {
        uint64_t v = splitmix64(s);
        std::memcpy(bytes + b, &v, sizeof(T) - b < 8 ? sizeof(T) - b : 8);
      }
      std::memcpy(&out[i], bytes, sizeof(T));
    }
  }
}

template <class T>
std::vector<T> make_data(size_t n, uint64_t k) {
  std::vector<T> v(n);
  fill(v.data(), n, k);
  return v;
}

constexpr unsigned char kPoison = 0xA5;

// Takes (nullptr, 0), as an empty vector's data() gives: memset's pointer must not be null even
// for no bytes (UBSan's nonnull-attribute check).
inline void poison(void* p, size_t bytes) {
  if (bytes) std::memset(p, kPoison, bytes);
}

// Compares bytes and reports the first difference (not thousands of lines).
inline std::string hex_byte(unsigned char c) {
  const char* digits = "0123456789abcdef";
  return std::string("0x") + digits[c >> 4] + digits[c & 15];
}

inline testing::AssertionResult same_bytes(const void* actual, const void* expected, size_t bytes) {
  auto* a = static_cast<const unsigned char*>(actual);
  auto* e = static_cast<const unsigned char*>(expected);
  for (size_t i = 0; i < bytes; ++i) {
    if (a[i] != e[i]) {
      size_t bad = 0;
      for (size_t j = i; j < bytes; ++j) bad += a[j] != e[j];
      return testing::AssertionFailure()
             << "byte " << i << " of " << bytes << " is " << hex_byte(a[i]) << ", expected "
             << hex_byte(e[i]) << " (" << bad << " bytes differ)";
    }
  }
  return testing::AssertionSuccess();
}

inline testing::AssertionResult all_poison(const void* actual, size_t bytes) {
  auto* a = static_cast<const unsigned char*>(actual);
  for (size_t i = 0; i < bytes; ++i) {
    if (a[i] != kPoison) {
      return testing::AssertionFailure() << "byte " << i << " of " << bytes << " was overwritten ("
                                         << hex_byte(a[i]) << "): a write went past its range";
    }
  }
  return testing::AssertionSuccess();
}

inline uint64_t checksum(const void* p, size_t bytes) {
  uint64_t h = 1469598103934665603ull;
  auto* c = static_cast<const unsigned char*>(p);
  for (size_t i = 0; i < bytes; ++i) h = (h ^ c[i]) * 1099511628211ull;
  return h;
}

// Loop counts for 8 PEs on 2 cores: scale work by 1/n_pes, never below `floor`.
// Across virtual nodes (the ctest entries set MP_TEST_PPN) every remote operation is a network
// round trip through the proxy, a hundred times the mapped path or more: loops run a hundredth
// as long.
inline int scaled(int total, int floor = 1) {
  if (std::getenv("MP_TEST_PPN")) {
    total /= 100;
    floor = floor / 100 > 0 ? floor / 100 : 1;
  }
  int v = total / gshmem_n_pes();
  return v < floor ? floor : v;
}

// Sets the error mode for a scope (bad-input tests want gshmem::Error thrown).
class ThrowMode {
 public:
  ThrowMode() { gshmemx_set_error_mode(GSHMEMX_ERROR_THROW); }
  ~ThrowMode() { gshmemx_set_error_mode(GSHMEMX_ERROR_ABORT); }
  ThrowMode(const ThrowMode&) = delete;
  ThrowMode& operator=(const ThrowMode&) = delete;
};

// Runs fn, which must throw gshmem::Error whose message names `call` and whose argument is
// `arg` (and whose message contains `text`, when given).
template <class Fn>
testing::AssertionResult throws_error(Fn&& fn, const std::string& call, const std::string& arg,
                                      const std::string& text = "") {
  try {
    fn();
  } catch (const gshmem::Error& e) {
    std::string what = e.what();
    if (e.call() != call || what.find(call) == std::string::npos) {
      return testing::AssertionFailure() << "error names call '" << e.call() << "' (what: \""
                                         << what << "\"), expected '" << call << "'";
    }
    if (e.argument() != arg) {
      return testing::AssertionFailure()
             << "error names argument '" << e.argument() << "' (what: \"" << what
             << "\"), expected '" << arg << "'";
    }
    if (!text.empty() && what.find(text) == std::string::npos) {
      return testing::AssertionFailure()
             << "error message \"" << what << "\" does not contain \"" << text << "\"";
    }
    return testing::AssertionSuccess() << what;
  } catch (const std::exception& e) {
    return testing::AssertionFailure() << "threw a non-gshmem exception: " << e.what();
  }
  return testing::AssertionFailure() << "did not throw (expected an error from " << call << ")";
}

// A short random pause, so peers act in varying order.
inline void jitter(uint64_t& rng, unsigned max_us) {
  unsigned us = unsigned(splitmix64(rng) % (max_us + 1));
  if (us == 0) {
    sched_yield();
  } else {
    usleep(us);
  }
}

}  // namespace gshmem_test
