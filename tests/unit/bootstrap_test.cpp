// The bootstrap in one process: the star protocol's framing, the star server driven by raw
// clients over socket pairs (hello and its secret, the collectives, mismatches, aborts,
// disconnects, stragglers), the collectives the Bootstrap base class derives from allgather, and
// AbortState.
#include <gtest/gtest.h>

#include <sys/socket.h>
#include <unistd.h>

#include <condition_variable>
#include <cstring>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "host/bootstrap/bootstrap.hpp"
#include "host/bootstrap/star.hpp"
#include "host/base/sock.hpp"

namespace star = gshmem::star;
using gshmem::sock::Fd;

namespace {

struct Pair {
  Fd a, b;
  Pair() {
    int fds[2];
    if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds) != 0) std::abort();
    a.reset(fds[0]);
    b.reset(fds[1]);
  }
};

bool send_coll(int fd, int rank, star::Coll coll, int arg, uint32_t seq, const std::string& data,
               const char* what = "test") {
  return star::send(fd, star::Type::Collective, rank, coll, arg, seq, what, data.data(),
                    data.size());
}

// A star server and `n` raw clients connected to it through socket pairs.
struct Harness {
  std::vector<std::string> errors, aborts;
  std::vector<std::pair<int, bool>> disconnects;
  star::Server server;
  std::vector<Fd> clients;  // our ends

  Harness(int n, const std::string& secret)
      : server(
            n, secret,
            star::Server::Hooks{[this](int rank, int code, const std::string& why) {
                                  aborts.push_back(std::to_string(rank) + ":" +
                                                   std::to_string(code) + ":" + why);
                                },
                                [this](int rank, bool bye) { disconnects.emplace_back(rank, bye); },
                                [this](const std::string& why) { errors.push_back(why); }}) {}

  // Opens a connection and sends hello; returns our end's index.
  size_t connect(int rank, const std::string& secret) {
    Pair p;
    server.add_connection(std::move(p.b));
    star::send(p.a.get(), star::Type::Hello, rank, star::Coll::None, 0, 0, "", secret.data(),
               secret.size());
    clients.push_back(std::move(p.a));
    pump();
    return clients.size() - 1;
  }
  // Lets the server handle everything that is ready.
  void pump() {
    for (int round = 0; round < 4; ++round) {
      std::vector<pollfd> fds;
      server.collect_pollfds(&fds);
      if (fds.empty() || ::poll(fds.data(), fds.size(), 20) <= 0) return;
      for (const pollfd& p : fds) {
        if (p.revents) server.handle(p.fd);
      }
    }
  }
  // One message from the server to client i, or false (EOF, nothing within the deadline).
  bool receive(size_t i, star::Message* m, int timeout_ms = 1000) {
    pollfd p{clients[i].get(), POLLIN, 0};
    if (::poll(&p, 1, timeout_ms) <= 0) return false;
    return star::recv(clients[i].get(), m, 1 << 20);
  }
};

}  // namespace

TEST(StarProtocol, FramingRoundTrip) {
  Pair p;
  std::string data("\0binary\xff", 8);
  ASSERT_TRUE(star::send(p.a.get(), star::Type::Collective, 3, star::Coll::Broadcast, 2, 17,
                         "gshmem_malloc", data.data(), data.size()));
  star::Message m;
  ASSERT_TRUE(star::recv(p.b.get(), &m, 1024));
  EXPECT_EQ(m.h.type, uint16_t(star::Type::Collective));
  EXPECT_EQ(m.h.coll, uint8_t(star::Coll::Broadcast));
  EXPECT_EQ(m.h.rank, 3);
  EXPECT_EQ(m.h.arg, 2);
  EXPECT_EQ(m.h.seq, 17u);
  EXPECT_EQ(m.what, "gshmem_malloc");
  EXPECT_EQ(m.data, data);
}

TEST(StarProtocol, RejectsOversizedAndForeignFrames) {
  Pair p;
  std::string big(5000, 'x');
  ASSERT_TRUE(star::send(p.a.get(), star::Type::Result, 0, star::Coll::None, 0, 0, "", big.data(),
                         big.size()));
  star::Message m;
  EXPECT_FALSE(star::recv(p.b.get(), &m, 4096)) << "payload over the limit";
  Pair q;
  char junk[64];
  std::memset(junk, 'J', sizeof junk);
  ASSERT_EQ(::write(q.a.get(), junk, sizeof junk), ssize_t(sizeof junk));
  EXPECT_FALSE(star::recv(q.b.get(), &m, 4096)) << "bad magic";
  Pair r;
  r.a.reset();
  EXPECT_FALSE(star::recv(r.b.get(), &m, 4096)) << "EOF";
}

TEST(StarServer, HelloNeedsTheSecretAndAFreeRank) {
  Harness h(2, "s3cret");
  star::Message m;
  size_t wrong = h.connect(0, "guess");
  EXPECT_FALSE(h.receive(wrong, &m)) << "a wrong secret gets no welcome";
  size_t out_of_range = h.connect(5, "s3cret");
  EXPECT_FALSE(h.receive(out_of_range, &m));
  size_t good = h.connect(1, "s3cret");
  ASSERT_TRUE(h.receive(good, &m));
  EXPECT_EQ(m.h.type, uint16_t(star::Type::Welcome));
  EXPECT_TRUE(h.server.ever_connected(1));
  EXPECT_FALSE(h.server.ever_connected(0));
  size_t taken = h.connect(1, "s3cret");
  EXPECT_FALSE(h.receive(taken, &m)) << "rank 1 is taken";
}

TEST(StarServer, Collectives) {
  const int n = 3;
  Harness h(n, "k");
  star::Message m;
  for (int r = 0; r < n; ++r) {
    h.connect(r, "k");
    ASSERT_TRUE(h.receive(size_t(r), &m));
  }
  // allgather: everyone gets everything in rank order.
  for (int r = 0; r < n; ++r) {
    send_coll(h.clients[size_t(r)].get(), r, star::Coll::Allgather, 0, 0,
              std::string(2, char('a' + r)));
    h.pump();
  }
  for (int r = 0; r < n; ++r) {
    ASSERT_TRUE(h.receive(size_t(r), &m));
    EXPECT_EQ(m.h.type, uint16_t(star::Type::Result));
    EXPECT_EQ(m.data, "aabbcc");
  }
  // alltoall: block j of rank i goes to rank j.
  for (int r = 0; r < n; ++r) {
    std::string blocks;
    for (int j = 0; j < n; ++j) blocks += char('0' + r) + std::string(1, char('0' + j));
    send_coll(h.clients[size_t(r)].get(), r, star::Coll::Alltoall, 0, 1, blocks);
    h.pump();
  }
  for (int r = 0; r < n; ++r) {
    ASSERT_TRUE(h.receive(size_t(r), &m));
    std::string want;
    for (int s = 0; s < n; ++s) want += char('0' + s) + std::string(1, char('0' + r));
    EXPECT_EQ(m.data, want) << "rank " << r;
  }
  // broadcast from rank 2 (the others send nothing), then a barrier.
  for (int r = 0; r < n; ++r) {
    send_coll(h.clients[size_t(r)].get(), r, star::Coll::Broadcast, 2, 2, r == 2 ? "root" : "");
    h.pump();
  }
  for (int r = 0; r < n; ++r) {
    ASSERT_TRUE(h.receive(size_t(r), &m));
    EXPECT_EQ(m.data, "root");
  }
  for (int r = 0; r < n; ++r) {
    // Nobody is released before the last one arrives.
    if (r == n - 1) {
      EXPECT_FALSE(h.receive(0, &m, 100)) << "barrier released early";
    }
    send_coll(h.clients[size_t(r)].get(), r, star::Coll::Barrier, 0, 3, "");
    h.pump();
  }
  for (int r = 0; r < n; ++r) ASSERT_TRUE(h.receive(size_t(r), &m));
  EXPECT_TRUE(h.errors.empty());
}

TEST(StarServer, MismatchedCollectivesAreReported) {
  Harness h(2, "k");
  star::Message m;
  for (int r = 0; r < 2; ++r) {
    h.connect(r, "k");
    ASSERT_TRUE(h.receive(size_t(r), &m));
  }
  send_coll(h.clients[0].get(), 0, star::Coll::Allgather, 0, 0, "1234", "gshmem_malloc");
  h.pump();
  send_coll(h.clients[1].get(), 1, star::Coll::Allgather, 0, 0, "12345678", "gshmem_calloc");
  h.pump();
  ASSERT_EQ(h.errors.size(), 1u);
  EXPECT_NE(h.errors[0].find("do not match"), std::string::npos) << h.errors[0];
  EXPECT_NE(h.errors[0].find("PE 1"), std::string::npos) << h.errors[0];
  EXPECT_NE(h.errors[0].find("gshmem_calloc"), std::string::npos) << h.errors[0];
  EXPECT_NE(h.errors[0].find("gshmem_malloc"), std::string::npos) << h.errors[0];
}

TEST(StarServer, AbortsDisconnectsAndFailures) {
  Harness h(3, "k");
  star::Message m;
  for (int r = 0; r < 3; ++r) {
    h.connect(r, "k");
    ASSERT_TRUE(h.receive(size_t(r), &m));
  }
  // A straggler report names who is missing from a pending collective.
  send_coll(h.clients[0].get(), 0, star::Coll::Barrier, 0, 0, "", "gshmem_barrier_all");
  h.pump();
  std::string report = h.server.straggler_report(0);
  EXPECT_NE(report.find("PEs 1,2"), std::string::npos) << report;
  EXPECT_NE(report.find("gshmem_barrier_all"), std::string::npos) << report;
  // Abort from rank 1 reaches the hook with its code and reason.
  std::string why = "PE 1 called gshmem_global_exit(5)";
  star::send(h.clients[1].get(), star::Type::Abort, 1, star::Coll::None, 5, 0, "", why.data(),
             why.size());
  h.pump();
  ASSERT_EQ(h.aborts.size(), 1u);
  EXPECT_EQ(h.aborts[0], "1:5:" + why);
  // Rank 2 says goodbye and closes; rank 0 just disappears.
  star::send(h.clients[2].get(), star::Type::Bye, 2, star::Coll::None, 0, 0, "", nullptr, 0);
  h.clients[2].reset();
  h.pump();
  h.clients[0].reset();
  h.pump();
  ASSERT_EQ(h.disconnects.size(), 2u);
  EXPECT_EQ(h.disconnects[0], std::make_pair(2, true));
  EXPECT_EQ(h.disconnects[1], std::make_pair(0, false));
  EXPECT_TRUE(h.server.said_bye(2));
  EXPECT_FALSE(h.server.said_bye(0));
  EXPECT_FALSE(h.server.all_closed());
  // A failure notice reaches the ranks still connected.
  h.server.broadcast_failure(9, "PE 0 was killed");
  ASSERT_TRUE(h.receive(1, &m));
  EXPECT_EQ(m.h.type, uint16_t(star::Type::Failure));
  EXPECT_EQ(m.h.arg, 9);
  EXPECT_EQ(m.data, "PE 0 was killed");
}

// ---- Collectives the base class derives from allgather ------------------------------------------

namespace {

// n ranks in threads of this process, meeting in a shared allgather.
struct Meeting {
  std::mutex mutex;
  std::condition_variable cv;
  int n;
  int arrived = 0;
  uint64_t generation = 0;
  std::vector<std::string> parts;
  std::string result;
  explicit Meeting(int ranks) : n(ranks), parts(size_t(ranks)) {}
};

class ThreadBootstrap : public gshmem::Bootstrap {
 public:
  ThreadBootstrap(Meeting* m, int rank) : m_(m) {
    rank_ = rank;
    size_ = m->n;
  }
  const char* name() const override { return "threads"; }
  void allgather(const void* in, void* out, size_t bytes, const char*) override {
    std::unique_lock<std::mutex> lock(m_->mutex);
    m_->parts[size_t(rank_)].assign(static_cast<const char*>(in), bytes);
    uint64_t gen = m_->generation;
    if (++m_->arrived == m_->n) {
      m_->result.clear();
      for (auto& p : m_->parts) m_->result += p;
      m_->arrived = 0;
      ++m_->generation;
      m_->cv.notify_all();
    } else {
      m_->cv.wait(lock, [&] { return m_->generation != gen; });
    }
    std::memcpy(out, m_->result.data(), m_->result.size());
  }
  [[noreturn]] void abort(int, const std::string&) override { std::abort(); }

 private:
  Meeting* m_;
};

}  // namespace

TEST(BootstrapBase, AlltoallBroadcastBarrierFromAllgather) {
  const int n = 4;
  Meeting meeting(n);
  std::vector<std::vector<uint32_t>> alltoall_out(n, std::vector<uint32_t>(n));
  std::vector<uint64_t> bcast(n);
  std::vector<std::thread> threads;
  for (int r = 0; r < n; ++r) {
    threads.emplace_back([&, r] {
      ThreadBootstrap b(&meeting, r);
      std::vector<uint32_t> in(n);
      for (int j = 0; j < n; ++j) in[size_t(j)] = uint32_t(r * 100 + j);
      b.alltoall(in.data(), alltoall_out[size_t(r)].data(), sizeof(uint32_t), "test");
      uint64_t v = r == 1 ? 0xfeedull : 0;
      b.broadcast(&v, sizeof v, 1, "test");
      bcast[size_t(r)] = v;
      b.barrier("test");
    });
  }
  for (auto& t : threads) t.join();
  for (int r = 0; r < n; ++r) {
    for (int s = 0; s < n; ++s) {
      EXPECT_EQ(alltoall_out[size_t(r)][size_t(s)], uint32_t(s * 100 + r))
          << "rank " << r << " block from " << s;
    }
    EXPECT_EQ(bcast[size_t(r)], 0xfeedull) << "rank " << r;
  }
}

TEST(AbortState, FirstReasonWins) {
  gshmem::AbortState a;
  EXPECT_FALSE(a.raised());
  EXPECT_EQ(*a.flag_address(), 0u);
  a.raise(7, "PE 3 was killed by signal 9");
  a.raise(1, "a later reason");
  EXPECT_TRUE(a.raised());
  EXPECT_NE(*a.flag_address(), 0u);
  EXPECT_EQ(a.code(), 7);
  EXPECT_EQ(a.reason(), "PE 3 was killed by signal 9");
}
