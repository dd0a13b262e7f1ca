// The MPI bootstrap: the PEs are the ranks of an MPI communicator the program hands to
// gshmemx_init_attr (GSHMEMX_INIT_WITH_MPI_COMM, as NVSHMEM's NVSHMEMX_INIT_WITH_MPI_COMM), any
// communicator, not only MPI_COMM_WORLD. The program has initialised MPI and linked it, so MPI's
// functions are already in the process: they are looked up there (dlsym), and libgshmem gains no
// MPI dependency. Both MPI ABIs are understood: Open MPI's (handles are pointers; MPI_BYTE is
// the address of ompi_mpi_byte) and MPICH's (handles are ints; MPI_BYTE is 0x4c00010d).
#include <dlfcn.h>
#include <unistd.h>

#include <climits>
#include <cstdint>
#include <cstdio>
#include <string>

#include "gshmem/gshmem.hpp"
#include "host/bootstrap/bootstrap.hpp"
#include "host/base/log.hpp"

namespace gshmem {

namespace {

constexpr int kMpichByte = 0x4c00010d;
constexpr int kMpiSuccess = 0;

template <class Handle>
struct MpiCalls {
  int (*comm_rank)(Handle, int*) = nullptr;
  int (*comm_size)(Handle, int*) = nullptr;
  int (*allgather)(const void*, int, Handle, void*, int, Handle, Handle) = nullptr;
  int (*barrier)(Handle) = nullptr;
  int (*abort)(Handle, int) = nullptr;
  int (*initialized)(int*) = nullptr;
};

template <class F>
bool find(F* out, const char* name) {
  *out = reinterpret_cast<F>(::dlsym(RTLD_DEFAULT, name));
  return *out != nullptr;
}

Error mpi_error(const std::string& why) {
  return Error(GSHMEM_ERROR_BOOTSTRAP, "gshmemx_init_attr", "attr->mpi_comm", why);
}

// Handle is void* (Open MPI) or int (MPICH): the type of MPI_Comm and MPI_Datatype.
template <class Handle>
class MpiBootstrap : public Bootstrap {
 public:
  MpiBootstrap(Handle comm, Handle byte) : comm_(comm), byte_(byte) {
    const char* missing = nullptr;
    if (!find(&mpi_.comm_rank, "MPI_Comm_rank")) missing = "MPI_Comm_rank";
    if (!find(&mpi_.comm_size, "MPI_Comm_size")) missing = "MPI_Comm_size";
    if (!find(&mpi_.allgather, "MPI_Allgather")) missing = "MPI_Allgather";
    if (!find(&mpi_.barrier, "MPI_Barrier")) missing = "MPI_Barrier";
    if (!find(&mpi_.abort, "MPI_Abort")) missing = "MPI_Abort";
    if (!find(&mpi_.initialized, "MPI_Initialized")) missing = "MPI_Initialized";
    if (missing) throw mpi_error(std::string("this process has no ") + missing);
    int ready = 0;
    if (mpi_.initialized(&ready) != kMpiSuccess || !ready) {
      throw mpi_error("MPI is not initialised: call MPI_Init before gshmemx_init_attr");
    }
    if (mpi_.comm_rank(comm_, &rank_) != kMpiSuccess ||
        mpi_.comm_size(comm_, &size_) != kMpiSuccess || size_ < 1) {
      throw mpi_error("MPI_Comm_rank/MPI_Comm_size failed on the communicator (is it valid?)");
    }
  }
  const char* name() const override { return "mpi"; }
  void allgather(const void* in, void* out, size_t bytes, const char* what) override {
    if (bytes > size_t(INT_MAX)) {
      throw Error(GSHMEM_ERROR_BOOTSTRAP, what, "", "an MPI bootstrap step above 2 GiB");
    }
    int n = int(bytes);
    if (mpi_.allgather(in, n, byte_, out, n, byte_, comm_) != kMpiSuccess) {
      throw Error(GSHMEM_ERROR_BOOTSTRAP, what, "", "MPI_Allgather failed");
    }
  }
  void barrier(const char* what) override {
    if (mpi_.barrier(comm_) != kMpiSuccess) {
      throw Error(GSHMEM_ERROR_BOOTSTRAP, what, "", "MPI_Barrier failed");
    }
  }
  [[noreturn]] void abort(int code, const std::string& why) override {
    log::error("%s", why.c_str());
    std::fflush(nullptr);
    mpi_.abort(comm_, code);
    ::_exit(code);
  }

 private:
  Handle comm_;
  Handle byte_;
  MpiCalls<Handle> mpi_;
};

}  // namespace

std::unique_ptr<Bootstrap> make_mpi_bootstrap(const BootstrapOptions& o) {
  if (!o.attr || !o.attr->mpi_comm) {
    throw mpi_error("GSHMEMX_INIT_WITH_MPI_COMM needs attr->mpi_comm = &comm (an MPI_Comm*)");
  }
  if (void* ompi_byte = ::dlsym(RTLD_DEFAULT, "ompi_mpi_byte")) {
    void* comm = *static_cast<void* const*>(o.attr->mpi_comm);
    return std::make_unique<MpiBootstrap<void*>>(comm, ompi_byte);
  }
  if (::dlsym(RTLD_DEFAULT, "MPI_Allgather")) {
    int comm = *static_cast<const int*>(o.attr->mpi_comm);
    return std::make_unique<MpiBootstrap<int>>(comm, kMpichByte);
  }
  throw mpi_error(
      "no MPI library in this process: link the program with MPI (mpicc) and call MPI_Init "
      "before gshmemx_init_attr");
}

}  // namespace gshmem
