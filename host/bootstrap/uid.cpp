// The TCP star bootstrap: rank 0 listens on TCP and runs the star server on a thread; every rank,
// rank 0 included, connects as a client. The unique-id bootstrap (torchrun and the like) finds
// rank 0's address in a unique id that rank 0 made and shared out of band, or in
// GSHMEM_BOOTSTRAP_UID_ADDR; the PMIx bootstrap exchanges it through PMIx once.
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <thread>

#include "gshmem/gshmem.hpp"
#include "host/bootstrap/bootstrap.hpp"
#include "host/bootstrap/star.hpp"
#include "host/bootstrap/uid_format.hpp"
#include "host/base/env.hpp"
#include "host/base/log.hpp"

namespace gshmem {

namespace {

using UidInfo = uid::Info;

// A listener that gshmemx_get_uniqueid opened, kept until this process's init uses it.
std::mutex g_mutex;
sock::Fd g_listener;
std::string g_listener_secret;

class UidServer {
 public:
  UidServer(sock::Fd listener, int nranks, std::string secret)
      : listener_(std::move(listener)),
        server_(nranks, std::move(secret),
                {[this](int rank, int code, const std::string& why) {
                   server_.broadcast_failure(code, why);
                   (void)rank;
                 },
                 [this](int rank, bool bye) {
                   if (!bye) {
                     server_.broadcast_failure(
                         1, "PE " + std::to_string(rank) +
                                " lost its bootstrap connection (it exited or was killed)");
                   }
                 },
                 [this](const std::string& why) { server_.broadcast_failure(1, why); }},
                Env::get().seconds("GSHMEM_BOOTSTRAP_HELLO_TIMEOUT")) {
    thread_ = std::thread([this] { run(); });
  }
  ~UidServer() {
    stop_ = true;
    if (thread_.joinable()) thread_.join();
  }
  // Lets the other ranks say goodbye before rank 0 takes the server down.
  void wait_closed(double seconds) {
    auto end = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
    while (!done_ && std::chrono::steady_clock::now() < end) ::usleep(2000);
  }

 private:
  void run() {
    std::vector<pollfd> fds;
    while (!stop_ && !done_) {
      fds.clear();
      fds.push_back({listener_.get(), POLLIN, 0});
      server_.collect_pollfds(&fds);
      server_.expire_hellos();
      if (::poll(fds.data(), fds.size(), 100) <= 0) continue;
      if (fds[0].revents & POLLIN) {
        sock::Fd conn(::accept4(listener_.get(), nullptr, nullptr, SOCK_CLOEXEC));
        if (conn) server_.add_connection(std::move(conn));
      }
      for (size_t i = 1; i < fds.size(); ++i) {
        if (fds[i].revents) server_.handle(fds[i].fd);
      }
      if (server_.all_closed()) done_ = true;
    }
  }

  sock::Fd listener_;
  star::Server server_;
  std::atomic<bool> stop_{false};
  std::atomic<bool> done_{false};
  std::thread thread_;
};

class TcpStarBootstrap : public Bootstrap {
 public:
  TcpStarBootstrap(std::unique_ptr<UidServer> server, std::unique_ptr<star::Client> client,
                   const char* name)
      : server_(std::move(server)), client_(std::move(client)), name_(name) {
    rank_ = client_->rank();
    size_ = client_->size();
  }
  const char* name() const override { return name_; }
  void allgather(const void* in, void* out, size_t bytes, const char* what) override {
    client_->allgather(in, out, bytes, what);
  }
  void alltoall(const void* in, void* out, size_t bytes, const char* what) override {
    client_->alltoall(in, out, bytes, what);
  }
  void broadcast(void* buf, size_t bytes, int root, const char* what) override {
    client_->broadcast(buf, bytes, root, what);
  }
  void barrier(const char* what) override { client_->barrier(what); }
  [[noreturn]] void abort(int code, const std::string& why) override {
    client_->abort(code, why);
    __builtin_unreachable();
  }
  void finalize() override {
    client_->finalize();
    if (server_) server_->wait_closed(10);
  }

 private:
  std::unique_ptr<UidServer> server_;
  std::unique_ptr<star::Client> client_;
  const char* name_;
};

int env_int(const char* name, int fallback) {
  const char* v = std::getenv(name);
  return v && *v ? std::atoi(v) : fallback;
}

}  // namespace

bool torchrun_environment() {
  for (const char* name : {"MASTER_ADDR", "MASTER_PORT", "RANK", "WORLD_SIZE"}) {
    const char* v = std::getenv(name);
    if (!v || !*v) return false;
  }
  return true;
}

// torchrun's agent (or the rank-0 worker's c10d store) holds MASTER_PORT itself, so rank 0
// listens on the port above it. GSHMEM_BOOTSTRAP_UID_ADDR overrides this.
std::string torchrun_address() {
  if (!torchrun_environment()) return "";
  int port = std::atoi(std::getenv("MASTER_PORT"));
  if (port <= 0 || port >= 65535) return "";
  return std::string(std::getenv("MASTER_ADDR")) + ":" + std::to_string(port + 1);
}

int make_uniqueid(gshmemx_uniqueid_t* uid) {
  const Env& env = Env::get();
  std::string host;
  int port = 0;
  if (!sock::split_host_port(env.str("GSHMEM_BOOTSTRAP_UID_ADDR"), &host, &port)) {
    host = sock::interface_address(env.str("GSHMEM_BOOTSTRAP_UID_IFNAME"));
    port = 0;
  }
  if (host.empty()) {
    log::error(
        "gshmemx_get_uniqueid: interface %s (GSHMEM_BOOTSTRAP_UID_IFNAME) has no IPv4 "
        "address",
        env.str("GSHMEM_BOOTSTRAP_UID_IFNAME").c_str());
    return GSHMEM_ERROR_INVALID_ARGUMENT;
  }
  sock::Fd listener = sock::listen_tcp(host, port, 1024);
  if (!listener) {
    log::error("gshmemx_get_uniqueid: cannot listen on %s:%d: %s", host.c_str(), port,
               strerror(errno));
    return GSHMEM_ERROR_BOOTSTRAP;
  }
  std::string secret = sock::random_hex(16);
  std::string text = uid::encode({host, sock::local_port(listener.get()), secret});
  std::memset(uid, 0, sizeof *uid);
  std::memcpy(uid->internal, text.data(), std::min(text.size(), sizeof uid->internal - 1));
  std::lock_guard<std::mutex> lock(g_mutex);
  g_listener = std::move(listener);
  g_listener_secret = secret;
  return GSHMEM_SUCCESS;
}

std::unique_ptr<Bootstrap> make_uid_bootstrap(const BootstrapOptions& o) {
  const Env& env = Env::get();
  int rank, size;
  UidInfo info;
  bool from_uid = o.attr && o.attr->has_uid_args;
  if (from_uid) {
    rank = o.attr->uid_args.rank;
    size = o.attr->uid_args.nranks;
    const gshmemx_uniqueid_t& u = o.attr->uid_args.uid;
    if (!uid::decode(u.internal, sizeof u.internal, &info)) {
      throw Error(GSHMEM_ERROR_INVALID_ARGUMENT, "gshmemx_init_attr", "attr->uid_args.uid",
                  "not a unique id made by gshmemx_get_uniqueid");
    }
  } else {
    rank = env.is_set("GSHMEM_RANK") ? int(env.integer("GSHMEM_RANK")) : env_int("RANK", -1);
    size =
        env.is_set("GSHMEM_NRANKS") ? int(env.integer("GSHMEM_NRANKS")) : env_int("WORLD_SIZE", -1);
    std::string addr = env.str("GSHMEM_BOOTSTRAP_UID_ADDR");
    if (addr.empty()) addr = torchrun_address();
    if (!sock::split_host_port(addr, &info.host, &info.port)) {
      throw Error(GSHMEM_ERROR_BOOTSTRAP, "gshmem_init", "GSHMEM_BOOTSTRAP_UID_ADDR",
                  "the unique-id bootstrap needs GSHMEM_BOOTSTRAP_UID_ADDR=host:port (got \"" +
                      env.str("GSHMEM_BOOTSTRAP_UID_ADDR") +
                      "\"), torchrun's MASTER_ADDR and MASTER_PORT, or gshmemx_init_attr with a "
                      "unique id");
    }
    // Without a unique id there is no random secret unless the job brings one: anyone who can
    // reach the port could otherwise join by knowing the address and the size.
    info.secret = "addr:" + addr + ":" + std::to_string(size);
    const std::string& job_secret = env.str("GSHMEM_BOOTSTRAP_UID_SECRET");
    if (!job_secret.empty()) info.secret += ":" + job_secret;
  }
  if (size <= 0 || rank < 0 || rank >= size) {
    throw Error(GSHMEM_ERROR_INVALID_ARGUMENT, "gshmem_init", "rank/nranks",
                "the unique-id bootstrap got rank " + std::to_string(rank) + " of " +
                    std::to_string(size) +
                    " (set GSHMEM_RANK and GSHMEM_NRANKS, RANK and WORLD_SIZE, or the attr)");
  }
  sock::Fd listener;
  if (rank == 0 && from_uid) {
    std::lock_guard<std::mutex> lock(g_mutex);
    if (g_listener && g_listener_secret == info.secret) listener = std::move(g_listener);
  }
  return make_tcp_star(rank, size, info.host, info.port, info.secret, std::move(listener), o,
                       "uid");
}

std::unique_ptr<Bootstrap> make_tcp_star(int rank, int size, const std::string& host, int port,
                                         const std::string& secret, sock::Fd listener,
                                         const BootstrapOptions& o, const char* name) {
  std::unique_ptr<UidServer> server;
  if (rank == 0) {
    if (!listener) listener = sock::listen_tcp(host, port, 1024);
    if (!listener) {
      throw Error(
          GSHMEM_ERROR_BOOTSTRAP, "gshmem_init", "GSHMEM_BOOTSTRAP_UID_ADDR",
          "rank 0 cannot listen on " + host + ":" + std::to_string(port) + ": " + strerror(errno));
    }
    server = std::make_unique<UidServer>(std::move(listener), size, secret);
  }
  auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(o.timeout_s);
  sock::Fd fd;
  while (!(fd = sock::connect_tcp(host, port))) {
    if (std::chrono::steady_clock::now() > deadline) {
      throw Error(GSHMEM_ERROR_BOOTSTRAP, "gshmem_init", "GSHMEM_BOOTSTRAP_UID_ADDR",
                  "rank " + std::to_string(rank) + " could not reach rank 0 at " + host + ":" +
                      std::to_string(port) + " within GSHMEM_BOOTSTRAP_TIMEOUT");
    }
    ::usleep(50000);
  }
  GSHMEM_INFO(BOOTSTRAP, "%s bootstrap: rank %d of %d via %s:%d", name, rank, size, host.c_str(),
              port);
  auto client = std::make_unique<star::Client>(std::move(fd), rank, size, secret, o.abort,
                                               o.timeout_s, "bootstrap server on rank 0", name);
  return std::make_unique<TcpStarBootstrap>(std::move(server), std::move(client), name);
}

}  // namespace gshmem
