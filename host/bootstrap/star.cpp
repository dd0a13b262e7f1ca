#include "host/bootstrap/star.hpp"

#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>

#include "gshmem/gshmem.hpp"
#include "host/base/log.hpp"

namespace gshmem::star {

namespace {

constexpr uint32_t kMagic = 0x67736831;  // "gsh1"
constexpr size_t kMaxPayload = size_t(1) << 30;
constexpr int kMaxNewcomers = 256;

double now_s() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

const char* coll_name(Coll c) {
  switch (c) {
    case Coll::Allgather:
      return "allgather";
    case Coll::Alltoall:
      return "alltoall";
    case Coll::Broadcast:
      return "broadcast";
    case Coll::Barrier:
      return "barrier";
    default:
      return "none";
  }
}

std::string rank_list(const std::vector<int>& ranks) {
  std::string s;
  for (size_t i = 0; i < ranks.size(); ++i) {
    if (i == 8 && ranks.size() > 10) {
      s += ",... (" + std::to_string(ranks.size()) + " in all)";
      break;
    }
    s += (i ? "," : "") + std::to_string(ranks[i]);
  }
  return s;
}

}  // namespace

bool send(int fd, Type type, int rank, Coll coll, int arg, uint32_t seq, const std::string& what,
          const void* data, size_t len) {
  Header h{};
  h.magic = kMagic;
  h.type = uint16_t(type);
  h.coll = uint8_t(coll);
  h.rank = rank;
  h.arg = arg;
  h.seq = seq;
  h.what_len = uint32_t(what.size());
  h.len = what.size() + len;
  std::string buf(reinterpret_cast<const char*>(&h), sizeof h);
  buf += what;
  if (len) buf.append(static_cast<const char*>(data), len);
  return sock::write_all(fd, buf.data(), buf.size());
}

bool header_ok(const Header& h, size_t max_len) {
  return h.magic == kMagic && h.type >= uint16_t(Type::Hello) && h.type <= uint16_t(Type::Bye) &&
         h.len <= max_len && h.what_len <= h.len;
}

bool recv(int fd, Message* m, size_t max_len) {
  if (!sock::read_all(fd, &m->h, sizeof m->h)) return false;
  if (!header_ok(m->h, max_len)) return false;
  std::string payload(m->h.len, '\0');
  if (m->h.len && !sock::read_all(fd, payload.data(), payload.size())) return false;
  m->what = payload.substr(0, m->h.what_len);
  m->data = payload.substr(m->h.what_len);
  return true;
}

Parse decode(const char* bytes, size_t n, size_t max_len, Message* m, size_t* used) {
  if (n < sizeof(Header)) return Parse::NeedMore;
  Header h;
  std::memcpy(&h, bytes, sizeof h);
  if (!header_ok(h, max_len)) return Parse::Bad;
  if (n - sizeof h < h.len) return Parse::NeedMore;
  m->h = h;
  m->what.assign(bytes + sizeof h, h.what_len);
  m->data.assign(bytes + sizeof h + h.what_len, size_t(h.len - h.what_len));
  *used = sizeof h + size_t(h.len);
  return Parse::Done;
}

// ---- Server ---------------------------------------------------------------------------------

Server::Server(int nranks, std::string secret, Hooks hooks, double hello_timeout_s)
    : nranks_(nranks),
      secret_(std::move(secret)),
      hooks_(std::move(hooks)),
      hello_timeout_s_(hello_timeout_s),
      clients_(size_t(nranks)) {
  pending_.data.resize(size_t(nranks));
}

void Server::add_connection(sock::Fd fd) {
  if (!sock::peer_is_same_user(fd.get())) {
    GSHMEM_WARN(BOOTSTRAP, "rejected a connection from another user");
    return;
  }
  // A flood of connections that never say hello must not use up the descriptors: the oldest
  // goes first. Every PE of the job connects once, so this bound never bites a real one.
  if (unauthenticated_.size() >= size_t(kMaxNewcomers)) {
    GSHMEM_WARN(BOOTSTRAP, "too many connections waiting to say hello; closing the oldest");
    unauthenticated_.erase(unauthenticated_.begin());
  }
  unauthenticated_.push_back({std::move(fd), "", now_s() + hello_timeout_s_});
}

void Server::expire_hellos() {
  double now = now_s();
  for (size_t i = 0; i < unauthenticated_.size();) {
    if (now < unauthenticated_[i].deadline) {
      ++i;
      continue;
    }
    GSHMEM_WARN(BOOTSTRAP, "closed a connection that did not say hello within %.0f s",
                hello_timeout_s_);
    unauthenticated_.erase(unauthenticated_.begin() + long(i));
  }
}

void Server::collect_pollfds(std::vector<pollfd>* out) const {
  for (const auto& n : unauthenticated_) out->push_back({n.fd.get(), POLLIN, 0});
  for (const auto& c : clients_) {
    if (c.fd) out->push_back({c.fd.get(), POLLIN, 0});
  }
}

void Server::handle(int fd) {
  for (size_t i = 0; i < unauthenticated_.size(); ++i) {
    if (unauthenticated_[i].fd.get() == fd) {
      on_readable(i);
      return;
    }
  }
  for (int r = 0; r < nranks_; ++r) {
    if (clients_[size_t(r)].fd.get() != fd) continue;
    Message m;
    if (!recv(fd, &m, kMaxPayload)) {
      drop(r);
      return;
    }
    on_message(r, m);
    return;
  }
}

void Server::on_readable(size_t i) {
  Newcomer& n = unauthenticated_[i];
  // Read no further than the hello's end: what follows it belongs to the PE's next messages.
  size_t want = sizeof(Header) - std::min(n.bytes.size(), sizeof(Header));
  if (!want) {
    Header h;
    std::memcpy(&h, n.bytes.data(), sizeof h);
    want = sizeof h + size_t(h.len) - n.bytes.size();
  }
  char buf[sizeof(Header) + kMaxHello];
  ssize_t got = ::recv(n.fd.get(), buf, std::min(want, sizeof buf), MSG_DONTWAIT);
  if (got < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)) return;
  if (got <= 0) {
    unauthenticated_.erase(unauthenticated_.begin() + long(i));
    return;
  }
  n.bytes.append(buf, size_t(got));
  Message m;
  size_t used = 0;
  Parse p = decode(n.bytes.data(), n.bytes.size(), kMaxHello, &m, &used);
  if (p == Parse::NeedMore) return;
  sock::Fd fd = std::move(n.fd);
  unauthenticated_.erase(unauthenticated_.begin() + long(i));
  if (p == Parse::Bad || Type(m.h.type) != Type::Hello) {
    GSHMEM_WARN(BOOTSTRAP, "rejected a connection that did not say hello");
    return;
  }
  on_hello(std::move(fd), m);
}

void Server::on_hello(sock::Fd fd, const Message& m) {
  int r = m.h.rank;
  if (!sock::secret_equal(m.data, secret_)) {
    GSHMEM_WARN(BOOTSTRAP, "rejected a connection claiming PE %d: wrong job secret", r);
    return;
  }
  if (r < 0 || r >= nranks_ || clients_[size_t(r)].ever) {
    GSHMEM_WARN(BOOTSTRAP, "rejected a connection claiming PE %d (out of range or taken)", r);
    return;
  }
  // The welcome is 32 bytes into an empty socket buffer: this cannot block.
  if (!send(fd.get(), Type::Welcome, r, Coll::None, 0, 0, "", nullptr, 0)) return;
  clients_[size_t(r)].fd = std::move(fd);
  clients_[size_t(r)].ever = true;
}

void Server::on_message(int rank, Message& m) {
  switch (Type(m.h.type)) {
    case Type::Collective:
      on_collective(rank, m);
      break;
    case Type::Abort:
      if (hooks_.on_abort) hooks_.on_abort(rank, m.h.arg, m.data);
      break;
    case Type::Bye:
      clients_[size_t(rank)].bye = true;
      break;
    default:
      GSHMEM_WARN(BOOTSTRAP, "PE %d sent an unexpected message type %d", rank, int(m.h.type));
      break;
  }
}

void Server::on_collective(int rank, Message& m) {
  Coll coll = Coll(m.h.coll);
  Pending& p = pending_;
  // complete() indexes by these: a PE that sends nonsense ends the job, it cannot crash the server.
  bool known = coll == Coll::Allgather || coll == Coll::Alltoall || coll == Coll::Broadcast ||
               coll == Coll::Barrier;
  if (!known || (coll == Coll::Broadcast && (m.h.arg < 0 || m.h.arg >= nranks_)) ||
      (coll == Coll::Alltoall && m.data.size() % size_t(nranks_) != 0)) {
    if (hooks_.on_error) {
      hooks_.on_error("PE " + std::to_string(rank) + " sent a malformed bootstrap collective (" +
                      coll_name(coll) + ", argument " + std::to_string(m.h.arg) + ", " +
                      std::to_string(m.data.size()) + " bytes)");
    }
    return;
  }
  if (!p.active) {
    p.active = true;
    p.seq = m.h.seq;
    p.coll = coll;
    p.arg = m.h.arg;
    p.len = m.data.size();
    p.what = m.what;
    p.arrived = 0;
    p.since = now_s();
  }
  bool size_matters = coll == Coll::Allgather || coll == Coll::Alltoall;
  if (m.h.seq != p.seq || coll != p.coll || m.h.arg != p.arg ||
      (size_matters && m.data.size() != p.len) || p.data[size_t(rank)]) {
    char why[512];
    std::snprintf(why, sizeof why,
                  "bootstrap collectives do not match: PE %d is in %s #%u (%s, %zu bytes) while "
                  "another PE is in %s #%u (%s, %zu bytes); the PEs made different collective "
                  "calls",
                  rank, coll_name(coll), m.h.seq, m.what.c_str(), m.data.size(), coll_name(p.coll),
                  p.seq, p.what.c_str(), p.len);
    if (hooks_.on_error) hooks_.on_error(why);
    return;
  }
  p.data[size_t(rank)] = std::move(m.data);
  if (++p.arrived == nranks_) complete();
}

void Server::complete() {
  Pending& p = pending_;
  size_t n = size_t(nranks_);
  std::string gathered;
  if (p.coll == Coll::Allgather) {
    for (auto& d : p.data) gathered += *d;
  }
  for (size_t r = 0; r < n; ++r) {
    std::string out;
    if (p.coll == Coll::Allgather) {
      out = gathered;
    } else if (p.coll == Coll::Alltoall) {
      size_t block = p.len / n;
      for (size_t s = 0; s < n; ++s) out += p.data[s]->substr(r * block, block);
    } else if (p.coll == Coll::Broadcast) {
      out = *p.data[size_t(p.arg)];
    }
    if (clients_[r].fd) {
      send(clients_[r].fd.get(), Type::Result, int(r), p.coll, p.arg, p.seq, "", out.data(),
           out.size());
    }
  }
  for (auto& d : p.data) d.reset();
  p.active = false;
  ++next_seq_;
}

void Server::drain(int rank) {
  while (clients_[size_t(rank)].fd) {
    pollfd p{clients_[size_t(rank)].fd.get(), POLLIN, 0};
    if (::poll(&p, 1, 0) <= 0) return;
    handle(p.fd);
  }
}

void Server::drop(int rank) {
  Client& c = clients_[size_t(rank)];
  c.fd.reset();
  if (hooks_.on_disconnect) hooks_.on_disconnect(rank, c.bye);
}

void Server::broadcast_failure(int code, const std::string& why) {
  for (auto& c : clients_) {
    if (c.fd) send(c.fd.get(), Type::Failure, -1, Coll::None, code, 0, "", why.data(), why.size());
  }
}

bool Server::all_closed() const {
  for (const auto& c : clients_) {
    if (!c.ever || c.fd) return false;
  }
  return true;
}

std::string Server::straggler_report(double seconds) const {
  const Pending& p = pending_;
  if (!p.active || now_s() - p.since < seconds) return "";
  std::vector<int> missing, waiting;
  for (int r = 0; r < nranks_; ++r) (p.data[size_t(r)] ? waiting : missing).push_back(r);
  char buf[512];
  std::snprintf(buf, sizeof buf,
                "PE%s %s %s not joined %s (bootstrap %s #%u) after %.0f s; PE%s %s waiting in it",
                missing.size() > 1 ? "s" : "", rank_list(missing).c_str(),
                missing.size() > 1 ? "have" : "has", p.what.c_str(), coll_name(p.coll), p.seq,
                now_s() - p.since, waiting.size() > 1 ? "s" : "", rank_list(waiting).c_str());
  return buf;
}

// ---- Client ---------------------------------------------------------------------------------

Client::Client(sock::Fd fd, int rank, int size, const std::string& secret, AbortState* abort,
               double timeout_s, std::string server, const char* name)
    : fd_(std::move(fd)),
      abort_(abort),
      timeout_s_(timeout_s),
      server_(std::move(server)),
      name_(name) {
  rank_ = rank;
  size_ = size;
  sock::set_io_timeout(fd_.get(), timeout_s_ > 0 ? timeout_s_ : 0);
  Message welcome;
  if (!send(fd_.get(), Type::Hello, rank, Coll::None, 0, 0, "", secret.data(), secret.size()) ||
      !recv(fd_.get(), &welcome, 4096) || Type(welcome.h.type) != Type::Welcome) {
    throw Error(GSHMEM_ERROR_BOOTSTRAP, "gshmem_init", "",
                "the " + server_ + " rejected PE " + std::to_string(rank) +
                    " or did not answer (is it the same job? wrong rank or secret?)");
  }
  sock::set_io_timeout(fd_.get(), 0);
  watcher_ = std::thread([this] { watch(); });
}

Client::~Client() {
  if (watcher_.joinable()) {
    closing_ = true;
    ::shutdown(fd_.get(), SHUT_RDWR);
    watcher_.join();
  }
}

void Client::watch() {
  for (;;) {
    Message m;
    bool ok = recv(fd_.get(), &m, kMaxPayload);
    std::unique_lock<std::mutex> lock(mutex_);
    if (!ok) {
      if (closing_) return;
      abort_->raise(1, "lost the connection to the " + server_ + " (it exited or was killed)");
      cv_.notify_all();
      break;
    }
    if (Type(m.h.type) == Type::Result) {
      result_ = std::move(m);
      cv_.notify_all();
      continue;
    }
    if (Type(m.h.type) == Type::Failure) {
      abort_->raise(m.h.arg, m.data);
      cv_.notify_all();
      break;
    }
  }
  // The job is ending. Waits that poll the abort flag end the process with a message; if this
  // PE is busy elsewhere, end it after a grace period so nothing is left running.
  for (int i = 0; i < 30; ++i) {
    if (closing_) return;
    ::usleep(100000);
  }
  abort_->exit_now("the PE was not waiting in gshmem");
}

std::string Client::collective(Coll coll, int arg, const void* data, size_t len, const char* what) {
  uint32_t seq = seq_++;
  {
    std::lock_guard<std::mutex> lock(send_mutex_);
    if (!send(fd_.get(), Type::Collective, rank_, coll, arg, seq, what, data, len)) {
      abort_->raise(1, "lost the connection to the " + server_ + " (it exited or was killed)");
    }
  }
  std::unique_lock<std::mutex> lock(mutex_);
  auto deadline = std::chrono::steady_clock::now() +
                  std::chrono::duration<double>(timeout_s_ > 0 ? timeout_s_ : 1e9);
  while (!result_ && !abort_->raised()) {
    if (cv_.wait_until(lock, deadline) == std::cv_status::timeout && !result_) {
      lock.unlock();
      char why[256];
      std::snprintf(why, sizeof why,
                    "%s: the other PEs did not all reach bootstrap %s #%u within %.0f s "
                    "(GSHMEM_BOOTSTRAP_TIMEOUT); a PE may have skipped a collective call",
                    what, coll_name(coll), seq, timeout_s_);
      log::error("%s", why);
      abort(1, why);
    }
  }
  if (!result_) {
    lock.unlock();
    abort_->exit_now(what);
  }
  std::string out = std::move(result_->data);
  result_.reset();
  return out;
}

void Client::allgather(const void* in, void* out, size_t bytes, const char* what) {
  std::string r = collective(Coll::Allgather, 0, in, bytes, what);
  if (r.size() != bytes * size_t(size_)) {
    abort(1, std::string(what) + ": bootstrap allgather returned a wrong size");
  }
  std::memcpy(out, r.data(), r.size());
}

void Client::alltoall(const void* in, void* out, size_t bytes, const char* what) {
  std::string r = collective(Coll::Alltoall, 0, in, bytes * size_t(size_), what);
  if (r.size() != bytes * size_t(size_)) {
    abort(1, std::string(what) + ": bootstrap alltoall returned a wrong size");
  }
  std::memcpy(out, r.data(), r.size());
}

void Client::broadcast(void* buf, size_t bytes, int root, const char* what) {
  std::string r = collective(Coll::Broadcast, root, rank_ == root ? buf : nullptr,
                             rank_ == root ? bytes : 0, what);
  if (r.size() != bytes) abort(1, std::string(what) + ": bootstrap broadcast size mismatch");
  std::memcpy(buf, r.data(), bytes);
}

void Client::barrier(const char* what) {
  collective(Coll::Barrier, 0, nullptr, 0, what);
}

void Client::abort(int code, const std::string& why) {
  {
    std::lock_guard<std::mutex> lock(send_mutex_);
    send(fd_.get(), Type::Abort, rank_, Coll::None, code, 0, "", why.data(), why.size());
  }
  // Give the server a moment to tell the others before this PE disappears.
  std::unique_lock<std::mutex> lock(mutex_);
  cv_.wait_for(lock, std::chrono::seconds(2), [&] { return abort_->raised(); });
  std::fflush(nullptr);
  ::_exit(code);
}

void Client::finalize() {
  {
    std::lock_guard<std::mutex> lock(send_mutex_);
    send(fd_.get(), Type::Bye, rank_, Coll::None, 0, 0, "", nullptr, 0);
  }
  closing_ = true;
  ::shutdown(fd_.get(), SHUT_RDWR);
  if (watcher_.joinable()) watcher_.join();
}

}  // namespace gshmem::star
