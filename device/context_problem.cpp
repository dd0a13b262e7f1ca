// gshmem::device_context_problem: whether kernels can reach what a DeviceContext points at.
// A first GPU run that faults with "illegal address" says nothing; this names the pointer.
#include <cuda_runtime_api.h>

#include <string>
#include <vector>

#include "gshmem/device/context.cuh"

namespace gshmem {

std::string device_context_problem(const DeviceContext& c);

namespace {

// "" when a kernel on the current device can load from p at the same address.
std::string reach(const void* p, const char* what) {
  if (!p) return std::string(what) + " is NULL";
  cudaPointerAttributes a{};
  cudaError_t e = cudaPointerGetAttributes(&a, p);
  if (e != cudaSuccess) {
    cudaGetLastError();
    return std::string(what) + ": cudaPointerGetAttributes failed (" + cudaGetErrorString(e) + ")";
  }
  switch (a.type) {
    case cudaMemoryTypeDevice:
    case cudaMemoryTypeManaged:
      return "";
    case cudaMemoryTypeHost:
      if (a.devicePointer == p) return "";
      return std::string(what) + " is pinned host memory mapped at a different device address";
    default:
      return std::string(what) +
             " is ordinary host memory (neither device, managed nor registered memory)";
  }
}

void add(std::string& out, const std::string& problem) {
  if (problem.empty()) return;
  if (!out.empty()) out += "; ";
  out += problem;
}

}  // namespace

std::string device_context_problem(const DeviceContext& c) {
  if (c.n_pes <= 0) {
    return "the context is empty (before gshmem_init, after gshmem_finalize, or the heap is host "
           "memory: kernels need a GPU heap, GSHMEM_HEAP=device or auto with a usable GPU)";
  }
  std::string out;
  add(out, reach(c.heap.base, "the symmetric heap (heap.base)"));
  std::string table = reach(c.heap.peer_base, "the peer table (heap.peer_base)");
  add(out, table);
  if (table.empty()) {
    // The table itself may be device memory: copy it out rather than dereference it here, on a
    // private stream (this runs at every context publish, also inside gshmem_malloc, and a
    // legacy-stream copy would wait for an application kernel that may be waiting on a peer).
    std::vector<char*> peers(size_t(c.n_pes));
    cudaStream_t s = nullptr;
    cudaError_t rc = cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
    if (rc == cudaSuccess) {
      rc = cudaMemcpyAsync(peers.data(), c.heap.peer_base, peers.size() * sizeof(char*),
                           cudaMemcpyDefault, s);
      if (rc == cudaSuccess) rc = cudaStreamSynchronize(s);
      cudaStreamDestroy(s);
    }
    if (rc == cudaSuccess) {
      for (int pe = 0; pe < c.n_pes; ++pe) {
        if (!peers[size_t(pe)]) continue;  // reached through the proxy channel
        add(out, reach(peers[size_t(pe)],
                       ("PE " + std::to_string(pe) + "'s heap as mapped here").c_str()));
      }
    } else {
      cudaGetLastError();
      add(out, "the peer table could not be read back with cudaMemcpy");
    }
  }
  add(out, reach(c.teams, "the team table (teams)"));
  if (c.abort_flag) add(out, reach(const_cast<const uint32_t*>(c.abort_flag), "the abort flag"));
  if (c.channel) add(out, reach(c.channel, "the proxy channel (channel)"));
  return out;
}

}  // namespace gshmem
