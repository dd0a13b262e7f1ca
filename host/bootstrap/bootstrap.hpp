// How PEs find each other before any symmetric memory exists: a handful of collectives over a
// side channel (gshmemrun's socket, PMIx, a TCP rendezvous), used at init, at every collective
// heap change and at finalize. Never on a data path.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>

#include "gshmem/types.h"
#include "host/base/sock.hpp"

namespace gshmem {

// The job is ending: another PE died, aborted or called global_exit. Bootstraps raise it; every
// wait polls flag_address() and ends with reason() instead of hanging.
class AbortState {
 public:
  // The first reason wins; `code` is the exit status this PE should end with.
  void raise(int code, const std::string& reason);
  bool raised() const { return __atomic_load_n(&page_.flag, __ATOMIC_ACQUIRE) != 0; }
  int code() const;
  std::string reason() const;
  const volatile uint32_t* flag_address() const { return &page_.flag; }
  // The page holding the flag, alone: a GPU heap pins and maps it so kernels poll it too.
  void* flag_page() { return &page_; }
  static constexpr size_t kFlagPageBytes = 4096;
  // Prints the reason and ends this process with code(); for waits that see the flag.
  [[noreturn]] void exit_now(const char* during) const;

 private:
  struct alignas(kFlagPageBytes) FlagPage {
    volatile uint32_t flag = 0;
  };
  FlagPage page_;
  mutable std::mutex mutex_;
  std::string reason_;
  int code_ = 1;
};

class Bootstrap {
 public:
  virtual ~Bootstrap() = default;
  int rank() const { return rank_; }
  int size() const { return size_; }
  virtual const char* name() const = 0;

  // Collectives over every rank, called in the same order by all. `what` names the gshmem call
  // they serve, for messages when a peer never arrives.
  virtual void allgather(const void* in, void* out, size_t bytes, const char* what) = 0;
  virtual void alltoall(const void* in, void* out, size_t bytes, const char* what);
  virtual void broadcast(void* buf, size_t bytes, int root, const char* what);
  virtual void barrier(const char* what);

  // Ends the whole job: every PE exits, the job's status is `code`. Never returns.
  [[noreturn]] virtual void abort(int code, const std::string& why) = 0;
  // After the last collective of a normal run.
  virtual void finalize() {}

 protected:
  int rank_ = 0;
  int size_ = 1;
};

struct BootstrapOptions {
  const gshmemx_init_attr_t* attr = nullptr;  // init_attr's unique id or MPI communicator
  AbortState* abort = nullptr;
  double timeout_s = 120;
};

// Picks and starts the bootstrap GSHMEM_BOOTSTRAP asks for (auto: launcher, PMIx, single PE).
// Failures throw gshmem::Error naming the bootstrap and why.
std::unique_ptr<Bootstrap> make_bootstrap(const BootstrapOptions& options);

// The implementations, for make_bootstrap and the tests.
std::unique_ptr<Bootstrap> make_single_bootstrap();
std::unique_ptr<Bootstrap> make_launcher_bootstrap(const BootstrapOptions& options);
std::unique_ptr<Bootstrap> make_uid_bootstrap(const BootstrapOptions& options);
// Over the MPI communicator options.attr->mpi_comm points to (GSHMEMX_INIT_WITH_MPI_COMM).
std::unique_ptr<Bootstrap> make_mpi_bootstrap(const BootstrapOptions& options);
// torchrun's variables (MASTER_ADDR, MASTER_PORT, RANK, WORLD_SIZE) are all set.
bool torchrun_environment();
// Where rank 0 listens under torchrun: MASTER_ADDR and MASTER_PORT + 1 ("" outside torchrun).
std::string torchrun_address();
std::unique_ptr<Bootstrap> make_pmix_bootstrap(const BootstrapOptions& options);
bool pmix_available();  // built with PMIx and a PMIx server announced itself in the environment

// gshmemx_get_uniqueid: opens rank 0's listener and describes it in *uid.
int make_uniqueid(gshmemx_uniqueid_t* uid);

// The star protocol over TCP: rank 0 serves (on `listener` when given, else listening on
// host:port) and every rank connects to host:port.
std::unique_ptr<Bootstrap> make_tcp_star(int rank, int size, const std::string& host, int port,
                                         const std::string& secret, sock::Fd listener,
                                         const BootstrapOptions& options, const char* name);

}  // namespace gshmem
