#include "host/bootstrap/bootstrap.hpp"

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "gshmem/gshmem.hpp"
#include "host/bootstrap/star.hpp"
#include "host/base/env.hpp"
#include "host/base/log.hpp"

namespace gshmem {

// ---- AbortState -----------------------------------------------------------------------------

void AbortState::raise(int code, const std::string& reason) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (page_.flag) return;
  reason_ = reason;
  code_ = code;
  __atomic_store_n(&page_.flag, 1u, __ATOMIC_RELEASE);
}

int AbortState::code() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return code_;
}

std::string AbortState::reason() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return reason_;
}

void AbortState::exit_now(const char* during) const {
  std::string why = reason();
  log::error("%s interrupted: %s", during, why.c_str());
  std::fflush(nullptr);
  ::_exit(code());
}

// ---- Collectives derived from allgather -----------------------------------------------------

void Bootstrap::alltoall(const void* in, void* out, size_t bytes, const char* what) {
  size_t n = size_t(size_);
  std::vector<char> all(n * n * bytes);
  allgather(in, all.data(), n * bytes, what);
  for (size_t s = 0; s < n; ++s) {
    std::memcpy(static_cast<char*>(out) + s * bytes, all.data() + (s * n + size_t(rank_)) * bytes,
                bytes);
  }
}

void Bootstrap::broadcast(void* buf, size_t bytes, int root, const char* what) {
  std::vector<char> all(size_t(size_) * bytes);
  allgather(buf, all.data(), bytes, what);
  std::memcpy(buf, all.data() + size_t(root) * bytes, bytes);
}

void Bootstrap::barrier(const char* what) {
  std::vector<char> all(static_cast<size_t>(size_));
  char mine = 0;
  allgather(&mine, all.data(), 1, what);
}

// ---- One PE alone ---------------------------------------------------------------------------

namespace {

class SingleBootstrap : public Bootstrap {
 public:
  const char* name() const override { return "single"; }
  void allgather(const void* in, void* out, size_t bytes, const char*) override {
    std::memmove(out, in, bytes);
  }
  [[noreturn]] void abort(int code, const std::string&) override {
    std::fflush(nullptr);
    ::_exit(code);
  }
};

}  // namespace

std::unique_ptr<Bootstrap> make_single_bootstrap() {
  return std::make_unique<SingleBootstrap>();
}

}  // namespace gshmem
