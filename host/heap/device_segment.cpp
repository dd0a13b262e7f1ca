#include "host/heap/device_segment.hpp"

#include <cuda_runtime_api.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>

#include "gshmem/gshmem.hpp"
#include "host/cuda/cuda_error.hpp"
#include "host/cuda/driver.hpp"
#include "host/cuda/gpu.hpp"
#include "host/base/env.hpp"
#include "host/base/log.hpp"

namespace gshmem {

namespace {

constexpr uint64_t kMinGrowth = uint64_t(32) << 20;  // fewer, larger mappings than the minimum

uint64_t round_up(uint64_t v, uint64_t a) {
  return (v + a - 1) / a * a;
}
uint64_t lowest_bit(uint64_t v) {
  return v & (~v + 1);
}

// The device heap cannot be set up: reported, like a host heap that cannot be, as the size
// asked for being too large.
[[noreturn]] void fail(const std::string& why) {
  throw Error(GSHMEM_ERROR_OUT_OF_MEMORY, "gshmem_init", "GSHMEM_SYMMETRIC_SIZE", why);
}

void check(cudaError_t rc, const char* what) {
  gpu::cuda_check(rc, "gshmem_init", what, GSHMEM_ERROR_OUT_OF_MEMORY, "GSHMEM_SYMMETRIC_SIZE");
}

CUmemAllocationProp allocation_prop(int device) {
  CUmemAllocationProp prop{};
  prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
  prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
  prop.location.id = device;
  prop.requestedHandleTypes = CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR;
  // A NIC (EFA, verbs) can register VMM memory only when it was created RDMA-capable.
  const gpu::Driver* d = gpu::driver();
  CUdevice dev = 0;
  int rdma = 0;
  if (d && d->cuDeviceGet(&dev, device) == CUDA_SUCCESS &&
      d->cuDeviceGetAttribute(&rdma, CU_DEVICE_ATTRIBUTE_GPU_DIRECT_RDMA_WITH_CUDA_VMM_SUPPORTED,
                              dev) == CUDA_SUCCESS &&
      rdma) {
    prop.allocFlags.gpuDirectRDMACapable = 1;
  }
  return prop;
}

bool device_has_vmm(int device) {
  const gpu::Driver* d = gpu::driver();
  if (!d || !d->has_vmm()) return false;
  CUdevice dev = 0;
  if (d->cuDeviceGet(&dev, device) != CUDA_SUCCESS) return false;
  int vmm = 0, fd = 0;
  d->cuDeviceGetAttribute(&vmm, CU_DEVICE_ATTRIBUTE_VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED, dev);
  d->cuDeviceGetAttribute(&fd, CU_DEVICE_ATTRIBUTE_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR_SUPPORTED,
                          dev);
  return vmm && fd;
}

// The same value on every PE: the largest (granularity) or smallest (alignment) of all.
uint64_t agree(Bootstrap& boot, uint64_t mine, bool largest, const char* what) {
  std::vector<uint64_t> all(size_t(boot.size()));
  boot.allgather(&mine, all.data(), sizeof mine, what);
  return largest ? *std::max_element(all.begin(), all.end())
                 : *std::min_element(all.begin(), all.end());
}

}  // namespace

DeviceSegment::DeviceSegment(Bootstrap& boot, NodeMesh& mesh, uint64_t bytes, uint64_t alignment,
                             int device, bool commit_all)
    : boot_(boot), mesh_(mesh), my_pe_(boot.rank()), device_(device) {
  peer_base_.assign(size_t(boot.size()), nullptr);
  reserved_.assign(size_t(boot.size()), false);
  // One path for the whole job: the fd exchange and the IPC allgather are collectives.
  vmm_ = agree(boot, device_has_vmm(device) ? 1 : 0, false, "gshmem_init (device heap kind)") == 1;

  // Which peers this PE's GPU can reach: by device UUID, as ordinals differ between processes.
  gpu::DeviceId mine = gpu::device_id(device);
  std::vector<gpu::DeviceId> ids(size_t(boot.size()));
  boot.allgather(&mine, ids.data(), sizeof mine, "gshmem_init (GPU identities)");
  std::vector<bool> reach(size_t(boot.size()), false);
  for (int pe : mesh.local_pes()) {
    if (pe == my_pe_) continue;
    int ord = gpu::ordinal_of(ids[size_t(pe)]);
    reach[size_t(pe)] = ord >= 0 && gpu::can_access(device, ord);
    if (!reach[size_t(pe)]) {
      GSHMEM_INFO(HEAP, "PE %d's GPU is %s; its heap is reached through the proxy", pe,
                  ord < 0 ? "not visible to this process" : "not peer-accessible from this GPU");
    }
  }
  reserved_ = reach;
  if (vmm_) {
    size_ = bytes;
    setup_vmm(alignment);
  } else {
    size_ = round_up(bytes, uint64_t(2) << 20);
    setup_ipc();
  }
  mapped_ = 1;
  for (int pe = 0; pe < boot.size(); ++pe) mapped_ += pe != my_pe_ && peer_base_[size_t(pe)];
  device_peer_base_ = static_cast<char* const*>(
      gpu::device_alloc(sizeof(char*) * peer_base_.size(), "the heap's peer base table"));
  gpu::private_copy(const_cast<char**>(device_peer_base_), peer_base_.data(),
                    sizeof(char*) * peer_base_.size(), "gshmem_init", "the peer base table");
  if (commit_all && !commit(size_)) {
    fail("cannot back the " + format_bytes(size_) + " device heap with GPU memory");
  }
}

void DeviceSegment::setup_vmm(uint64_t alignment) {
  const gpu::Driver* d = gpu::driver();
  CUmemAllocationProp prop = allocation_prop(device_);
  size_t min_gran = 0, rec_gran = 0;
  CUresult rc =
      d->cuMemGetAllocationGranularity(&min_gran, &prop, CU_MEM_ALLOC_GRANULARITY_MINIMUM);
  if (rc == CUDA_SUCCESS) {
    rc = d->cuMemGetAllocationGranularity(&rec_gran, &prop, CU_MEM_ALLOC_GRANULARITY_RECOMMENDED);
  }
  if (rc != CUDA_SUCCESS) fail(gpu::describe(rc, "cuMemGetAllocationGranularity"));
  uint64_t gran = agree(boot_, std::max<uint64_t>(min_gran, rec_gran), true,
                        "gshmem_init (device heap granularity)");
  size_ = round_up(size_, gran);
  granule_ = std::min(round_up(std::max(gran, kMinGrowth), gran), size_);

  CUdeviceptr own = 0;
  rc = d->cuMemAddressReserve(&own, size_, alignment, 0, 0);
  if (rc != CUDA_SUCCESS) rc = d->cuMemAddressReserve(&own, size_, gran, 0, 0);
  if (rc != CUDA_SUCCESS) {
    fail(gpu::describe(rc, "cuMemAddressReserve") + " reserving " + format_bytes(size_) +
         " for the device heap");
  }
  peer_base_[size_t(my_pe_)] = reinterpret_cast<char*>(own);
  reserved_[size_t(my_pe_)] = true;
  alignment_ = agree(boot_, std::min(alignment, lowest_bit(uint64_t(own))), false,
                     "gshmem_init (device heap alignment)");
  size_t peers = 0;
  for (int pe : mesh_.local_pes()) {
    if (pe == my_pe_ || !reserved_[size_t(pe)]) continue;
    CUdeviceptr p = 0;
    rc = d->cuMemAddressReserve(&p, size_, gran, 0, 0);
    if (rc != CUDA_SUCCESS) {
      fail(gpu::describe(rc, "cuMemAddressReserve") + " reserving " + format_bytes(size_) +
           " for PE " + std::to_string(pe) + "'s device heap");
    }
    peer_base_[size_t(pe)] = reinterpret_cast<char*>(p);
    ++peers;
  }
  GSHMEM_INFO(HEAP,
              "device heap (CUDA VMM, device %d): reserved %s of address space at %p plus %s "
              "for each of %zu mapped peers; memory is added in %s steps as the heap grows",
              device_, format_bytes(size_).c_str(), reinterpret_cast<void*>(own),
              format_bytes(size_).c_str(), peers, format_bytes(granule_).c_str());
}

void DeviceSegment::setup_ipc() {
  void* own = nullptr;
  check(cudaMalloc(&own, size_),
        ("cudaMalloc(" + format_bytes(size_) + ") for the device heap").c_str());
  peer_base_[size_t(my_pe_)] = static_cast<char*>(own);
  alignment_ =
      agree(boot_, std::min<uint64_t>(uint64_t(1) << 30, lowest_bit(uint64_t(uintptr_t(own)))),
            false, "gshmem_init (device heap alignment)");
  gpu::private_copy(own, nullptr, size_, "gshmem_init", "zeroing the device heap");
  cudaIpcMemHandle_t handle{};
  check(cudaIpcGetMemHandle(&handle, own), "cudaIpcGetMemHandle");
  std::vector<cudaIpcMemHandle_t> all(size_t(boot_.size()));
  boot_.allgather(&handle, all.data(), sizeof handle, "gshmem_init (device heap IPC handles)");
  for (int pe : mesh_.local_pes()) {
    if (pe == my_pe_ || !reserved_[size_t(pe)]) continue;
    void* p = nullptr;
    check(cudaIpcOpenMemHandle(&p, all[size_t(pe)], cudaIpcMemLazyEnablePeerAccess),
          ("cudaIpcOpenMemHandle (PE " + std::to_string(pe) + "'s device heap)").c_str());
    peer_base_[size_t(pe)] = static_cast<char*>(p);
  }
  committed_ = size_;
  GSHMEM_INFO(HEAP,
              "device heap (cudaMalloc + CUDA IPC: this device has no VMM with POSIX FDs, "
              "device %d): %s at %p",
              device_, format_bytes(size_).c_str(), own);
}

bool DeviceSegment::map(char* at, uint64_t off, uint64_t bytes, uint64_t handle, const char* what) {
  const gpu::Driver* d = gpu::driver();
  auto ptr = CUdeviceptr(reinterpret_cast<uintptr_t>(at) + off);
  CUresult rc = d->cuMemMap(ptr, bytes, 0, CUmemGenericAllocationHandle(handle), 0);
  if (rc != CUDA_SUCCESS) {
    log::error("%s: %s", what, gpu::describe(rc, "cuMemMap").c_str());
    return false;
  }
  CUmemAccessDesc access{};
  access.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
  access.location.id = device_;
  access.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
  rc = d->cuMemSetAccess(ptr, bytes, &access, 1);
  if (rc != CUDA_SUCCESS) {
    d->cuMemUnmap(ptr, bytes);
    log::error("%s: %s", what, gpu::describe(rc, "cuMemSetAccess").c_str());
    return false;
  }
  mappings_.push_back({reinterpret_cast<char*>(ptr), bytes});
  return true;
}

bool DeviceSegment::commit(uint64_t bytes) {
  if (!vmm_) return bytes <= size_;
  uint64_t target = std::min(round_up(bytes, granule_), size_);
  if (target <= committed_) return true;
  const gpu::Driver* d = gpu::driver();
  const char* what = "gshmem_malloc (growing the device heap)";
  uint64_t chunk = target - committed_;
  CUmemAllocationProp prop = allocation_prop(device_);
  CUmemGenericAllocationHandle h = 0;
  int fd = -1;
  bool ok = false, mapped = false;
  CUresult rc = d->cuMemCreate(&h, chunk, &prop, 0);
  if (rc != CUDA_SUCCESS) {
    log::error("%s: %s for %s more", what, gpu::describe(rc, "cuMemCreate").c_str(),
               format_bytes(chunk).c_str());
  } else if ((mapped = map(base(), committed_, chunk, h, what))) {
    // Zero before any peer can map it: a fresh host heap reads as zero too.
    gpu::private_copy(base() + committed_, nullptr, chunk, "gshmem_malloc",
                      "zeroing the device heap");
    rc = d->cuMemExportToShareableHandle(&fd, h, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, 0);
    ok = rc == CUDA_SUCCESS;
    if (!ok) log::error("%s: %s", what, gpu::describe(rc, "cuMemExportToShareableHandle").c_str());
  }
  // Every PE grows or none does: the malloc fails everywhere rather than half the job.
  if (agree(boot_, ok ? 1 : 0, false, what) == 0) {
    if (fd >= 0) ::close(fd);
    if (mapped) {
      d->cuMemUnmap(CUdeviceptr(reinterpret_cast<uintptr_t>(base()) + committed_), chunk);
      mappings_.pop_back();
    }
    if (h) d->cuMemRelease(h);
    return false;
  }
  handles_.push_back(h);
  auto fds = mesh_.exchange_fds({fd}, 0x64657600ull + growths_++, what);
  ::close(fd);
  for (int pe : mesh_.local_pes()) {
    if (pe == my_pe_) continue;
    int peer_fd = fds[size_t(pe)].at(0);
    if (!reserved_[size_t(pe)]) {
      ::close(peer_fd);
      continue;
    }
    CUmemGenericAllocationHandle ph = 0;
    rc = d->cuMemImportFromShareableHandle(&ph, reinterpret_cast<void*>(uintptr_t(peer_fd)),
                                           CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR);
    ::close(peer_fd);  // the imported handle keeps the memory
    if (rc != CUDA_SUCCESS) {
      throw Error(GSHMEM_ERROR_TRANSPORT, what, "",
                  "PE " + std::to_string(pe) +
                      "'s memory: " + gpu::describe(rc, "cuMemImportFromShareableHandle"));
    }
    handles_.push_back(ph);
    if (!map(peer_base_[size_t(pe)], committed_, chunk, ph, what)) {
      throw Error(GSHMEM_ERROR_TRANSPORT, what, "",
                  "cannot map PE " + std::to_string(pe) + "'s device heap");
    }
  }
  committed_ = target;
  GSHMEM_INFO(HEAP, "device heap: %s of %s backed", format_bytes(committed_).c_str(),
              format_bytes(size_).c_str());
  return true;
}

void DeviceSegment::zero(uint64_t off, uint64_t bytes) {
  if (bytes)
    gpu::private_copy(base() + off, nullptr, bytes, "gshmem_malloc", "zeroing the device heap");
}

void DeviceSegment::move(uint64_t dst, uint64_t src, uint64_t bytes) {
  // realloc's blocks: both in use while copied, so they never overlap.
  if (bytes)
    gpu::private_copy(base() + dst, base() + src, bytes, "gshmem_realloc", "moving a block");
}

DeviceSegment::~DeviceSegment() {
  const gpu::Driver* d = gpu::driver();
  gpu::device_free(const_cast<char**>(device_peer_base_));
  if (vmm_ && d) {
    for (const Mapping& m : mappings_)
      d->cuMemUnmap(CUdeviceptr(reinterpret_cast<uintptr_t>(m.at)), m.bytes);
    for (uint64_t h : handles_) d->cuMemRelease(CUmemGenericAllocationHandle(h));
    for (size_t pe = 0; pe < peer_base_.size(); ++pe) {
      if (reserved_[pe] && peer_base_[pe]) {
        d->cuMemAddressFree(CUdeviceptr(reinterpret_cast<uintptr_t>(peer_base_[pe])), size_);
      }
    }
  } else if (!vmm_) {
    for (size_t pe = 0; pe < peer_base_.size(); ++pe) {
      if (int(pe) != my_pe_ && peer_base_[pe]) cudaIpcCloseMemHandle(peer_base_[pe]);
    }
    if (base()) cudaFree(base());
  }
  (void)cudaGetLastError();
}

std::unique_ptr<HeapSegment> make_device_heap(Bootstrap& boot, NodeMesh& mesh, uint64_t bytes,
                                              uint64_t alignment, int device, bool commit_all) {
  return std::make_unique<DeviceSegment>(boot, mesh, bytes, alignment, device, commit_all);
}

}  // namespace gshmem
