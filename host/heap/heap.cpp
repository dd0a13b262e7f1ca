#include "host/heap/heap.hpp"

#include <cstdio>
#include <cstring>
#include <string>

#include "gshmem/gshmem.hpp"
#include "host/base/env.hpp"
#include "host/base/log.hpp"

namespace gshmem {

namespace {

const char* op_name(SymmetricHeap::Op op) {
  switch (op) {
    case SymmetricHeap::Op::Malloc:
      return "gshmem_malloc";
    case SymmetricHeap::Op::Calloc:
      return "gshmem_calloc";
    case SymmetricHeap::Op::Align:
      return "gshmem_align";
    case SymmetricHeap::Op::Realloc:
      return "gshmem_realloc";
    case SymmetricHeap::Op::Free:
      return "gshmem_free";
  }
  return "?";
}

std::string describe(uint32_t op, uint64_t bytes, uint64_t align, uint64_t old) {
  auto o = SymmetricHeap::Op(op);
  std::string s = op_name(o);
  switch (o) {
    case SymmetricHeap::Op::Free:
      return s + "(heap offset " + std::to_string(old) + ")";
    case SymmetricHeap::Op::Realloc:
      return s + "(heap offset " + std::to_string(old) + ", " + std::to_string(bytes) + " bytes)";
    case SymmetricHeap::Op::Align:
      return s + "(" + std::to_string(align) + ", " + std::to_string(bytes) + " bytes)";
    default:
      return s + "(" + std::to_string(bytes) + " bytes)";
  }
}

constexpr uint64_t kNoBlock = ~0ull;

}  // namespace

SymmetricHeap::SymmetricHeap(Bootstrap& boot, NodeMesh& mesh, uint64_t bytes,
                             const Placement& where)
    : boot_(boot), alloc_(bytes) {
  std::vector<uint64_t> sizes(static_cast<size_t>(boot.size()));
  boot.allgather(&bytes, sizes.data(), sizeof bytes, "gshmem_init (heap size)");
  for (int pe = 0; pe < boot.size(); ++pe) {
    if (sizes[size_t(pe)] != bytes) {
      throw Error(GSHMEM_ERROR_INVALID_ARGUMENT, "gshmem_init", "GSHMEM_SYMMETRIC_SIZE",
                  "PE " + std::to_string(pe) + " has a " + format_bytes(sizes[size_t(pe)]) +
                      " heap, this PE " + format_bytes(bytes) +
                      "; every PE must use the same GSHMEM_SYMMETRIC_SIZE");
    }
  }
  segment_ = where.device ? make_device_heap(boot, mesh, bytes, kBaseAlignment, where.cuda_device,
                                             where.commit_all)
                          : make_host_heap(mesh, boot.size(), bytes, kBaseAlignment);
  GSHMEM_INFO(HEAP, "symmetric heap: %s of %s memory at %p, %zu peers mapped",
              format_bytes(bytes).c_str(), kind(), static_cast<void*>(base()),
              segment_->mapped_peers());
}

void SymmetricHeap::commit_reserved() {
  if (!grow()) {
    throw Error(GSHMEM_ERROR_OUT_OF_MEMORY, "gshmem_init", "GSHMEM_SYMMETRIC_SIZE",
                "cannot back gshmem's own " + format_bytes(alloc_.high_water()) +
                    " of the symmetric heap with memory");
  }
}

bool SymmetricHeap::grow() {
  uint64_t high = alloc_.high_water();
  if (high <= segment_->committed()) return true;
  if (!segment_->commit(high)) return false;
  if (on_growth_) on_growth_();
  return true;
}

uint64_t SymmetricHeap::reserve(uint64_t bytes, uint64_t align, const char* what) {
  auto off = alloc_.allocate(bytes, align);
  if (!off) {
    throw Error(GSHMEM_ERROR_OUT_OF_MEMORY, "gshmem_init", "GSHMEM_SYMMETRIC_SIZE",
                std::string("the heap is too small for gshmem's own ") + what + " (" +
                    format_bytes(bytes) + ")");
  }
  return *off;
}

std::string SymmetricHeap::check_request(const Request& r, void* old) const {
  auto op = Op(r.op);
  char ptr[32];
  std::snprintf(ptr, sizeof ptr, "ptr=%p", old);
  if (op == Op::Calloc && r.bytes == kOverflow) return "count * size overflows";
  if (op == Op::Align && (r.align == 0 || (r.align & (r.align - 1)))) {
    return "alignment=" + std::to_string(r.align) + " is not a power of two";
  }
  if (op == Op::Align && r.align > segment_->base_alignment()) {
    return "alignment=" + std::to_string(r.align) + " is larger than the " +
           format_bytes(segment_->base_alignment()) + " the heap's base guarantees";
  }
  if ((op == Op::Free || op == Op::Realloc) && old) {
    if (!contains(old)) return std::string(ptr) + " is not in the symmetric heap";
    if (r.old == kNoBlock || !alloc_.block_size(r.old)) {
      return std::string(ptr) +
             " is not the start of an allocated block (freed twice, or never returned by "
             "gshmem_malloc)";
    }
  }
  return "";
}

void* SymmetricHeap::allocate(Op op, uint64_t bytes, uint64_t align, void* old, const char* call) {
  Request mine{uint32_t(op), 1, bytes, align, kNoBlock};
  if (old && contains(old)) mine.old = uint64_t(static_cast<char*>(old) - base());
  if (std::string bad = check_request(mine, old); !bad.empty()) {
    log::error("%s: %s; the call does nothing", call, bad.c_str());
    mine.valid = 0;
  }
  std::vector<Request> all(static_cast<size_t>(boot_.size()));
  boot_.allgather(&mine, all.data(), sizeof mine, call);
  bool any_bad = false;
  for (int pe = 0; pe < boot_.size(); ++pe) {
    const Request& r = all[size_t(pe)];
    if (r.op != mine.op || r.bytes != mine.bytes || r.align != mine.align || r.old != mine.old ||
        r.valid != mine.valid) {
      // The PEs are out of step: whatever they do next will not match either. End the job.
      throw Error(GSHMEM_ERROR_INVALID_ARGUMENT, call, "",
                  "asymmetric call: PE " + std::to_string(boot_.rank()) + " called " +
                      describe(mine.op, mine.bytes, mine.align, mine.old) +
                      (mine.valid ? "" : " with a bad argument") + ", PE " + std::to_string(pe) +
                      " called " + describe(r.op, r.bytes, r.align, r.old) +
                      (r.valid ? "" : " with a bad argument") +
                      "; collective heap calls need the same arguments on every PE");
    }
    any_bad = any_bad || !r.valid;
  }
  if (any_bad) return nullptr;  // the same bad argument everywhere: nothing happened anywhere
  void* result = apply(mine);
  if (!result && op != Op::Free && bytes) {
    log::error(
        "%s: symmetric heap exhausted: asked for %s, largest free block %s, %s of %s in "
        "use (raise GSHMEM_SYMMETRIC_SIZE)",
        call, format_bytes(bytes).c_str(), format_bytes(alloc_.largest_free()).c_str(),
        format_bytes(alloc_.used()).c_str(), format_bytes(alloc_.capacity()).c_str());
  }
  // calloc and realloc write the new block locally; nobody may put into it before that is done.
  if ((op == Op::Calloc || op == Op::Realloc) && result) boot_.barrier(call);
  return result;
}

void* SymmetricHeap::apply(const Request& r) {
  auto op = Op(r.op);
  if (op == Op::Free) {
    if (r.old != kNoBlock) alloc_.release(r.old);
    return nullptr;
  }
  if (op == Op::Realloc && r.old != kNoBlock) {
    uint64_t old_bytes = alloc_.block_size(r.old);
    if (r.bytes == 0) {
      alloc_.release(r.old);
      return nullptr;
    }
    if (alloc_.resize(r.old, r.bytes)) {
      if (grow()) return base() + r.old;
      alloc_.resize(r.old, old_bytes);  // shrinking back always succeeds
      return nullptr;
    }
    auto off = alloc_.allocate(r.bytes, r.align);
    if (!off) return nullptr;
    if (!grow()) {
      alloc_.release(*off);
      return nullptr;
    }
    segment_->move(*off, r.old, std::min(old_bytes, r.bytes));
    alloc_.release(r.old);
    return base() + *off;
  }
  if (r.bytes == 0) return nullptr;
  auto off = alloc_.allocate(r.bytes, r.align);
  if (!off) return nullptr;
  if (!grow()) {
    alloc_.release(*off);
    return nullptr;
  }
  if (op == Op::Calloc) segment_->zero(*off, r.bytes);
  return base() + *off;
}

}  // namespace gshmem
