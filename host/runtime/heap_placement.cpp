#include "host/runtime/heap_placement.hpp"

#include <algorithm>
#include <string>
#include <vector>

#include "gshmem/gshmem.hpp"
#include "host/base/env.hpp"
#include "host/base/log.hpp"
#include "host/cuda/gpu.hpp"
#include "host/runtime/process.hpp"

namespace gshmem {

// auto takes the GPU only for programs that run gshmem kernels (they link gshmem::device, whose
// context hook is registered before main). A program without kernels gets host memory: its CPU
// code may load and store symmetric memory directly, which a GPU heap would turn into a crash.
// Every PE must agree: the heaps are built by different collectives.
HeapPlacement choose_heap(Bootstrap& boot, const NodeMesh& mesh) {
  const std::string& want = Env::get().str("GSHMEM_HEAP");
  HeapPlacement where;
  const bool auto_device =
      want == "auto" && !detail::host_heap_preferred() && detail::device_library_attached();
  if (want == "device" || auto_device) {
    const gpu::Probe& probe = gpu::probe();
    if (probe.available) {
      where.device = true;
    } else if (want == "device") {
      throw Error(GSHMEM_ERROR_INVALID_ARGUMENT, "gshmem_init", "GSHMEM_HEAP",
                  "GSHMEM_HEAP=device but no GPU is usable: " + probe.why +
                      " (GSHMEM_HEAP=host or auto puts the heap in host memory)");
    }
  }
  int mine = where.device ? 1 : 0;
  std::vector<int> all(size_t(boot.size()));
  boot.allgather(&mine, all.data(), sizeof mine, "gshmem_init (heap kind)");
  for (int pe = 0; pe < boot.size(); ++pe) {
    if (all[size_t(pe)] != mine) {
      throw Error(GSHMEM_ERROR_INVALID_ARGUMENT, "gshmem_init", "GSHMEM_HEAP",
                  std::string("this PE's heap would be in ") + (mine ? "GPU" : "host") +
                      " memory, PE " + std::to_string(pe) + "'s in " + (mine ? "host" : "GPU") +
                      " memory" + (mine ? "" : " (" + gpu::probe().why + " here)") +
                      "; set GSHMEM_HEAP the same way on every PE");
    }
  }
  if (where.device) {
    const auto& local = mesh.local_pes();
    int index = int(std::find(local.begin(), local.end(), boot.rank()) - local.begin());
    std::string how;
    where.cuda_device = gpu::select_device(index, &how);
    GSHMEM_INFO(INIT, "symmetric heap in GPU memory: CUDA device %d (chosen by %s)",
                where.cuda_device, how.c_str());
  }
  return where;
}

}  // namespace gshmem
