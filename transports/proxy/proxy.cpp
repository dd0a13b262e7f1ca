#include "transports/proxy/proxy.hpp"

#include <poll.h>
#include <sched.h>
#include <unistd.h>
#include <sys/mman.h>
#include <time.h>

#include <algorithm>
#include <cstdio>
#include <cstring>

#include "gshmem/gshmem.hpp"
#include "host/base/log.hpp"

namespace gshmem {

namespace {

constexpr size_t kRequests = 2048;
constexpr size_t kOps = 8192;
constexpr size_t kSlotBytes = 64 * 1024;
constexpr size_t kSlots = 64;
constexpr size_t kMessages = 1024;
constexpr size_t kRecvs = 256;

bool fetches(AmoOp op) {
  return op == AmoOp::Fetch || op == AmoOp::Swap || op == AmoOp::CompareSwap ||
         op == AmoOp::FetchAdd || op == AmoOp::FetchInc || op == AmoOp::FetchAnd ||
         op == AmoOp::FetchOr || op == AmoOp::FetchXor;
}

}  // namespace

// One command's worth of work. Lives in the registered arena: operand, compare and result are
// the buffers native atomics read and write.
struct Proxy::Request {
  uint64_t operand, compare, result;
  uint64_t ticket;  // the command's ticket: its producer may wait on the return slot
  bool returns;     // the producer waits, and has not been answered yet
  int pe;
  int pending;  // fabric operations and replies still to come
  bool has_signal, flushed, signal_sent;
  uint8_t data_segment;
  uint64_t data_end;  // put_signal: the offset just past its data (the flush reads before it)
  uint8_t sig_segment, sig_op;
  uint64_t sig_offset, sig_value;
  uint32_t index;
};

struct Proxy::Op {
  fi_context2 ctx;  // first: the provider's scratch, and how completions find the op
  Request* req;     // nullptr for the proxy's own messages
  enum Kind : uint8_t { Transfer, Send, Recv, Reply } kind;
  char* slot;     // bounce slot to give back
  void* copy_to;  // a read through a bounce slot lands here
  size_t copy_bytes;
  Message* msg;
  const char* what;  // the fabric call and its peer, for the message when it fails
  int peer;
};

namespace {
// Names an op's fabric call as it is posted.
template <class Op>
Op* named(Op* op, const char* what, int peer) {
  op->what = what;
  op->peer = peer;
  return op;
}
}  // namespace

// The wire format and its check live in amo_message.hpp.
struct Proxy::Message : AmoMessage {};

Proxy::Proxy(ChannelHost& channel, std::vector<FabricRegion> segments,
             std::unique_ptr<LocalMemory> memory, int my_pe, int n_pes, const ProxyOptions& options,
             std::function<void(const std::string&)> fail)
    : channel_(channel),
      segments_(std::move(segments)),
      memory_(std::move(memory)),
      my_pe_(my_pe),
      options_(options),
      fail_(std::move(fail)) {
  static_assert(sizeof(Message) == 64, "one message per cache line");
  for (const FabricRegion& r : segments_) segment_bytes_.push_back(r.size);
  limits_ = {options_.job_key, n_pes, segment_bytes_.data(), segment_bytes_.size(),
             uint32_t(kRequests)};
  pe_outstanding_.assign(size_t(n_pes), 0);
  pe_fenced_.assign(size_t(n_pes), 0);
  arena_bytes_ = kRequests * sizeof(Request) + kSlots * kSlotBytes + kMessages * sizeof(Message);
  arena_bytes_ = (arena_bytes_ + 4095) / 4096 * 4096;
  void* p =
      ::mmap(nullptr, arena_bytes_, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED) throw Error(GSHMEM_ERROR_OUT_OF_MEMORY, "gshmem_init", "", "proxy arena");
  // Private memory the NIC reads and writes: after a fork, the first write here would give this
  // process new pages (copy-on-write) behind the registration's back, on providers that pin pages
  // without the kernel's copy-on-fork. Not inherited, it stays this process's own; a forked
  // child never uses it (host/base/fork.hpp).
  ::madvise(p, arena_bytes_, MADV_DONTFORK);
  arena_ = static_cast<char*>(p);
  auto* requests = reinterpret_cast<Request*>(arena_);
  for (size_t i = 0; i < kRequests; ++i) {
    requests[i].index = uint32_t(i);
    free_requests_.push_back(&requests[kRequests - 1 - i]);
  }
  char* slots = arena_ + kRequests * sizeof(Request);
  for (size_t i = 0; i < kSlots; ++i) free_slots_.push_back(slots + i * kSlotBytes);
  auto* messages = reinterpret_cast<Message*>(slots + kSlots * kSlotBytes);
  for (size_t i = 0; i < kMessages; ++i) free_messages_.push_back(&messages[i]);
  ops_ = std::make_unique<Op[]>(kOps);
  for (size_t i = 0; i < kOps; ++i) free_ops_.push_back(&ops_[i]);
}

Proxy::~Proxy() {
  stop();
  for (Op* op : recv_ops_) delete op;
  if (arena_) ::munmap(arena_, arena_bytes_);
}

void Proxy::start(Fabric& fabric, bool oversubscribed) {
  fabric_ = &fabric;
  oversubscribed_ = oversubscribed;
  for (size_t i = 0; i < kRecvs; ++i) {
    Op* op = new Op{};
    op->kind = Op::Recv;
    op->msg = take_message();
    recv_ops_.push_back(op);
    fabric_->recv(op->msg, sizeof(Message), op);
  }
  thread_ = std::thread([this] { run(); });
}

void Proxy::stop() {
  stop_ = true;
  if (thread_.joinable()) thread_.join();
}

bool Proxy::drive_from_waiter(bool post_only) {
  // Kernels cannot run the engine; GSHMEM_PROXY_GPUVIEW's CPU producers do as they would.
  if (options_.gpu_producers) return false;
  // Only a thread that reads the network counts as a waiter the proxy leaves it to: a post
  // (after each push) reads no completion unless its command waits (a quiet, or no free
  // request), and a PE that posts now and then while it computes still needs the proxy to
  // progress what its peers send it (with manual progress, nobody else does).
  if (!post_only) waiter_drove_ns_.store(detail::now_ns(), std::memory_order_relaxed);
  if (!thread_.joinable()) return false;
  // A failed step throws to the waiter (which ends the job): the engine must not stay locked.
  std::unique_lock<std::mutex> lock(engine_, std::try_to_lock);
  if (!lock.owns_lock()) return false;
  // A post whose command waits (a quiet, a fence, no free request) reads the network for as long
  // as it waits: drive_until() stamps it, so the proxy thread stays asleep.
  return step(post_only);
}

bool Proxy::wait_for_news(uint64_t ns) {
  pollfd fd{-1, POLLIN, 0};
  {
    std::unique_lock<std::mutex> lock(engine_, std::try_to_lock);
    if (lock.owns_lock()) {
      if (fabric_->may_block()) {
        fd.fd = fabric_->wait_fd();
      } else if (fabric_->wait_fd() >= 0 || !options_.nap_ns) {
        return true;  // the fabric needs progress now, or the proxy polls: no naps
      }
      // GSHMEM_PROXY_IDLE=nap: no file descriptor, so the nap is a plain pause.
    }
  }
  timespec ts{0, long(ns)};
  return ::ppoll(&fd, 1, &ts, nullptr) > 0;
}

// ---- The engine's wait -----------------------------------------------------------------------

template <class Done>
void Proxy::drive_until(Done done, const char* what, int peer) {
  uint64_t quiet_since = 0;  // no completion since then
  while (!done()) {
    if (drive() > 0) {
      quiet_since = 0;
      continue;
    }
    // The peer this waits for, or the provider's own thread (sockets), may need the core: a wait
    // that found nothing gives it away before it looks again.
    if (oversubscribed_) sched_yield();
    uint64_t now = detail::now_ns();
    // A waiter that waits here (a quiet, a fence, no free resource) reads the network as long
    // as it waits: the proxy thread leaves the network to it (see loop()).
    if (!on_proxy_thread()) waiter_drove_ns_.store(now, std::memory_order_relaxed);
    if (!quiet_since) quiet_since = now;
    bool aborting = options_.abort && options_.abort->raised();
    double waited = double(now - quiet_since) / 1e9;
    if (!aborting && !(options_.timeout_s > 0 && waited > options_.timeout_s)) continue;
    if (peer < 0) {
      for (size_t pe = 0; pe < pe_outstanding_.size() && peer < 0; ++pe) {
        if (pe_outstanding_[pe]) peer = int(pe);
      }
    }
    std::string call = what;
    if (peer >= 0) call += " (waiting for PE " + std::to_string(peer) + ")";
    if (aborting) options_.abort->exit_now(call.c_str());
    char why[160];
    std::snprintf(why, sizeof why,
                  "no fabric completion for %.1f s (GSHMEM_TIMEOUT) with %llu operations "
                  "outstanding",
                  waited, static_cast<unsigned long long>(outstanding_));
    throw Error(GSHMEM_ERROR_TIMEOUT, "proxy", "", call + ": " + why);
  }
}

// ---- Resources ------------------------------------------------------------------------------

Proxy::Request* Proxy::new_request(int pe, uint64_t ticket, bool returns) {
  drive_until([&] { return !free_requests_.empty(); }, "the proxy (no free request)", pe);
  Request* r = free_requests_.back();
  free_requests_.pop_back();
  uint32_t index = r->index;
  *r = Request{};
  r->index = index;
  r->pe = pe;
  r->ticket = ticket;
  r->returns = returns;
  if (returns) channel_.hold(ticket);
  r->pending = 1;  // held while the request is being issued
  ++outstanding_;
  ++pe_outstanding_[size_t(pe)];
  return r;
}

Proxy::Op* Proxy::new_op(Request* r) {
  drive_until([&] { return !free_ops_.empty(); }, "the proxy (no free fabric operation)",
              r ? r->pe : -1);
  Op* op = free_ops_.back();
  free_ops_.pop_back();
  *op = Op{};
  op->req = r;
  if (r) ++r->pending;
  return op;
}

char* Proxy::take_slot() {
  drive_until([&] { return !free_slots_.empty(); }, "the proxy (no free bounce slot)", -1);
  char* s = free_slots_.back();
  free_slots_.pop_back();
  return s;
}

void Proxy::give_slot(char* slot) {
  free_slots_.push_back(slot);
}

Proxy::Message* Proxy::take_message() {
  drive_until([&] { return !free_messages_.empty(); }, "the proxy (no free message)", -1);
  Message* m = free_messages_.back();
  free_messages_.pop_back();
  return m;
}

void Proxy::answer(Request* r, uint64_t value) {
  if (!r->returns) return;
  channel_.give_return(r->ticket, value);
  r->returns = false;
}

// ---- Requests -------------------------------------------------------------------------------

void Proxy::finish_op(Request* r) {
  if (--r->pending > 0) return;
  if (r->has_signal && !r->signal_sent) {
    start_signal(r);
    return;
  }
  complete(r);
}

// Every data write of this put_signal has completed at the target: now the signal. Into GPU
// memory "completed" means the NIC has posted its writes, not that the GPU sees them: a read of
// the data's last bytes first makes them visible (a PCIe read does not pass posted writes).
void Proxy::start_signal(Request* r) {
  r->pending = 1;
  if (options_.flush_before_signal && !r->flushed && r->data_end) {
    r->flushed = true;
    uint64_t at = r->data_end >= sizeof r->compare ? r->data_end - sizeof r->compare : 0;
    Op* op = new_op(r);
    op->kind = Op::Transfer;
    fabric_->read(r->pe, r->data_segment, at, &r->compare,
                  std::min<uint64_t>(sizeof r->compare, r->data_end), named(op, "fi_read", r->pe));
    finish_op(r);
    return;
  }
  r->signal_sent = true;
  start_amo(r, r->pe, r->sig_segment, r->sig_offset, detail::AmoType::U64,
            r->sig_op == GSHMEM_SIGNAL_ADD ? AmoOp::Add : AmoOp::Set, r->sig_value, 0);
  finish_op(r);
}

void Proxy::complete(Request* r) {
  answer(r, r->result);
  --outstanding_;
  --pe_outstanding_[size_t(r->pe)];
  free_requests_.push_back(r);
}

void Proxy::before_issue(int pe) {
  if (!pe_fenced_[size_t(pe)]) return;
  drive_until([&] { return pe_outstanding_[size_t(pe)] == 0 || stop_; }, "gshmem_fence", pe);
  pe_fenced_[size_t(pe)] = 0;
}

bool Proxy::registered(const void* p, uint64_t bytes) const {
  auto a = reinterpret_cast<uintptr_t>(p);
  auto inside = [&](const char* base, uint64_t size) {
    auto b = reinterpret_cast<uintptr_t>(base);
    return a >= b && a + bytes <= b + size;
  };
  for (const auto& s : segments_) {
    if (s.size && inside(s.base, s.size)) return true;
  }
  return inside(arena_, arena_bytes_);
}

void Proxy::start_transfer(Request* r, const detail::Command& c, bool write) {
  char* local = memory_->view(c.local);
  bool host = memory_->host_accessible(local, c.bytes);
  // The provider reaches unregistered memory with host instructions (when it allows it at all).
  bool bounce = !registered(local, c.bytes) && (fabric_->needs_local_mr() || !host);
  // A blocking small put from host memory returns once its source is copied, not after a network
  // round trip (from device memory the copy would cost as much as the round trip).
  if (write && r->returns && c.bytes <= kSlotBytes && host) bounce = true;
  uint64_t chunk = bounce ? kSlotBytes : options_.chunk_bytes;
  for (uint64_t pos = 0; pos < c.bytes; pos += chunk) {
    uint64_t n = std::min<uint64_t>(chunk, c.bytes - pos);
    Op* op = new_op(r);
    op->kind = Op::Transfer;
    char* buf = local + pos;
    if (bounce) {
      op->slot = take_slot();
      if (write) {
        memory_->to_host(op->slot, buf, n);
      } else {
        op->copy_to = buf;
        op->copy_bytes = n;
      }
      buf = op->slot;
    }
    void* at = memory_->fabric_address(buf);
    if (write) {
      fabric_->write(c.pe, c.segment, c.offset + pos, at, n, named(op, "fi_write", c.pe));
    } else {
      fabric_->read(c.pe, c.segment, c.offset + pos, at, n, named(op, "fi_read", c.pe));
    }
  }
  if (write && bounce) answer(r, 0);  // the source has been copied: the caller may reuse it
}

// p and g: the element goes from or to the request's own registered words.
void Proxy::start_value(Request* r, const detail::Command& c, bool write) {
  if (c.bytes == 0 || c.bytes > sizeof(uint64_t)) {
    fail_("proxy: a p/g command of " + std::to_string(c.bytes) + " bytes");
    return;
  }
  Op* op = new_op(r);
  op->kind = Op::Transfer;
  if (write) {
    r->operand = c.value;
    fabric_->write(c.pe, c.segment, c.offset, &r->operand, c.bytes, named(op, "fi_write", c.pe));
  } else {
    r->result = 0;  // complete() answers with it
    fabric_->read(c.pe, c.segment, c.offset, &r->result, c.bytes, named(op, "fi_read", c.pe));
  }
}

void Proxy::start_amo(Request* r, int pe, int segment, uint64_t offset, detail::AmoType type,
                      AmoOp op, uint64_t value, uint64_t cond) {
  if (!options_.emulate_atomics && fabric_->native_atomic(type, op)) {
    r->operand = value;
    r->compare = cond;
    Op* o = new_op(r);
    o->kind = Op::Transfer;
    fabric_->atomic(pe, segment, offset, type, op, &r->operand,
                    op == AmoOp::CompareSwap ? &r->compare : nullptr,
                    fetches(op) ? &r->result : nullptr, named(o, "fi_atomic", pe));
    return;
  }
  Message* m = take_message();
  *m = Message{};
  m->kind = kAmoRequest;
  m->amo_op = uint8_t(op);
  m->amo_type = uint8_t(type);
  m->segment = uint8_t(segment);
  m->from = my_pe_;
  m->key = options_.job_key;
  m->cookie = r->index;
  m->offset = offset;
  m->value = value;
  m->cond = cond;
  Op* o = new_op(r);
  o->kind = Op::Send;
  o->msg = m;
  ++r->pending;  // the reply
  fabric_->send(pe, m, sizeof *m, named(o, "fi_send (atomic request)", pe));
}

void Proxy::serve(Message* m) {
  const char* why = "";
  AmoVerdict verdict = check_amo_message(m, sizeof *m, limits_, &why);
  if (verdict == AmoVerdict::Reject) {
    reject(m, why);
    return;
  }
  if (verdict == AmoVerdict::Reply) {
    auto* requests = reinterpret_cast<Request*>(arena_);
    Request* r = &requests[m->cookie];
    r->result = m->result;
    finish_op(r);
    return;
  }
  uint64_t old = memory_->atomic(segments_[m->segment].base + m->offset,
                                 detail::AmoType(m->amo_type), AmoOp(m->amo_op), m->value, m->cond);
  Message* reply = take_message();
  *reply = Message{};
  reply->kind = kAmoReply;
  reply->cookie = m->cookie;
  reply->result = old;
  reply->from = my_pe_;
  reply->key = options_.job_key;
  Op* o = new_op(nullptr);
  o->kind = Op::Reply;
  o->msg = reply;
  fabric_->send(m->from, reply, sizeof *reply, named(o, "fi_send (atomic reply)", m->from));
}

void Proxy::reject(const Message* m, const char* why) {
  // Whoever can reach the endpoint can send: such a message is dropped, never the job.
  if (rejected_++ % 1000 == 0) {
    GSHMEM_WARN(PROXY, "dropped %s (claiming PE %d; %llu dropped so far)", why, int(m->from),
                static_cast<unsigned long long>(rejected_));
  }
}

void Proxy::on_done(void* ctx, bool ok, const std::string& why) {
  Op* op = static_cast<Op*>(ctx);
  if (!ok && op->kind == Op::Recv) {
    // A receive fails when a message did not fit (longer than ours: not one of the job's).
    reject(op->msg, ("a message the receive could not take (" + why + ")").c_str());
    *op->msg = Message{};
    fabric_->recv(op->msg, sizeof(Message), op);
    return;
  }
  if (!ok) {
    fail_("fabric operation failed: " + std::string(op->what ? op->what : "?") + " to PE " +
          std::to_string(op->peer) + ": " + why);
    return;
  }
  switch (op->kind) {
    case Op::Recv:
      serve(op->msg);
      // A shorter message would leave the rest of this one in the buffer: start from zeros,
      // which no check accepts.
      *op->msg = Message{};
      fabric_->recv(op->msg, sizeof(Message), op);
      return;
    case Op::Reply:
      free_messages_.push_back(op->msg);
      break;
    case Op::Send:
      free_messages_.push_back(op->msg);
      break;
    case Op::Transfer:
      if (op->copy_to) memory_->from_host(op->copy_to, op->slot, op->copy_bytes);
      if (op->slot) give_slot(op->slot);
      break;
  }
  Request* r = op->req;
  free_ops_.push_back(op);
  if (r) finish_op(r);
}

// ---- The loop -------------------------------------------------------------------------------

int Proxy::drive() {
  return fabric_->progress(
      [this](void* ctx, bool ok, const std::string& why) { on_done(ctx, ok, why); });
}

void Proxy::execute(const detail::Command& c, uint64_t ticket) {
  using detail::CmdOp;
  switch (c.op) {
    case CmdOp::Fence:
      for (size_t pe = 0; pe < pe_outstanding_.size(); ++pe) {
        if (pe_outstanding_[pe]) pe_fenced_[pe] = 1;
      }
      return;
    case CmdOp::Quiet:
      drive_until([&] { return outstanding_ == 0 || stop_; }, "gshmem_quiet", -1);
      channel_.mark_quiet_done(ticket + 1);
      channel_.give_return(ticket, 0);
      return;
    default:
      break;
  }
  if (c.pe < 0 || size_t(c.pe) >= pe_outstanding_.size()) {
    fail_("proxy: a command for PE " + std::to_string(c.pe) + " is out of range");
    return;
  }
  before_issue(c.pe);
  Request* r = new_request(c.pe, ticket, c.returns != 0);
  switch (c.op) {
    case CmdOp::Put:
      start_transfer(r, c, true);
      break;
    case CmdOp::Get:
      start_transfer(r, c, false);
      break;
    case CmdOp::PutValue:
      start_value(r, c, true);
      break;
    case CmdOp::GetValue:
      start_value(r, c, false);
      break;
    case CmdOp::PutSignal:
      r->has_signal = true;
      r->data_segment = c.segment;
      r->data_end = c.bytes ? c.offset + c.bytes : 0;
      r->sig_segment = c.amo_type;
      r->sig_op = c.amo_op;
      r->sig_offset = c.cond;
      r->sig_value = c.value;
      start_transfer(r, c, true);
      break;
    case CmdOp::Amo:
      start_amo(r, c.pe, c.segment, c.offset, detail::AmoType(c.amo_type), AmoOp(c.amo_op), c.value,
                c.cond);
      break;
    case CmdOp::Signal:
      start_amo(r, c.pe, c.segment, c.offset, detail::AmoType::U64,
                c.amo_op == GSHMEM_SIGNAL_ADD ? AmoOp::Add : AmoOp::Set, c.value, 0);
      break;
    default:
      fail_("proxy: unknown command");
      break;
  }
  finish_op(r);  // drops the hold taken by new_request
}

// A host thread that waits on this command's return runs the engine itself while it waits
// (wait_for): the proxy thread leaves it that command and those behind it. Taken by the proxy
// thread, a quiet of a window of large puts ran there for milliseconds while its producer spun
// beside it (put_bw 1 MiB on tcp, 2 PEs on 2 cores: 4.4-6.6 GB/s against 6.7-7.5 for raw
// libfabric). Kernels run no engine: their commands are all the proxy thread's.
bool Proxy::left_to_waiter(const detail::Command& c) const {
  return c.returns && !options_.gpu_producers && on_proxy_thread();
}

bool Proxy::on_proxy_thread() const {
  return proxy_id_.load(std::memory_order_relaxed) == std::this_thread::get_id();
}

bool Proxy::step(bool post_only) {
  int work = 0;
  while (work < 64) {
    const detail::Command* slot = channel_.peek();
    if (!slot || left_to_waiter(*slot)) break;
    detail::Command c = *slot;
    // Taken off the ring only after execute(): until its request exists, the slot must not be
    // handed back (its return may still be pending). A command whose execution fails leaves the
    // ring with its error: where errors throw to the caller (GSHMEMX_ERROR_THROW) its producer
    // has the exception and waits no more, and nothing queued behind it may wait for it.
    try {
      execute(c, channel_.ticket());
    } catch (...) {
      channel_.pop();
      throw;
    }
    channel_.pop();
    ++work;
  }
  if (!post_only) work += drive();
  channel_.release_taken();
  return work > 0;
}

void Proxy::run() {
  proxy_id_.store(std::this_thread::get_id(), std::memory_order_relaxed);
  // A transport error here has no caller to return to: it ends the job, naming the operation.
  try {
    loop();
  } catch (const Error& e) {
    fail_(e.what());
  }
}

void Proxy::loop() {
  uint32_t idle = 0;  // looks that found nothing to do
  uint32_t naps = 0;  // of those, the ones that napped (GSHMEM_PROXY_IDLE=nap)
  while (!stop_) {
    // Waiters are driving the engine: stay out of their way (with one core per PE, a spinning
    // proxy thread takes half of it from the waiter, or from the peer it waits for).
    if (waiter_recent()) {
      sleep();
      naps = 0;  // the PE was busy moments ago: the next naps start short
      continue;
    }
    bool work = false;
    if (std::unique_lock<std::mutex> lock(engine_, std::try_to_lock); lock.owns_lock()) {
      work = step();
    } else if (!options_.gpu_producers) {
      // A thread of this PE is in the engine (a waiter, or a producer posting: a 1 MiB write
      // on tcp is a sendmsg of about 150 us): check back later, as while waiters drive. Looking
      // again after each nap woke this thread 3000-6000 times a second during windows of large
      // puts, each time taking the core from a PE (put_bw 1 MiB on tcp, 2 PEs on 2 cores). Where
      // kernels produce, the ring is polled without pause (a host thread in wait_for_news holds
      // the engine only for a moment).
      sleep();
      naps = 0;
      continue;
    }
    if (work) {
      idle = 0;
      naps = 0;
      // With more busy threads than cores, the peer this work waits for may need our core.
      if (oversubscribed_) sched_yield();
      continue;
    }
    if (++idle < 256 && !oversubscribed_) {
      detail::spin_pause();
      continue;
    }
    if (options_.nap_ns) {
      nap(naps++);
      continue;
    }
    if (options_.poll_idle) {
      // No doorbell from kernels (a command is seen only by polling, within microseconds), or no
      // file descriptor to sleep on (GSHMEM_PROXY_IDLE=poll). With more busy threads than cores
      // the poll yields between rounds.
      if (oversubscribed_) {
        sched_yield();
      } else {
        detail::spin_pause();
      }
      continue;
    }
    sleep();
    idle = 0;
  }
}

bool Proxy::waiter_recent() const {
  return waiter_left_ns() > 0;
}

uint64_t Proxy::waiter_left_ns() const {
  constexpr uint64_t kWaiterRecent = 2000000;  // 2 ms
  const uint64_t since = detail::now_ns() - waiter_drove_ns_.load(std::memory_order_relaxed);
  return since < kWaiterRecent ? kWaiterRecent - since : 0;
}

// Background progress for when no thread of this PE is inside gshmem (the PE computes, or its
// peers need it to progress): sleeps on the completion queue's file descriptor until the network
// has news. While waiters drive the engine, or another thread of the PE holds it (a producer
// posting), it leaves the queue to them and checks back when the last waiter's step would no
// longer count as recent, or in a millisecond (one wake-up per 2 ms while waiters drive: a
// wake-up takes the core from the waiter, or from the peer it waits for, where each PE has one).
// Commands need no wake-up: host producers issue their own (see channel_push), and one queued
// while the engine was taken is taken here at once. A polling proxy (poll_idle: GSHMEM_PROXY_IDLE=
// poll or nap) comes here only while its PE holds or drives the engine, and then only pauses.
void Proxy::sleep() {
  pollfd fd{-1, POLLIN, 0};
  int timeout_ms = 1;
  if (const uint64_t left = waiter_left_ns()) {
    timeout_ms = int((left + 999999) / 1000000);
  } else {
    std::unique_lock<std::mutex> lock(engine_, std::try_to_lock);
    if (lock.owns_lock()) {
      const detail::Command* next = channel_.peek();
      if (next && !left_to_waiter(*next)) return;  // queued while the engine was taken: now
      if (!next) {
        if (!fabric_->may_block()) return;  // the fabric needs progress now
        fd.fd = fabric_->wait_fd();
        timeout_ms = 100;
      }
    }
  }
  ::poll(&fd, 1, timeout_ms);
}

// GSHMEM_PROXY_IDLE=nap: no file descriptor for the provider to signal on every completion, and
// no busy thread either. The pause doubles from 1 us with each nap (the kernel's timer slack,
// 50 us for an ordinary thread, makes the short ones 50-80 us), up to nap_ns; after 256 naps
// (tens of milliseconds) up to ten times that, so that a PE that computes for long costs about
// what a sleeping proxy does. Work, or a waiter of the PE, starts it over.
void Proxy::nap(uint32_t naps) {
  constexpr uint32_t kLongIdle = 256;
  const uint64_t most = naps < kLongIdle ? options_.nap_ns : 10 * options_.nap_ns;
  const uint64_t ns = std::min<uint64_t>(most, uint64_t(1000) << std::min<uint32_t>(naps, 30));
  timespec ts{long(ns / 1000000000), long(ns % 1000000000)};
  ::nanosleep(&ts, nullptr);
}

}  // namespace gshmem
