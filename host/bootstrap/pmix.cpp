// The PMIx bootstrap: under mpirun (Open MPI's PRRTE/ORTE) or srun --mpi=pmix. Allgather is
// put + commit + fence(collect) + get, one key per collective so values never alias.
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "gshmem/gshmem.hpp"
#include "host/bootstrap/bootstrap.hpp"
#include "host/log.hpp"

#if GSHMEM_HAVE_PMIX
#include <pmix.h>
#endif

namespace gshmem {

#if GSHMEM_HAVE_PMIX

namespace {

std::string status_text(pmix_status_t rc) { return PMIx_Error_string(rc); }

class PmixBootstrap : public Bootstrap {
 public:
  explicit PmixBootstrap(AbortState* abort) : abort_(abort) {
    pmix_status_t rc = PMIx_Init(&me_, nullptr, 0);
    if (rc != PMIX_SUCCESS) {
      throw Error(GSHMEM_ERROR_BOOTSTRAP, "gshmem_init", "GSHMEM_BOOTSTRAP",
                  "PMIx_Init failed: " + status_text(rc) +
                      " (is the program running under mpirun or srun --mpi=pmix?)");
    }
    pmix_proc_t wildcard;
    PMIX_PROC_CONSTRUCT(&wildcard);
    PMIX_LOAD_NSPACE(wildcard.nspace, me_.nspace);
    wildcard.rank = PMIX_RANK_WILDCARD;
    pmix_value_t* v = nullptr;
    rc = PMIx_Get(&wildcard, PMIX_JOB_SIZE, nullptr, 0, &v);
    if (rc != PMIX_SUCCESS) {
      PMIx_Finalize(nullptr, 0);
      throw Error(GSHMEM_ERROR_BOOTSTRAP, "gshmem_init", "", "PMIx_Get(job size): " +
                                                                  status_text(rc));
    }
    rank_ = int(me_.rank);
    size_ = int(v->data.uint32);
    PMIX_VALUE_RELEASE(v);
  }
  ~PmixBootstrap() override {
    if (!finalized_) PMIx_Finalize(nullptr, 0);
  }
  const char* name() const override { return "pmix"; }

  void allgather(const void* in, void* out, size_t bytes, const char* what) override {
    std::string key = "gshmem." + std::to_string(seq_++);
    pmix_value_t value;
    PMIX_VALUE_CONSTRUCT(&value);
    value.type = PMIX_BYTE_OBJECT;
    value.data.bo.bytes = static_cast<char*>(const_cast<void*>(in));
    value.data.bo.size = bytes;
    check(PMIx_Put(PMIX_GLOBAL, key.c_str(), &value), "PMIx_Put", what);
    check(PMIx_Commit(), "PMIx_Commit", what);
    fence(true, what);
    for (int r = 0; r < size_; ++r) {
      pmix_proc_t proc;
      PMIX_PROC_CONSTRUCT(&proc);
      PMIX_LOAD_NSPACE(proc.nspace, me_.nspace);
      proc.rank = pmix_rank_t(r);
      pmix_value_t* got = nullptr;
      check(PMIx_Get(&proc, key.c_str(), nullptr, 0, &got), "PMIx_Get", what);
      if (got->type != PMIX_BYTE_OBJECT || got->data.bo.size != bytes) {
        abort(1, std::string(what) + ": PMIx allgather got " +
                     std::to_string(got->data.bo.size) + " bytes from PE " + std::to_string(r) +
                     ", expected " + std::to_string(bytes));
      }
      std::memcpy(static_cast<char*>(out) + size_t(r) * bytes, got->data.bo.bytes, bytes);
      PMIX_VALUE_RELEASE(got);
    }
  }

  void barrier(const char* what) override { fence(false, what); }

  [[noreturn]] void abort(int code, const std::string& why) override {
    PMIx_Abort(code, why.c_str(), nullptr, 0);
    std::fflush(nullptr);
    std::_Exit(code);
  }

  void finalize() override {
    if (!finalized_) PMIx_Finalize(nullptr, 0);
    finalized_ = true;
  }

 private:
  void fence(bool collect, const char* what) {
    pmix_info_t info;
    PMIX_INFO_CONSTRUCT(&info);
    bool yes = true;
    PMIX_INFO_LOAD(&info, PMIX_COLLECT_DATA, &yes, PMIX_BOOL);
    check(PMIx_Fence(nullptr, 0, collect ? &info : nullptr, collect ? 1 : 0), "PMIx_Fence", what);
    PMIX_INFO_DESTRUCT(&info);
  }
  void check(pmix_status_t rc, const char* op, const char* what) {
    if (rc == PMIX_SUCCESS) return;
    if (abort_->raised()) abort_->exit_now(what);
    log::error("%s: %s failed: %s", what, op, status_text(rc).c_str());
    abort(1, std::string(what) + ": " + op + " failed");
  }

  pmix_proc_t me_{};
  AbortState* abort_;
  uint64_t seq_ = 0;
  bool finalized_ = false;
};

}  // namespace

bool pmix_available() { return std::getenv("PMIX_RANK") && std::getenv("PMIX_NAMESPACE"); }

std::unique_ptr<Bootstrap> make_pmix_bootstrap(const BootstrapOptions& o) {
  return std::make_unique<PmixBootstrap>(o.abort);
}

#else

bool pmix_available() { return false; }

std::unique_ptr<Bootstrap> make_pmix_bootstrap(const BootstrapOptions&) {
  throw Error(GSHMEM_ERROR_BOOTSTRAP, "gshmem_init", "GSHMEM_BOOTSTRAP",
              "this gshmem was built without PMIx (install libpmix-dev and reconfigure)");
}

#endif

}  // namespace gshmem
