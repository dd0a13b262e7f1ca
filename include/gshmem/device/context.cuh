// The DeviceContext: everything device-side code needs to reach a peer, as one trivially copyable
// value. A host object (the runtime) builds it once the state it describes is valid and hands it
// out by value; kernels get it as a __constant__ default or as an argument, CPU PEs as a global.
#pragma once

#include <type_traits>

#include "gshmem/device/platform.cuh"
#include "gshmem/types.h"

namespace gshmem {

namespace detail {
struct ChannelDevice;  // the proxy channel's producer side (transports/proxy)
}

// One symmetric region: the same size on every PE. peer_base[pe] is where PE pe's copy is mapped
// in this address space, or nullptr when it is reachable only through the proxy channel.
struct Segment {
  char* base;
  uint64_t size;
  char* const* peer_base;
};
static_assert(std::is_trivially_copyable_v<Segment>);

// A team as device code sees it. Members are strided in the world (start + i * stride) unless
// `members` lists them. psync_offset locates the team's synchronisation words in the heap.
struct TeamInfo {
  int32_t size;      // 0 when the slot is free
  int32_t my_index;  // -1 when this PE is not a member
  int32_t start;
  int32_t stride;
  const int32_t* members;
  uint64_t psync_offset;
  // This PE's count of teams created when the slot got this team: no two teams of a PE's life
  // share it, though a slot's call numbers restart (the collectives' pool marks calls with it).
  uint64_t generation;

  GSHMEM_HD GSHMEM_INLINE int32_t world_pe(int32_t index) const {
    return members ? members[index] : start + index * stride;
  }
};
static_assert(std::is_trivially_copyable_v<TeamInfo>);

enum ContextFlags : uint32_t {
  kCtxChecks = 1u << 0,          // validate PE, address and size on the device too
  kCtxOversubscribed = 1u << 1,  // more PEs than cores here: waits yield early
  // The heap is GPU memory: host code must not load or store it (host/runtime/hostops.hpp).
  kCtxGpuHeap = 1u << 2,
};

struct DeviceContext {
  int32_t my_pe;
  int32_t n_pes;  // 0 before init and after finalize
  uint32_t flags;
  uint32_t spins_before_yield;
  Segment heap;
  Segment statics;  // the program's data and bss (CPU PEs only; size 0 elsewhere)
  const volatile uint32_t* abort_flag;
  uint64_t timeout_ns;  // 0: waits never time out
  const TeamInfo* teams;
  detail::ChannelDevice* channel;  // nullptr: no network transport
  void* host_runtime;              // opaque; the host slow paths find their runtime through it
  // The collectives' state in the heap (gshmem/coll/workspace.cuh), for collectives called from
  // kernels: team slot t's area at coll_area_off + t * coll_area_stride, the scratch pool at
  // coll_pool_off (coll_pool_bytes). 0 when the collectives reserved none.
  uint64_t coll_area_off;
  uint64_t coll_area_stride;
  uint64_t coll_pool_off;
  uint64_t coll_pool_bytes;
};
static_assert(std::is_trivially_copyable_v<DeviceContext>);
static_assert(std::is_standard_layout_v<DeviceContext>);

// Names the API call on the slow paths (bad input, timeouts) so messages can say which call failed.
struct Site {
  const char* call;
  int peer = -1;              // the PE a wait depends on, when known
  const char* arg = nullptr;  // the address argument being resolved ("dest", "source", ...)

  GSHMEM_HD GSHMEM_INLINE Site with(const char* a) const { return {call, peer, a}; }
};

// What was wrong with a call's arguments. `bytes` in bad_input() carries the offending value for
// Size, Stride, Cmp, SignalOp and Team.
enum class BadInput : uint8_t {
  Pe,
  Address,
  Misaligned,
  Size,
  Stride,
  Cmp,
  SignalOp,
  Team,
  NotInitialized,
  NoTransport,
  GroupShape,  // a _warp call in a block whose size is not a multiple of 32 (`bytes`: the size)
};

namespace detail {

// Host slow paths, implemented in the library. They print a message naming the call and the
// argument, then end the job (or throw gshmem::Error when the error mode asks for it).
[[noreturn]] void host_bad_input(const DeviceContext& c, Site site, BadInput what, const void* addr,
                                 uint64_t bytes, int pe);
[[noreturn]] void host_wait_failed(const DeviceContext& c, Site site, bool timed_out);

[[noreturn]] GSHMEM_HD inline void bad_input(const DeviceContext& c, Site site, BadInput what,
                                             const void* addr, uint64_t bytes, int pe) {
#if GSHMEM_ON_DEVICE
  // The host path's wording is richer; here one line that names the call, what was wrong and
  // the values, then a trap (no store has been made: every check precedes the first one).
  const char* kind = what == BadInput::Pe               ? "PE out of range"
                     : what == BadInput::Address        ? "address outside the symmetric heap"
                     : what == BadInput::Misaligned     ? "misaligned address"
                     : what == BadInput::Size           ? "size past the end of the heap"
                     : what == BadInput::Stride         ? "stride below 1"
                     : what == BadInput::Cmp            ? "comparison operator"
                     : what == BadInput::SignalOp       ? "signal operation"
                     : what == BadInput::Team           ? "team (invalid, or not a member)"
                     : what == BadInput::NotInitialized ? "call outside gshmem_init..finalize"
                     : what == BadInput::GroupShape
                         ? "a _warp call in a block whose size (value) is not a multiple of 32"
                         : "no transport reaches the PE";
  printf("gshmem: PE %d: %s: bad input: %s (argument %s, address %p, value %llu, pe %d)\n", c.my_pe,
         site.call, kind, site.arg ? site.arg : "-", addr, (unsigned long long)bytes, pe);
  __trap();
  __builtin_unreachable();
#else
  host_bad_input(c, site, what, addr, bytes, pe);
#endif
}

GSHMEM_HD GSHMEM_INLINE bool checks_on(const DeviceContext& c) {
#if GSHMEM_ON_DEVICE
  return c.flags & kCtxChecks;
#else
  (void)c;
  return true;  // host calls always validate: a few compares next to a function call
#endif
}

GSHMEM_HD GSHMEM_INLINE bool in_segment(const Segment& s, uintptr_t a, uint64_t bytes,
                                        uint64_t* off) {
  uintptr_t b = reinterpret_cast<uintptr_t>(s.base);
  if (a < b) return false;
  *off = a - b;
  return *off <= s.size && bytes <= s.size - *off;
}

}  // namespace detail

// Where a symmetric address lives on PE pe: `ptr` is the mapped address (nullptr when the peer is
// reached through the proxy channel), `segment` 0 for the heap and 1 for static data.
struct Remote {
  char* ptr;
  uint64_t offset;
  int segment;
};

// Translates (addr, bytes, pe) to the peer's copy, validating the PE, the range and the size.
// Zero-byte ranges may sit at the end of a segment.
GSHMEM_HD GSHMEM_INLINE Remote resolve(const DeviceContext& c, const void* addr, uint64_t bytes,
                                       int pe, Site site) {
  uintptr_t a = reinterpret_cast<uintptr_t>(addr);
  uint64_t off;
  if (!detail::checks_on(c)) {
    off = a - reinterpret_cast<uintptr_t>(c.heap.base);
    char* base = c.heap.peer_base[pe];
    return {base ? base + off : nullptr, off, 0};
  }
  if (static_cast<uint32_t>(pe) >= static_cast<uint32_t>(c.n_pes)) {
    detail::bad_input(c, site, c.n_pes ? BadInput::Pe : BadInput::NotInitialized, addr, bytes, pe);
  }
  if (detail::in_segment(c.heap, a, bytes, &off)) {
    char* base = c.heap.peer_base[pe];
    return {base ? base + off : nullptr, off, 0};
  }
#if !GSHMEM_ON_DEVICE
  if (c.statics.size && detail::in_segment(c.statics, a, bytes, &off)) {
    char* base = c.statics.peer_base[pe];
    return {base ? base + off : nullptr, off, 1};
  }
#endif
  uint64_t probe;
  bool starts_inside = detail::in_segment(c.heap, a, 0, &probe) ||
                       (c.statics.size && detail::in_segment(c.statics, a, 0, &probe));
  detail::bad_input(c, site, starts_inside ? BadInput::Size : BadInput::Address, addr, bytes, pe);
}

}  // namespace gshmem
