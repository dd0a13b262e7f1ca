#include "transports/proxy/local_memory.hpp"

#include <sys/mman.h>

#include <cstring>
#include <type_traits>

#include "gshmem/device/atomic.cuh"
#include "gshmem/gshmem.hpp"
#include "host/cuda/gpu.hpp"

namespace gshmem {

namespace {

template <class T>
uint64_t apply_typed(void* p, AmoOp op, uint64_t v, uint64_t c) {
  using detail::amo_apply;
  using detail::from_bits;
  using detail::to_bits;
  T* t = static_cast<T*>(p);
  T val = from_bits<T>(v), cnd = from_bits<T>(c);
  switch (op) {
    case AmoOp::Fetch:
      return to_bits(amo_apply<AmoOp::Fetch>(t, val, cnd));
    case AmoOp::Set:
      return to_bits(amo_apply<AmoOp::Set>(t, val, cnd));
    case AmoOp::Swap:
      return to_bits(amo_apply<AmoOp::Swap>(t, val, cnd));
    default:
      break;
  }
  if constexpr (std::is_integral_v<T>) {
    switch (op) {
      case AmoOp::CompareSwap:
        return to_bits(amo_apply<AmoOp::CompareSwap>(t, val, cnd));
      case AmoOp::FetchAdd:
      case AmoOp::Add:
      case AmoOp::FetchInc:
      case AmoOp::Inc:
        return to_bits(amo_apply<AmoOp::FetchAdd>(t, val, cnd));
      case AmoOp::FetchAnd:
      case AmoOp::And:
        return to_bits(amo_apply<AmoOp::FetchAnd>(t, val, cnd));
      case AmoOp::FetchOr:
      case AmoOp::Or:
        return to_bits(amo_apply<AmoOp::FetchOr>(t, val, cnd));
      case AmoOp::FetchXor:
      case AmoOp::Xor:
        return to_bits(amo_apply<AmoOp::FetchXor>(t, val, cnd));
      default:
        break;
    }
  }
  throw Error(GSHMEM_ERROR_INTERNAL, "proxy", "", "an atomic operation the type does not have");
}

class HostMemory final : public LocalMemory {
 public:
  bool host_accessible(const void*, size_t) const override { return true; }
  void to_host(void* host, const void* src, size_t n) override { std::memcpy(host, src, n); }
  void from_host(void* dst, const void* host, size_t n) override { std::memcpy(dst, host, n); }
  uint64_t atomic(void* p, detail::AmoType type, AmoOp op, uint64_t v, uint64_t c) override {
    return apply_amo(p, type, op, v, c);
  }
};

class GpuMemory final : public LocalMemory {
 public:
  explicit GpuMemory(int device) : queue_(device) {}
  bool host_accessible(const void* p, size_t) const override { return gpu::host_accessible(p); }
  void to_host(void* host, const void* src, size_t n) override {
    queue_.copy(host, src, n, queue_.internal(), true);
  }
  void from_host(void* dst, const void* host, size_t n) override {
    queue_.copy(dst, host, n, queue_.internal(), true);
  }
  uint64_t atomic(void*, detail::AmoType, AmoOp, uint64_t, uint64_t) override {
    // Network refuses emulated atomics on a GPU heap at init: a CPU atomic cannot be atomic with
    // respect to the GPU's on the same word.
    throw Error(GSHMEM_ERROR_INTERNAL, "proxy", "", "an emulated atomic on a GPU heap");
  }

 private:
  gpu::Queue queue_;  // the proxy's own stream
};

class AliasedMemory final : public LocalMemory {
 public:
  explicit AliasedMemory(std::vector<FabricRegion>& segments) {
    for (FabricRegion& s : segments) {
      if (!s.size) continue;
      void* a =
          ::mmap(nullptr, s.size, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
      if (a == MAP_FAILED) {
        throw Error(GSHMEM_ERROR_OUT_OF_MEMORY, "gshmem_init", "GSHMEM_PROXY_GPUVIEW",
                    "cannot reserve the proxy's alias of the symmetric segments");
      }
      spans_.push_back({static_cast<char*>(a), s.base, s.size});
      s.base = static_cast<char*>(a);
    }
  }
  ~AliasedMemory() override {
    for (const Span& s : spans_) ::munmap(s.alias, s.size);
  }

  char* view(uint64_t producer_address) const override {
    auto* p = reinterpret_cast<char*>(producer_address);
    for (const Span& s : spans_) {
      if (p >= s.real && p < s.real + s.size) return s.alias + (p - s.real);
    }
    return p;
  }
  bool host_accessible(const void* p, size_t) const override { return !find(p); }
  void* fabric_address(void* p) const override { return real(p); }
  void to_host(void* host, const void* src, size_t n) override { std::memcpy(host, real(src), n); }
  void from_host(void* dst, const void* host, size_t n) override {
    std::memcpy(real(dst), host, n);
  }
  uint64_t atomic(void* p, detail::AmoType type, AmoOp op, uint64_t v, uint64_t c) override {
    return apply_amo(real(p), type, op, v, c);
  }

 private:
  struct Span {
    char* alias;
    char* real;
    uint64_t size;
  };
  const Span* find(const void* p) const {
    auto* c = static_cast<const char*>(p);
    for (const Span& s : spans_) {
      if (c >= s.alias && c < s.alias + s.size) return &s;
    }
    return nullptr;
  }
  char* real(const void* p) const {
    const Span* s = find(p);
    auto* c = const_cast<char*>(static_cast<const char*>(p));
    return s ? s->real + (c - s->alias) : c;
  }
  std::vector<Span> spans_;
};

}  // namespace

uint64_t apply_amo(void* p, detail::AmoType type, AmoOp op, uint64_t v, uint64_t c) {
  switch (type) {
    case detail::AmoType::I32:
      return apply_typed<int32_t>(p, op, v, c);
    case detail::AmoType::U32:
      return apply_typed<uint32_t>(p, op, v, c);
    case detail::AmoType::I64:
      return apply_typed<int64_t>(p, op, v, c);
    case detail::AmoType::U64:
      return apply_typed<uint64_t>(p, op, v, c);
    case detail::AmoType::F32:
      return apply_typed<float>(p, op, v, c);
    case detail::AmoType::F64:
      return apply_typed<double>(p, op, v, c);
  }
  throw Error(GSHMEM_ERROR_INTERNAL, "proxy", "", "an atomic of an unknown type");
}

std::unique_ptr<LocalMemory> host_memory() {
  return std::make_unique<HostMemory>();
}
std::unique_ptr<LocalMemory> gpu_memory(int cuda_device) {
  return std::make_unique<GpuMemory>(cuda_device);
}
std::unique_ptr<LocalMemory> aliased_memory(std::vector<FabricRegion>& segments) {
  return std::make_unique<AliasedMemory>(segments);
}

}  // namespace gshmem
