// The active-set collectives of OpenSHMEM 1.4 and earlier (shmem_barrier, shmem_broadcast32,
// shmem_TYPE_OP_to_all, ...), written once over a participant set of PEs start + i * stride.
//
// Only the members call them, so no gshmem team can be made for them (team creation is
// collective over a parent). They run on put, put-with-signal, get and signal_op, synchronising
// through the caller's symmetric pSync, whose words are counters: peers add to a word, its owner
// waits for the count it expects and subtracts it, leaving it at SHMEM_SYNC_VALUE (0).
//
// Each word receives one kind of signal only, so a peer that has already moved on to the next
// call cannot have its signal taken for one of this call's:
//   words 0..30  dissemination rounds of barrier and sync (and the syncs inside reductions):
//                round r hears only from the member 2^r before, always in call order
//   word 31      data arrivals (broadcast, collect, fcollect, alltoall, alltoalls)
//   word 32      collect's running offset
// Calls of different kinds may therefore share one pSync when a barrier separates them, even a
// shmem_barrier on that same pSync.
#pragma once

#include <cstring>
#include <vector>

#include "host/shmem/common.hpp"
#include "host/shmem/reduce_ops.hpp"

namespace gshmem::compat {

inline constexpr int kRoundWords = 31;  // a dissemination barrier over < 2^31 PEs
inline constexpr int kArrivalWord = 31;
inline constexpr int kChainWord = 32;
static_assert(SHMEM_SYNC_SIZE >= kChainWord + 1, "pSync holds the rounds, arrivals and chain");
static_assert(SHMEM_BARRIER_SYNC_SIZE >= kRoundWords && SHMEM_REDUCE_SYNC_SIZE >= kRoundWords);

// The members, as OpenSHMEM describes them: PE_start, logPE_stride, PE_size.
struct ActiveSet {
  int start;
  int stride;
  int size;
  int me;  // the calling PE's index
  const char* call;
  uint64_t* words;  // pSync

  int pe(int index) const { return start + index * stride; }
  // The member k places after this PE, cyclically: spreads the traffic of all-to-all patterns.
  int after(int k) const { return (me + k) % size; }
};

// Validates the arguments (ending the job with a message naming the bad one) and finds the
// calling PE in the set.
ActiveSet active_set(int PE_start, int logPE_stride, int PE_size, long* pSync, const char* call);

// Returns once every member has entered the same sync.
void as_sync(const ActiveSet& s);
// quiet, then as_sync.
void as_barrier(const ActiveSet& s);
// root (an index) sends source; every other member's dest receives it (a binomial tree).
void as_broadcast(const ActiveSet& s, void* dest, const void* source, size_t bytes, int root);
// dest = the members' sources concatenated in set order; `bytes` may differ between members.
void as_collect(const ActiveSet& s, void* dest, const void* source, size_t bytes);
// As collect with the same bytes everywhere.
void as_fcollect(const ActiveSet& s, void* dest, const void* source, size_t bytes);
// Block j (bytes long) of member i's source lands as block i of member j's dest.
void as_alltoall(const ActiveSet& s, void* dest, const void* source, size_t bytes);

// Waits until the local counter holds k, then takes k from it.
void consume(const ActiveSet& s, uint64_t* word, uint64_t k, int peer);

// alltoall over elements sst apart in source and dst apart in dest.
template <class T>
void as_alltoalls(const ActiveSet& s, T* dest, const T* source, ptrdiff_t dst, ptrdiff_t sst,
                  size_t nelems) {
  uint64_t* arrivals = &s.words[kArrivalWord];
  for (int k = 0; k < s.size; ++k) {
    int j = s.after(k);
    int pe = s.pe(j);
    if (nelems) {
      gshmem::hostops::iput(ctx(), dest + ptrdiff_t(size_t(s.me) * nelems) * dst,
                            source + ptrdiff_t(size_t(j) * nelems) * sst, dst, sst, nelems, pe,
                            {s.call});
    }
    if (k == 0) continue;
    // The elements travel as separate puts; the signal must not overtake them.
    gshmem::hostops::fence(ctx());
    gshmem::hostops::signal_op(ctx(), arrivals, 1, GSHMEM_SIGNAL_ADD, pe, {s.call});
  }
  consume(s, arrivals, uint64_t(s.size - 1), -1);
}

// dest[i] = Op over the members of source[i]. Every member reads every source and combines them
// in set order, so all members get bit-identical results. dest may be source: it is written only
// after the second sync, once nobody reads this PE's source any more.
template <RedOp Op, class T>
void as_reduce(const ActiveSet& s, T* dest, const T* source, int nreduce) {
  if (nreduce < 0) fail(s.call, "nreduce", "nreduce=" + std::to_string(nreduce) + " is negative");
  if (nreduce == 0) return;
  size_t n = size_t(nreduce);
  std::vector<T> acc(n), in(n);
  as_sync(s);  // every member's source is ready
  for (int i = 0; i < s.size; ++i) {
    T* buf = i == 0 ? acc.data() : in.data();
    if (i == s.me) {
      std::memcpy(static_cast<void*>(buf), source, n * sizeof(T));
    } else {
      gshmem::hostops::getmem(ctx(), buf, source, n * sizeof(T), s.pe(i), {s.call});
    }
    if (i == 0) continue;
    for (size_t k = 0; k < n; ++k) acc[k] = combine<Op>(acc[k], in[k]);
  }
  as_sync(s);
  std::memcpy(static_cast<void*>(dest), acc.data(), n * sizeof(T));
}

}  // namespace gshmem::compat
