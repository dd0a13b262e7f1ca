// The star protocol: every PE holds one stream connection to a server that runs the bootstrap
// collectives (the server gathers one message from every PE, then answers each). gshmemrun runs
// the server in its own process over an abstract Unix socket; the unique-id bootstrap runs it on
// a thread of rank 0 over TCP. The same connection carries aborts and failure notices, so a dead
// PE ends the job with a message instead of a hang.
#pragma once

#include <poll.h>

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "host/bootstrap/bootstrap.hpp"
#include "host/base/sock.hpp"

namespace gshmem::star {

enum class Type : uint16_t { Hello = 1, Welcome, Collective, Result, Abort, Failure, Bye };
enum class Coll : uint8_t { None = 0, Allgather, Alltoall, Broadcast, Barrier };

struct Header {
  uint32_t magic;
  uint16_t type;
  uint8_t coll;
  uint8_t reserved;
  int32_t rank;
  int32_t arg;  // Broadcast: root. Abort, Failure: exit code.
  uint32_t seq;
  uint32_t what_len;  // the payload starts with this many bytes naming the call
  uint64_t len;       // payload bytes, what included
};
static_assert(sizeof(Header) == 32);

struct Message {
  Header h{};
  std::string what;
  std::string data;
};

// The largest hello: a secret is 32 characters; anything near this is not a PE of the job.
constexpr size_t kMaxHello = 4096;

bool send(int fd, Type type, int rank, Coll coll, int arg, uint32_t seq, const std::string& what,
          const void* data, size_t len);
// Whether a header can start a message: the magic, a known type, what_len within len, and len
// at most max_len (so a huge length field is refused before anything is read for it).
bool header_ok(const Header& h, size_t max_len);
// False on EOF, error, or a header that is not header_ok.
bool recv(int fd, Message* m, size_t max_len);

// The same wire format from bytes in hand: Done parses the message at the front of `bytes`
// into *m and sets *used; NeedMore when the bytes end before it does; Bad when header_ok fails.
enum class Parse { NeedMore, Bad, Done };
Parse decode(const char* bytes, size_t n, size_t max_len, Message* m, size_t* used);

class Server {
 public:
  struct Hooks {
    std::function<void(int rank, int code, const std::string& why)> on_abort;
    std::function<void(int rank, bool said_bye)> on_disconnect;
    std::function<void(const std::string& why)> on_error;  // mismatched collectives
  };

  // A connection that has not said a complete, correct hello within hello_timeout_s is closed.
  Server(int nranks, std::string secret, Hooks hooks, double hello_timeout_s = 5);

  // Takes an accepted connection. Its hello is read piece by piece as it arrives, never
  // blocking the server, so a client that sends part of one, or nothing, delays no one.
  // A Unix-socket peer of another user is closed at once.
  void add_connection(sock::Fd fd);
  // Closes connections whose hello is overdue; call every poll round.
  void expire_hellos();
  void collect_pollfds(std::vector<pollfd>* out) const;
  // Call for every fd of collect_pollfds that poll reported.
  void handle(int fd);
  // Reads whatever a PE sent before it exited (its goodbye may still be queued).
  void drain(int rank);
  // Tells every connected PE the job is ending: they print `why` and exit with `code`.
  void broadcast_failure(int code, const std::string& why);

  bool said_bye(int rank) const { return clients_[size_t(rank)].bye; }
  bool ever_connected(int rank) const { return clients_[size_t(rank)].ever; }
  // Every rank connected at some point and every connection is closed.
  bool all_closed() const;
  // When a collective has waited over `seconds` for some ranks: "PEs 1,3 have not joined ...".
  std::string straggler_report(double seconds) const;

 private:
  struct Client {
    sock::Fd fd;
    bool ever = false;
    bool bye = false;
  };
  struct Pending {
    bool active = false;
    uint32_t seq = 0;
    Coll coll = Coll::None;
    int arg = 0;
    size_t len = 0;
    std::string what;
    int arrived = 0;
    double since = 0;
    std::vector<std::optional<std::string>> data;
  };

  // A connection that has not said hello yet, with what it has sent so far.
  struct Newcomer {
    sock::Fd fd;
    std::string bytes;
    double deadline = 0;
  };

  void on_readable(size_t newcomer);
  void on_hello(sock::Fd fd, const Message& m);
  void on_message(int rank, Message& m);
  void on_collective(int rank, Message& m);
  void complete();
  void drop(int rank);

  int nranks_;
  std::string secret_;
  Hooks hooks_;
  double hello_timeout_s_;
  std::vector<Newcomer> unauthenticated_;
  std::vector<Client> clients_;
  Pending pending_;
  uint32_t next_seq_ = 0;
};

// The PE side: a Bootstrap over one connection to a star server. A watcher thread reads every
// message, so failure notices arrive even while the PE is busy in a heap wait.
class Client : public Bootstrap {
 public:
  // `fd` is connected; `server` names the other end for messages ("gshmemrun", "rank 0").
  Client(sock::Fd fd, int rank, int size, const std::string& secret, AbortState* abort,
         double timeout_s, std::string server, const char* name);
  ~Client() override;
  const char* name() const override { return name_; }
  void allgather(const void* in, void* out, size_t bytes, const char* what) override;
  void alltoall(const void* in, void* out, size_t bytes, const char* what) override;
  void broadcast(void* buf, size_t bytes, int root, const char* what) override;
  void barrier(const char* what) override;
  [[noreturn]] void abort(int code, const std::string& why) override;
  void finalize() override;

 private:
  std::string collective(Coll coll, int arg, const void* data, size_t len, const char* what);
  void watch();

  sock::Fd fd_;
  AbortState* abort_;
  double timeout_s_;
  std::string server_;
  const char* name_;
  std::mutex send_mutex_;
  std::mutex mutex_;
  std::condition_variable cv_;
  std::optional<Message> result_;
  std::atomic<bool> closing_{false};
  uint32_t seq_ = 0;
  std::thread watcher_;
};

}  // namespace gshmem::star
