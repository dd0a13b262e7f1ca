// The proxy engine: drains the channel into the fabric transport and gives the commands their
// meaning on a network that completes operations in any order. Host threads run it themselves
// (after each push, and while they wait); the proxy thread runs it for kernels, and for host PEs
// as background progress, leaving a command whose producer waits on it to that producer.
//
//   put/get      one or more fabric writes/reads (chunked; staged through registered host
//                memory when the local buffer is not registered and the provider needs it
//                registered or it is device memory, or when a blocking put from host memory can
//                return as soon as its source is copied)
//   p/g          one element whose value travels in the command or comes back in the return slot
//   atomics      a native fabric atomic when the provider has it, else a message to the target's
//                proxy, which applies it with a CPU atomic and replies
//   put_signal   the data first; the signal only once every data write has completed (delivery
//                complete = visible at the target), so the signal can never overtake its data;
//                into GPU memory, a read of the data's last bytes first flushes the NIC's writes
//                (PCIe reads do not pass posted writes), as NVSHMEM does for GPUDirect RDMA
//   fence        operations to a PE after the fence wait until that PE's earlier ones completed
//   quiet        everything issued before it has completed
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "transports/fabric/fabric.hpp"
#include "transports/proxy/amo_message.hpp"
#include "transports/proxy/channel_host.hpp"
#include "transports/proxy/local_memory.hpp"

namespace gshmem {

// The idle proxy's longest pause between looks while its PE was busy moments ago
// (GSHMEM_PROXY_IDLE=nap, plus the kernel's timer slack): how late it may progress an operation
// that needs its PE then (ten times this once the PE has been idle a while).
constexpr uint64_t kProxyNapNs = 100000;

struct ProxyOptions {
  bool emulate_atomics = false;  // always use the message path for atomics (EFA's behaviour)
  size_t chunk_bytes = size_t(4) << 20;
  // Kernels produce (or GSHMEM_PROXY_GPUVIEW stands in for them): producers ring no doorbell and
  // run no engine step, so the proxy thread polls the ring without sleeping.
  bool gpu_producers = false;
  // No thread sleeps on the network (GSHMEM_PROXY_IDLE): the idle proxy thread polls it, and the
  // completion queue has no file descriptor to signal. Always with gpu_producers.
  bool poll_idle = false;
  // With poll_idle, the idle proxy thread naps between looks (GSHMEM_PROXY_IDLE=nap): the pause
  // grows to this long, and to ten times this once the PE has been idle a while (0: no naps, a
  // busy thread).
  uint64_t nap_ns = 0;
  // The symmetric segments are GPU memory: flush the NIC's writes before a put_signal's signal.
  bool flush_before_signal = false;
  uint64_t job_key = 0;  // carried by every message; one without it is dropped
  // The engine's own waits (for free resources, a fence, a quiet) end the process naming
  // themselves when the job aborts, and fail after this long without progress (GSHMEM_TIMEOUT;
  // 0: never).
  const AbortState* abort = nullptr;
  double timeout_s = 0;
};

class Proxy {
 public:
  // `segments` are this PE's symmetric regions by segment number (heap, static data) as `memory`
  // lets the proxy see them: emulated atomics are applied there. `fail` ends the job with a
  // message.
  Proxy(ChannelHost& channel, std::vector<FabricRegion> segments,
        std::unique_ptr<LocalMemory> memory, int my_pe, int n_pes, const ProxyOptions& options,
        std::function<void(const std::string&)> fail);
  ~Proxy();

  // The proxy's own registered memory (requests, bounce buffers, messages): register it with
  // the fabric before start().
  FabricRegion arena() const { return {arena_, arena_bytes_}; }

  // Posts the receive buffers and starts the thread. oversubscribed: the host's busy threads
  // outnumber its cores (Network decides), so the proxy's loop and waits yield between looks.
  void start(Fabric& fabric, bool oversubscribed);
  // Stops after the current step; call once no peer needs this PE's progress any more.
  void stop();

  // Progress by waiters: a thread waiting inside gshmem runs one engine step when no other thread
  // is running one; a thread that just pushed a command (`post_only`) only issues what is queued,
  // leaving completions to whoever waits. True when the step did some work.
  bool drive_from_waiter(bool post_only);
  // A waiter that has seen nothing for GSHMEM_WAIT_SLEEP naps up to `ns` here instead of polling;
  // the network's news ends the nap. True when the network has news or needs progress now, or has
  // no file descriptor to wait on (then at once, without a nap; but where the proxy naps, the
  // waiter's nap is a plain pause, false).
  bool wait_for_news(uint64_t ns);

 private:
  struct Request;
  struct Op;
  struct Message;

  void run();
  void loop();  // run()'s body
  void sleep();
  void nap(uint32_t naps);     // nap_ns: a pause that grows with the naps since the last work
  bool waiter_recent() const;  // a waiter drove the engine in the last few milliseconds
  uint64_t waiter_left_ns()
      const;  // until the last waiter's step is no longer recent (0: it is not)
  bool step(bool post_only = false);
  // Whether the proxy thread leaves this command to the host thread that waits on it.
  bool left_to_waiter(const detail::Command& c) const;
  // The engine runs in the proxy thread, not in a waiter of the PE.
  bool on_proxy_thread() const;
  void execute(const detail::Command& c, uint64_t ticket);
  int drive();  // progress without taking new commands; returns completions handled
  // The engine's one wait: drive() until done() (which says so when stopping makes waiting
  // moot), bounded as ProxyOptions says. `what` names the call it serves; `peer` the PE it waits
  // for (-1: the first with operations outstanding).
  template <class Done>
  void drive_until(Done done, const char* what, int peer);
  void on_done(void* ctx, bool ok, const std::string& why);

  Request* new_request(int pe, uint64_t ticket, bool returns);
  void finish_op(Request* r);
  void complete(Request* r);
  Op* new_op(Request* r);
  char* take_slot();
  void give_slot(char* slot);
  Message* take_message();

  void start_transfer(Request* r, const detail::Command& c, bool write);
  void start_value(Request* r, const detail::Command& c, bool write);
  void start_signal(Request* r);
  void start_amo(Request* r, int pe, int segment, uint64_t offset, detail::AmoType type, AmoOp op,
                 uint64_t value, uint64_t cond);
  void serve(Message* m);
  void reject(const Message* m, const char* why);  // drops a message not from the job
  void before_issue(int pe);
  void answer(Request* r, uint64_t value);  // completes the producer's wait
  bool registered(const void* p, uint64_t bytes) const;

  Fabric* fabric_ = nullptr;
  ChannelHost& channel_;
  std::vector<FabricRegion> segments_;
  std::unique_ptr<LocalMemory> memory_;
  int my_pe_;
  ProxyOptions options_;
  std::function<void(const std::string&)> fail_;
  std::vector<uint64_t> segment_bytes_;  // what received messages are checked against
  AmoLimits limits_;
  uint64_t rejected_ = 0;

  char* arena_ = nullptr;
  size_t arena_bytes_ = 0;
  std::vector<Request*> free_requests_;
  std::unique_ptr<Op[]> ops_;  // owns free_ops_'s, in flight or not when the proxy stops
  std::vector<Op*> free_ops_;
  std::vector<char*> free_slots_;
  std::vector<Message*> free_messages_;
  std::vector<Op*> recv_ops_;

  size_t outstanding_ = 0;                // requests in flight
  std::vector<uint32_t> pe_outstanding_;  // by PE
  std::vector<uint8_t> pe_fenced_;        // by PE: later operations wait for earlier ones

  // One thread at a time runs the engine (the proxy thread or a waiter): the fabric is
  // single-threaded (FI_THREAD_DOMAIN) and so is the engine's bookkeeping.
  std::mutex engine_;
  // The engine's waits yield the core between empty looks: other threads (the provider's, or a
  // peer PE's) do the work they wait for.
  bool oversubscribed_ = false;
  std::atomic<uint64_t> waiter_drove_ns_{0};
  std::atomic<bool> stop_{false};
  std::atomic<std::thread::id> proxy_id_{};  // set by the proxy thread as it starts
  std::thread thread_;
};

}  // namespace gshmem
