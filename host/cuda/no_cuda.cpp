// Built without CUDA: the probe says so, and nothing else can be reached (the runtime picks a
// host heap, and GSHMEM_HEAP=device fails with the probe's reason before any of these).
#include "gshmem/gshmem.hpp"
#include "host/cuda/gpu.hpp"

namespace gshmem {

namespace {

[[noreturn]] void no_cuda(const char* what) {
  throw Error(GSHMEM_ERROR_INTERNAL, what, "", "gshmem was built without CUDA");
}

}  // namespace

namespace gpu {

const Probe& probe() {
  static const Probe p{false, 0, "gshmem was built without CUDA (GSHMEM_CUDA=OFF or no toolkit)"};
  return p;
}
int select_device(int, std::string*) {
  no_cuda("gshmem_init");
}
DeviceId device_id(int) {
  no_cuda("gshmem_init");
}
int ordinal_of(const DeviceId&) {
  return -1;
}
bool can_access(int, int) {
  return false;
}
void* pinned_alloc(size_t, const char* what) {
  no_cuda(what);
}
void pinned_free(void*) {}
void* host_register(void*, size_t, const char* what) {
  no_cuda(what);
}
void host_unregister(void*) {}
void private_copy(void*, const void*, size_t, const char* call, const char*) {
  no_cuda(call);
}
void register_kernel(const void*, const char*) {}
bool host_accessible(const void*) {
  return true;
}
void* device_alloc(size_t, const char* what) {
  no_cuda(what);
}
void device_free(void*) {}

Queue::Queue(int device) : device_(device) {
  no_cuda("gshmem_init");
}
Queue::~Queue() = default;
void Queue::make_current() const {
  no_cuda("gshmem");
}
void Queue::copy(void*, const void*, size_t, void*, bool) {
  no_cuda("gshmem");
}
void Queue::copy2d(void*, size_t, const void*, size_t, size_t, size_t, void*, bool) {
  no_cuda("gshmem");
}
uint64_t Queue::run(const DeviceOp&, void*, bool) {
  no_cuda("gshmem");
}
bool Queue::wait_value64(void*, const uint64_t*, uint64_t, int) {
  return false;
}
void Queue::sync() {}
void Queue::sync_device(const char*) {}
void launch_op(const DeviceContext&, const DeviceOp&, uint64_t*, void*) {
  no_cuda("gshmem");
}

}  // namespace gpu

}  // namespace gshmem
