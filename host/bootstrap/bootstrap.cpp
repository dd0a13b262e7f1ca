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

// ---- gshmemrun ------------------------------------------------------------------------------

std::unique_ptr<Bootstrap> make_launcher_bootstrap(const BootstrapOptions& o) {
  const Env& env = Env::get();
  const std::string& addr = env.str("GSHMEM_LAUNCHER_ADDR");
  int pe = int(env.integer("GSHMEM_LAUNCHER_PE"));
  int npes = int(env.integer("GSHMEM_LAUNCHER_NPES"));
  if (addr.empty() || pe < 0 || npes <= 0 || pe >= npes) {
    throw Error(GSHMEM_ERROR_BOOTSTRAP, "gshmem_init", "GSHMEM_BOOTSTRAP",
                "the launcher bootstrap needs the GSHMEM_LAUNCHER_* variables gshmemrun sets; "
                "start the program with gshmemrun -n N");
  }
  sock::Fd fd = sock::connect_abstract(addr);
  if (!fd) {
    throw Error(GSHMEM_ERROR_BOOTSTRAP, "gshmem_init", "GSHMEM_LAUNCHER_ADDR",
                "cannot reach gshmemrun's socket (" + std::string(strerror(errno)) +
                    "); is this PE in another network namespace than its launcher?");
  }
  return std::make_unique<star::Client>(std::move(fd), pe, npes, env.str("GSHMEM_LAUNCHER_SECRET"),
                                        o.abort, o.timeout_s, "gshmemrun", "launcher");
}

// ---- Selection ------------------------------------------------------------------------------

std::unique_ptr<Bootstrap> make_bootstrap(const BootstrapOptions& o) {
  const Env& env = Env::get();
  std::string kind = env.str("GSHMEM_BOOTSTRAP");
  if (o.attr && o.attr->has_uid_args) kind = "uid";
  if (o.attr && o.attr->mpi_comm) kind = "mpi";
  if (kind == "auto") {
    if (!env.str("GSHMEM_LAUNCHER_ADDR").empty()) {
      kind = "launcher";
    } else if (pmix_available()) {
      kind = "pmix";
    } else if (torchrun_environment()) {
      kind = "uid";  // torchrun: rank 0 listens next to MASTER_PORT
    } else {
      kind = "single";
    }
  }
  GSHMEM_INFO(BOOTSTRAP, "bootstrap: %s", kind.c_str());
  if (kind == "launcher") return make_launcher_bootstrap(o);
  if (kind == "pmix") return make_pmix_bootstrap(o);
  if (kind == "uid") return make_uid_bootstrap(o);
  if (kind == "mpi") return make_mpi_bootstrap(o);
  return make_single_bootstrap();
}

}  // namespace gshmem
