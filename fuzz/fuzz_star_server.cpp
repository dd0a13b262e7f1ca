// The star server (gshmemrun's and rank 0's): four connections to a 3-PE server, each fed a part
// of the input (chunks: a connection byte, a length byte, the bytes), then closed for writing. The
// server must neither crash nor block, whatever hellos, collectives or garbage arrive.
#include <fcntl.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <string>
#include <vector>

#include "host/bootstrap/star.hpp"

using namespace gshmem;

namespace {

void drain(int fd) {
  char buf[65536];
  while (::read(fd, buf, sizeof buf) > 0) {
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size > 16384) return 0;
  constexpr int kConns = 4;
  std::vector<std::string> streams(kConns);
  for (size_t i = 0; i + 2 <= size;) {
    size_t c = data[i] % kConns, len = data[i + 1];
    i += 2;
    len = std::min(len, size - i);
    streams[c].append(reinterpret_cast<const char*>(data + i), len);
    i += len;
  }
  star::Server server(3, "k", {}, 5);
  int clients[kConns];
  for (int c = 0; c < kConns; ++c) {
    int sv[2];
    if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0) __builtin_trap();
    int big = 1 << 20;
    ::setsockopt(sv[0], SOL_SOCKET, SO_SNDBUF, &big, sizeof big);
    ::setsockopt(sv[1], SOL_SOCKET, SO_RCVBUF, &big, sizeof big);
    if (!sock::write_all(sv[1], streams[size_t(c)].data(), streams[size_t(c)].size())) {
      __builtin_trap();
    }
    ::shutdown(sv[1], SHUT_WR);
    ::fcntl(sv[1], F_SETFL, O_NONBLOCK);
    clients[c] = sv[1];
    server.add_connection(sock::Fd(sv[0]));
  }
  // Every stream ends in EOF, so each round either consumes bytes or closes a connection.
  for (int round = 0; round < 10000; ++round) {
    std::vector<pollfd> fds;
    server.collect_pollfds(&fds);
    if (fds.empty() || ::poll(fds.data(), fds.size(), 0) <= 0) break;
    for (auto& p : fds) {
      if (p.revents) server.handle(p.fd);
      for (int c : clients) drain(c);
    }
  }
  server.expire_hellos();
  for (int c : clients) ::close(c);
  return 0;
}
