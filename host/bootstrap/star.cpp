#include "host/bootstrap/star.hpp"

#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstring>

#include "gshmem/gshmem.hpp"
#include "host/base/log.hpp"

namespace gshmem::star {

namespace {

constexpr uint32_t kMagic = 0x67736831;  // "gsh1"
constexpr size_t kMaxPayload = size_t(1) << 30;

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

bool recv(int fd, Message* m, size_t max_len) {
  if (!sock::read_all(fd, &m->h, sizeof m->h)) return false;
  if (m->h.magic != kMagic || m->h.len > max_len || m->h.what_len > m->h.len) return false;
  std::string payload(m->h.len, '\0');
  if (m->h.len && !sock::read_all(fd, payload.data(), payload.size())) return false;
  m->what = payload.substr(0, m->h.what_len);
  m->data = payload.substr(m->h.what_len);
  return true;
}

// ---- Server ---------------------------------------------------------------------------------

Server::Server(int nranks, std::string secret, Hooks hooks)
    : nranks_(nranks),
      secret_(std::move(secret)),
      hooks_(std::move(hooks)),
      clients_(size_t(nranks)) {
  pending_.data.resize(size_t(nranks));
}

void Server::add_connection(sock::Fd fd) {
  sock::set_io_timeout(fd.get(), 10);
  unauthenticated_.push_back(std::move(fd));
}

void Server::collect_pollfds(std::vector<pollfd>* out) const {
  for (const auto& fd : unauthenticated_) out->push_back({fd.get(), POLLIN, 0});
  for (const auto& c : clients_) {
    if (c.fd) out->push_back({c.fd.get(), POLLIN, 0});
  }
}

void Server::handle(int fd) {
  for (size_t i = 0; i < unauthenticated_.size(); ++i) {
    if (unauthenticated_[i].get() == fd) {
      sock::Fd conn = std::move(unauthenticated_[i]);
      unauthenticated_.erase(unauthenticated_.begin() + long(i));
      on_hello(std::move(conn));
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

void Server::on_hello(sock::Fd fd) {
  Message m;
  if (!recv(fd.get(), &m, 4096) || Type(m.h.type) != Type::Hello) {
    GSHMEM_WARN(BOOTSTRAP, "rejected a connection that did not say hello");
    return;
  }
  int r = m.h.rank;
  if (m.data != secret_) {
    GSHMEM_WARN(BOOTSTRAP, "rejected a connection claiming PE %d: wrong job secret", r);
    return;
  }
  if (r < 0 || r >= nranks_ || clients_[size_t(r)].ever) {
    GSHMEM_WARN(BOOTSTRAP, "rejected a connection claiming PE %d (out of range or taken)", r);
    return;
  }
  if (!send(fd.get(), Type::Welcome, r, Coll::None, 0, 0, "", nullptr, 0)) return;
  // Collective payloads can be large and the PE may be slow to read; no timeout from here on.
  sock::set_io_timeout(fd.get(), 0);
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
