#include "host/shmem/active_set.hpp"

#include <string>

namespace gshmem::compat {

namespace {

bool symmetric(const void* p) {
  const DeviceContext& c = ctx();
  uint64_t off;
  auto a = reinterpret_cast<uintptr_t>(p);
  return detail::in_segment(c.heap, a, sizeof(long), &off) ||
         (c.statics.size && detail::in_segment(c.statics, a, sizeof(long), &off));
}

// Puts `bytes` of source at `offset` in every other member's dest, each followed by a unit on
// its arrivals word, copies this PE's own block, and waits for the other members' blocks.
void place_everywhere(const ActiveSet& s, void* dest, const void* source, size_t bytes,
                      uint64_t offset) {
  uint64_t* arrivals = &s.words[kArrivalWord];
  char* mine = static_cast<char*>(dest) + offset;
  for (int k = 1; k < s.size; ++k) {
    gshmem::hostops::putmem_signal_nbi(ctx(), mine, source, bytes, arrivals, 1, GSHMEM_SIGNAL_ADD,
                                       s.pe(s.after(k)), {s.call});
  }
  if (bytes) std::memmove(mine, source, bytes);
  gshmem::hostops::quiet(ctx());  // source may be reused on return
  consume(s, arrivals, uint64_t(s.size - 1), -1);
}

}  // namespace

ActiveSet active_set(int PE_start, int logPE_stride, int PE_size, long* pSync, const char* call) {
  const DeviceContext& c = ctx();
  if (!c.n_pes) fail(call, "", "called outside shmem_init..shmem_finalize");
  if (PE_size < 1) fail(call, "PE_size", "PE_size=" + std::to_string(PE_size) + " must be >= 1");
  if (logPE_stride < 0 || logPE_stride > 30) {
    fail(call, "logPE_stride",
         "logPE_stride=" + std::to_string(logPE_stride) + " must be in 0..30");
  }
  int64_t stride = int64_t(1) << logPE_stride;
  int64_t last = int64_t(PE_start) + int64_t(PE_size - 1) * stride;
  if (PE_start < 0 || last >= c.n_pes) {
    fail(call, "PE_start",
         "the active set PE_start=" + std::to_string(PE_start) + " logPE_stride=" +
             std::to_string(logPE_stride) + " PE_size=" + std::to_string(PE_size) +
             " runs past the last PE (" + std::to_string(c.n_pes - 1) + ")");
  }
  int64_t delta = int64_t(c.my_pe) - PE_start;
  if (delta < 0 || delta % stride || delta / stride >= PE_size) {
    fail(call, "PE_start",
         "PE " + std::to_string(c.my_pe) + " is not in the active set PE_start=" +
             std::to_string(PE_start) + " logPE_stride=" + std::to_string(logPE_stride) +
             " PE_size=" + std::to_string(PE_size) + " it called with");
  }
  if (!pSync || !symmetric(pSync)) {
    fail(call, "pSync",
         "pSync must be a symmetric array (symmetric heap or a global/static variable)");
  }
  return {PE_start, int(stride),
          PE_size,  int(delta / stride),
          call,     reinterpret_cast<uint64_t*>(pSync)};
}

void consume(const ActiveSet& s, uint64_t* word, uint64_t k, int peer) {
  detail::wait_for(ctx(), {s.call, peer}, [&] { return detail::load_acquire(word) >= k; });
  detail::atomic_ref<uint64_t>(*word).fetch_sub(k, detail::relaxed);
}

// Dissemination: in round r a member signals the member 2^r after it and waits for the one 2^r
// before it; after ceil(log2 size) rounds every member has heard, transitively, from all.
void as_sync(const ActiveSet& s) {
  int round = 0;
  for (int64_t dist = 1; dist < s.size; dist <<= 1, ++round) {
    int to = s.pe(int((s.me + dist) % s.size));
    int from = s.pe(int((s.me - dist % s.size + s.size) % s.size));
    gshmem::hostops::signal_op(ctx(), &s.words[round], 1, GSHMEM_SIGNAL_ADD, to, {s.call});
    consume(s, &s.words[round], 1, from);
  }
}

void as_barrier(const ActiveSet& s) {
  gshmem::hostops::quiet(ctx());
  as_sync(s);
}

// Binomial tree rooted at `root`: the member r places after the root gets the data from
// r - 2^floor(log2 r) and forwards it to r + 2^k for every 2^k > r, the largest subtree first.
void as_broadcast(const ActiveSet& s, void* dest, const void* source, size_t bytes, int root) {
  if (root < 0 || root >= s.size) {
    fail(s.call, "PE_root",
         "PE_root=" + std::to_string(root) + " is not an index in the active set (0.." +
             std::to_string(s.size - 1) + ")");
  }
  uint64_t* arrivals = &s.words[kArrivalWord];
  int rel = (s.me - root + s.size) % s.size;
  const void* from = source;
  if (rel != 0) {
    consume(s, arrivals, 1, -1);
    from = dest;
  }
  int64_t top = 1;
  while (top < s.size) top <<= 1;
  for (int64_t m = top; m > rel; m >>= 1) {
    if (rel + m >= s.size) continue;
    int child = s.pe(int((rel + m + root) % s.size));
    gshmem::hostops::putmem_signal(ctx(), dest, from, bytes, arrivals, 1, GSHMEM_SIGNAL_ADD, child,
                                   {s.call});
  }
}

// Offsets travel down a chain: member i learns where its block starts from member i-1.
void as_collect(const ActiveSet& s, void* dest, const void* source, size_t bytes) {
  uint64_t* chain = &s.words[kChainWord];
  uint64_t offset = 0;
  if (s.me > 0) {
    uint64_t seen = 0;
    detail::wait_for(ctx(), {s.call, s.pe(s.me - 1)},
                     [&] { return (seen = detail::load_acquire(chain)) != 0; });
    detail::atomic_ref<uint64_t>(*chain).fetch_sub(seen, detail::relaxed);
    offset = seen - 1;
  }
  if (s.me + 1 < s.size) {
    gshmem::hostops::signal_op(ctx(), chain, offset + bytes + 1, GSHMEM_SIGNAL_ADD, s.pe(s.me + 1),
                               {s.call});
  }
  place_everywhere(s, dest, source, bytes, offset);
}

void as_fcollect(const ActiveSet& s, void* dest, const void* source, size_t bytes) {
  place_everywhere(s, dest, source, bytes, uint64_t(s.me) * bytes);
}

void as_alltoall(const ActiveSet& s, void* dest, const void* source, size_t bytes) {
  uint64_t* arrivals = &s.words[kArrivalWord];
  char* mine = static_cast<char*>(dest) + uint64_t(s.me) * bytes;
  const char* src = static_cast<const char*>(source);
  for (int k = 1; k < s.size; ++k) {
    int j = s.after(k);
    gshmem::hostops::putmem_signal_nbi(ctx(), mine, src + uint64_t(j) * bytes, bytes, arrivals, 1,
                                       GSHMEM_SIGNAL_ADD, s.pe(j), {s.call});
  }
  if (bytes) std::memmove(mine, src + uint64_t(s.me) * bytes, bytes);
  gshmem::hostops::quiet(ctx());
  consume(s, arrivals, uint64_t(s.size - 1), -1);
}

}  // namespace gshmem::compat
