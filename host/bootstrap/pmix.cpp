// The PMIx bootstrap: under mpirun (Open MPI's PRRTE/ORTE) or srun --mpi=pmix.
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "gshmem/gshmem.hpp"
#include "host/bootstrap/bootstrap.hpp"
#include "host/bootstrap/uid_format.hpp"
#include "host/base/env.hpp"
#include "host/base/log.hpp"

#if GSHMEM_HAVE_PMIX
#include <pmix.h>
#endif

namespace gshmem {

#if GSHMEM_HAVE_PMIX

namespace {

std::string status_text(pmix_status_t rc) {
  return PMIx_Error_string(rc);
}

// PMIx finds the job; gshmem's TCP star protocol runs its collectives. Only rank 0's rendezvous
// address travels through PMIx (one put, one fence): PMIx's collecting fence re-exchanges every
// key ever committed, so running every allgather through it would make each one slower than the
// last, and reusing a key returns stale values from PMIx's cache.
class PmixBootstrap : public Bootstrap {
 public:
  explicit PmixBootstrap(const BootstrapOptions& o) {
    pmix_status_t rc = PMIx_Init(&me_, nullptr, 0);
    if (rc != PMIX_SUCCESS) {
      throw Error(GSHMEM_ERROR_BOOTSTRAP, "gshmem_init", "GSHMEM_BOOTSTRAP",
                  "PMIx_Init failed: " + status_text(rc) +
                      " (is the program running under mpirun or srun --mpi=pmix?)");
    }
    try {
      rank_ = int(me_.rank);
      size_ = job_size();
      star_ = rendezvous(o);
    } catch (...) {
      PMIx_Finalize(nullptr, 0);
      throw;
    }
  }
  ~PmixBootstrap() override {
    star_.reset();
    if (!finalized_) PMIx_Finalize(nullptr, 0);
  }
  const char* name() const override { return "pmix"; }
  void allgather(const void* in, void* out, size_t bytes, const char* what) override {
    star_->allgather(in, out, bytes, what);
  }
  void alltoall(const void* in, void* out, size_t bytes, const char* what) override {
    star_->alltoall(in, out, bytes, what);
  }
  void broadcast(void* buf, size_t bytes, int root, const char* what) override {
    star_->broadcast(buf, bytes, root, what);
  }
  void barrier(const char* what) override { star_->barrier(what); }
  [[noreturn]] void abort(int code, const std::string& why) override {
    star_->abort(code, why);  // tells the other PEs; the launcher sees this PE's status
    __builtin_unreachable();
  }
  void finalize() override {
    star_->finalize();
    PMIx_Finalize(nullptr, 0);
    finalized_ = true;
  }

 private:
  pmix_proc_t proc(pmix_rank_t rank) const {
    pmix_proc_t p;
    PMIX_PROC_CONSTRUCT(&p);
    PMIX_LOAD_NSPACE(p.nspace, me_.nspace);
    p.rank = rank;
    return p;
  }

  int job_size() {
    pmix_proc_t wildcard = proc(PMIX_RANK_WILDCARD);
    pmix_value_t* v = nullptr;
    pmix_status_t rc = PMIx_Get(&wildcard, PMIX_JOB_SIZE, nullptr, 0, &v);
    if (rc != PMIX_SUCCESS) {
      throw Error(GSHMEM_ERROR_BOOTSTRAP, "gshmem_init", "",
                  "PMIx_Get(job size): " + status_text(rc));
    }
    int n = int(v->data.uint32);
    PMIX_VALUE_RELEASE(v);
    return n;
  }

  std::unique_ptr<Bootstrap> rendezvous(const BootstrapOptions& o) {
    const char* key = "gshmem.rendezvous";
    sock::Fd listener;
    if (rank_ == 0) {
      std::string host = sock::interface_address(Env::get().str("GSHMEM_BOOTSTRAP_UID_IFNAME"));
      listener = sock::listen_tcp(host, 0, 1024);
      if (!listener) {
        throw Error(GSHMEM_ERROR_BOOTSTRAP, "gshmem_init", "GSHMEM_BOOTSTRAP_UID_IFNAME",
                    "rank 0 cannot listen on " + host + ": " + strerror(errno));
      }
      std::string card =
          uid::encode({host, sock::local_port(listener.get()), sock::random_hex(16)});
      pmix_value_t value;
      PMIX_VALUE_CONSTRUCT(&value);
      value.type = PMIX_STRING;
      value.data.string = const_cast<char*>(card.c_str());
      check(PMIx_Put(PMIX_GLOBAL, key, &value), "PMIx_Put");
      check(PMIx_Commit(), "PMIx_Commit");
    }
    pmix_info_t info;
    PMIX_INFO_CONSTRUCT(&info);
    bool yes = true;
    PMIX_INFO_LOAD(&info, PMIX_COLLECT_DATA, &yes, PMIX_BOOL);
    check(PMIx_Fence(nullptr, 0, &info, 1), "PMIx_Fence");
    PMIX_INFO_DESTRUCT(&info);
    pmix_proc_t root = proc(0);
    pmix_value_t* got = nullptr;
    check(PMIx_Get(&root, key, nullptr, 0, &got), "PMIx_Get");
    std::string card = got->type == PMIX_STRING && got->data.string ? got->data.string : "";
    PMIX_VALUE_RELEASE(got);
    // The same form as a unique id, read by the same parser.
    uid::Info where;
    if (!uid::decode(card.data(), card.size(), &where)) {
      throw Error(GSHMEM_ERROR_BOOTSTRAP, "gshmem_init", "", "rank 0's PMIx rendezvous is garbled");
    }
    return make_tcp_star(rank_, size_, where.host, where.port, where.secret, std::move(listener), o,
                         "pmix");
  }

  void check(pmix_status_t rc, const char* op) {
    if (rc != PMIX_SUCCESS) {
      throw Error(GSHMEM_ERROR_BOOTSTRAP, "gshmem_init", "",
                  std::string(op) + " failed: " + status_text(rc));
    }
  }

  pmix_proc_t me_{};
  std::unique_ptr<Bootstrap> star_;
  bool finalized_ = false;
};

}  // namespace

bool pmix_available() {
  return std::getenv("PMIX_RANK") && std::getenv("PMIX_NAMESPACE");
}

std::unique_ptr<Bootstrap> make_pmix_bootstrap(const BootstrapOptions& o) {
  return std::make_unique<PmixBootstrap>(o);
}

#else

bool pmix_available() {
  return false;
}

std::unique_ptr<Bootstrap> make_pmix_bootstrap(const BootstrapOptions&) {
  throw Error(GSHMEM_ERROR_BOOTSTRAP, "gshmem_init", "GSHMEM_BOOTSTRAP",
              "this gshmem was built without PMIx (install libpmix-dev and reconfigure)");
}

#endif

}  // namespace gshmem
