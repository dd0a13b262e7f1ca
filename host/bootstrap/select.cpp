// Choosing the bootstrap (GSHMEM_BOOTSTRAP, the init attributes, what the environment shows) and
// the launcher's: a star client over gshmemrun's socket.
#include <cstring>

#include "gshmem/gshmem.hpp"
#include "host/base/env.hpp"
#include "host/base/log.hpp"
#include "host/bootstrap/bootstrap.hpp"
#include "host/bootstrap/star.hpp"

namespace gshmem {

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
  sock::Fd fd = sock::connect_unix(addr);
  if (!fd) {
    throw Error(GSHMEM_ERROR_BOOTSTRAP, "gshmem_init", "GSHMEM_LAUNCHER_ADDR",
                "cannot reach gshmemrun's socket " + addr + " (" + std::string(strerror(errno)) +
                    "); does this PE run as another user or in another mount namespace than "
                    "its launcher?");
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
