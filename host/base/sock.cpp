#include "host/base/sock.hpp"

#include <arpa/inet.h>
#include <cerrno>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <ifaddrs.h>
#include <net/if.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/un.h>
#include <unistd.h>

#include "gshmem/gshmem.hpp"

namespace gshmem::sock {

Fd& Fd::operator=(Fd&& o) noexcept {
  if (this != &o) reset(o.release());
  return *this;
}

void Fd::reset(int fd) {
  if (fd_ >= 0) ::close(fd_);
  fd_ = fd;
}

bool write_all(int fd, const void* buf, size_t len) {
  const char* p = static_cast<const char*>(buf);
  while (len) {
    ssize_t n = ::send(fd, p, len, MSG_NOSIGNAL);
    if (n < 0 && errno == ENOTSOCK) n = ::write(fd, p, len);
    if (n < 0) {
      if (errno == EINTR) continue;
      return false;
    }
    p += n;
    len -= size_t(n);
  }
  return true;
}

bool read_all(int fd, void* buf, size_t len) {
  char* p = static_cast<char*>(buf);
  while (len) {
    ssize_t n = ::read(fd, p, len);
    if (n < 0) {
      if (errno == EINTR) continue;
      return false;
    }
    if (n == 0) {
      errno = 0;
      return false;
    }
    p += n;
    len -= size_t(n);
  }
  return true;
}

namespace {

socklen_t abstract_addr(const std::string& name, sockaddr_un* a) {
  std::memset(a, 0, sizeof *a);
  a->sun_family = AF_UNIX;
  size_t n = std::min(name.size(), sizeof(a->sun_path) - 1);
  std::memcpy(a->sun_path + 1, name.data(), n);  // leading NUL: abstract namespace
  return socklen_t(offsetof(sockaddr_un, sun_path) + 1 + n);
}

}  // namespace

Fd listen_abstract(const std::string& name, int backlog) {
  Fd fd(::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0));
  if (!fd) return fd;
  sockaddr_un a;
  socklen_t len = abstract_addr(name, &a);
  if (::bind(fd.get(), reinterpret_cast<sockaddr*>(&a), len) != 0 ||
      ::listen(fd.get(), backlog) != 0) {
    return Fd();
  }
  return fd;
}

Fd connect_abstract(const std::string& name) {
  Fd fd(::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0));
  if (!fd) return fd;
  sockaddr_un a;
  socklen_t len = abstract_addr(name, &a);
  int rc;
  do {
    rc = ::connect(fd.get(), reinterpret_cast<sockaddr*>(&a), len);
  } while (rc != 0 && errno == EINTR);
  if (rc != 0) return Fd();
  return fd;
}

namespace {

bool path_addr(const std::string& path, sockaddr_un* a) {
  std::memset(a, 0, sizeof *a);
  a->sun_family = AF_UNIX;
  if (path.empty() || path.size() >= sizeof a->sun_path) {
    errno = ENAMETOOLONG;
    return false;
  }
  std::memcpy(a->sun_path, path.data(), path.size());
  return true;
}

}  // namespace

Fd listen_unix(const std::string& path, int backlog) {
  sockaddr_un a;
  if (!path_addr(path, &a)) return Fd();
  Fd fd(::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0));
  if (!fd) return fd;
  // bind creates the socket file with the umask's mode; the directory is what keeps others out,
  // the file's own 0600 is the second lock.
  if (::bind(fd.get(), reinterpret_cast<sockaddr*>(&a), sizeof a) != 0 ||
      ::chmod(path.c_str(), 0600) != 0 || ::listen(fd.get(), backlog) != 0) {
    return Fd();
  }
  return fd;
}

Fd connect_unix(const std::string& path) {
  sockaddr_un a;
  if (!path_addr(path, &a)) return Fd();
  Fd fd(::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0));
  if (!fd) return fd;
  int rc;
  do {
    rc = ::connect(fd.get(), reinterpret_cast<sockaddr*>(&a), sizeof a);
  } while (rc != 0 && errno == EINTR);
  if (rc != 0) return Fd();
  return fd;
}

std::string private_dir(const std::string& prefix) {
  // A socket path inside must fit in sun_path (108 bytes): a long $TMPDIR falls back to /tmp.
  const char* tmp = std::getenv("TMPDIR");
  std::string base = tmp && *tmp && std::strlen(tmp) < 60 ? tmp : "/tmp";
  std::string templ = base + "/" + prefix + "-XXXXXX";
  if (!::mkdtemp(templ.data())) return "";
  // mkdtemp makes it 0700 already; say so, whatever the platform.
  if (::chmod(templ.c_str(), 0700) != 0) {
    ::rmdir(templ.c_str());
    return "";
  }
  return templ;
}

bool peer_is_same_user(int fd) {
  sockaddr_storage ss{};
  socklen_t len = sizeof ss;
  if (::getsockname(fd, reinterpret_cast<sockaddr*>(&ss), &len) != 0) return false;
  if (ss.ss_family != AF_UNIX) return true;
  ucred cred{};
  socklen_t clen = sizeof cred;
  if (::getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &clen) != 0) return false;
  return cred.uid == ::geteuid();
}

bool secret_equal(const void* a, size_t a_len, const void* b, size_t b_len) {
  const auto* x = static_cast<const volatile unsigned char*>(a);
  const auto* y = static_cast<const volatile unsigned char*>(b);
  size_t n = a_len < b_len ? a_len : b_len;
  unsigned diff = a_len == b_len ? 0u : 1u;
  for (size_t i = 0; i < n; ++i) diff |= unsigned(x[i] ^ y[i]);
  return diff == 0;
}

namespace {

addrinfo* resolve(const std::string& host, int port, bool passive) {
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = passive ? AI_PASSIVE : 0;
  addrinfo* res = nullptr;
  std::string p = std::to_string(port);
  if (::getaddrinfo(host.empty() ? nullptr : host.c_str(), p.c_str(), &hints, &res) != 0) {
    return nullptr;
  }
  return res;
}

}  // namespace

Fd listen_tcp(const std::string& host, int port, int backlog) {
  addrinfo* res = resolve(host, port, true);
  Fd result;
  for (addrinfo* ai = res; ai && !result; ai = ai->ai_next) {
    Fd fd(::socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC, ai->ai_protocol));
    if (!fd) continue;
    int one = 1;
    ::setsockopt(fd.get(), SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    if (::bind(fd.get(), ai->ai_addr, ai->ai_addrlen) == 0 && ::listen(fd.get(), backlog) == 0) {
      result = std::move(fd);
    }
  }
  if (res) ::freeaddrinfo(res);
  return result;
}

Fd connect_tcp(const std::string& host, int port) {
  addrinfo* res = resolve(host, port, false);
  Fd result;
  for (addrinfo* ai = res; ai && !result; ai = ai->ai_next) {
    Fd fd(::socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC, ai->ai_protocol));
    if (!fd) continue;
    int rc;
    do {
      rc = ::connect(fd.get(), ai->ai_addr, ai->ai_addrlen);
    } while (rc != 0 && errno == EINTR);
    if (rc == 0) {
      int one = 1;
      ::setsockopt(fd.get(), IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
      result = std::move(fd);
    }
  }
  if (res) ::freeaddrinfo(res);
  return result;
}

int local_port(int fd) {
  sockaddr_storage ss{};
  socklen_t len = sizeof ss;
  if (::getsockname(fd, reinterpret_cast<sockaddr*>(&ss), &len) != 0) return -1;
  if (ss.ss_family == AF_INET) return ntohs(reinterpret_cast<sockaddr_in*>(&ss)->sin_port);
  if (ss.ss_family == AF_INET6) return ntohs(reinterpret_cast<sockaddr_in6*>(&ss)->sin6_port);
  return -1;
}

bool split_host_port(const std::string& addr, std::string* host, int* port) {
  size_t colon = addr.rfind(':');
  if (colon == std::string::npos || colon + 1 >= addr.size()) return false;
  std::string h = addr.substr(0, colon);
  if (h.size() >= 2 && h.front() == '[' && h.back() == ']') h = h.substr(1, h.size() - 2);
  char* end = nullptr;
  long p = std::strtol(addr.c_str() + colon + 1, &end, 10);
  if (*end || p <= 0 || p > 65535 || h.empty()) return false;
  *host = h;
  *port = int(p);
  return true;
}

std::string interface_address(const std::string& ifname) {
  ifaddrs* list = nullptr;
  if (::getifaddrs(&list) != 0) return ifname.empty() ? "127.0.0.1" : "";
  std::string found;
  for (ifaddrs* i = list; i && found.empty(); i = i->ifa_next) {
    if (!i->ifa_addr || i->ifa_addr->sa_family != AF_INET) continue;
    if (!ifname.empty() ? ifname != i->ifa_name
                        : (!(i->ifa_flags & IFF_UP) || (i->ifa_flags & IFF_LOOPBACK))) {
      continue;
    }
    char buf[INET_ADDRSTRLEN];
    auto* sin = reinterpret_cast<sockaddr_in*>(i->ifa_addr);
    if (::inet_ntop(AF_INET, &sin->sin_addr, buf, sizeof buf)) found = buf;
  }
  ::freeifaddrs(list);
  if (found.empty() && ifname.empty()) found = "127.0.0.1";
  return found;
}

void set_io_timeout(int fd, double seconds) {
  timeval tv;
  tv.tv_sec = time_t(seconds);
  tv.tv_usec = suseconds_t((seconds - double(tv.tv_sec)) * 1e6);
  ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
  ::setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
}

bool send_fds(int sock, const std::vector<int>& fds, uint64_t tag) {
  msghdr msg{};
  iovec iov{&tag, sizeof tag};
  msg.msg_iov = &iov;
  msg.msg_iovlen = 1;
  std::vector<char> control(CMSG_SPACE(sizeof(int) * fds.size()));
  if (!fds.empty()) {
    msg.msg_control = control.data();
    msg.msg_controllen = control.size();
    cmsghdr* c = CMSG_FIRSTHDR(&msg);
    c->cmsg_level = SOL_SOCKET;
    c->cmsg_type = SCM_RIGHTS;
    c->cmsg_len = CMSG_LEN(sizeof(int) * fds.size());
    std::memcpy(CMSG_DATA(c), fds.data(), sizeof(int) * fds.size());
  }
  ssize_t n;
  do {
    n = ::sendmsg(sock, &msg, MSG_NOSIGNAL);
  } while (n < 0 && errno == EINTR);
  return n == ssize_t(sizeof tag);
}

bool recv_fds(int sock, std::vector<int>* fds, size_t count, uint64_t* tag) {
  msghdr msg{};
  iovec iov{tag, sizeof *tag};
  msg.msg_iov = &iov;
  msg.msg_iovlen = 1;
  std::vector<char> control(CMSG_SPACE(sizeof(int) * (count ? count : 1)));
  msg.msg_control = control.data();
  msg.msg_controllen = control.size();
  ssize_t n;
  do {
    n = ::recvmsg(sock, &msg, MSG_CMSG_CLOEXEC | MSG_WAITALL);
  } while (n < 0 && errno == EINTR);
  if (n != ssize_t(sizeof *tag)) return false;
  fds->clear();
  for (cmsghdr* c = CMSG_FIRSTHDR(&msg); c; c = CMSG_NXTHDR(&msg, c)) {
    if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS) continue;
    size_t k = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
    const int* data = reinterpret_cast<const int*>(CMSG_DATA(c));
    fds->insert(fds->end(), data, data + k);
  }
  return fds->size() == count;
}

void random_bytes(void* out, size_t n) {
  auto* p = static_cast<unsigned char*>(out);
  size_t got = 0;
  while (got < n) {
    ssize_t r = ::getrandom(p + got, n - got, 0);
    if (r < 0) {
      if (errno == EINTR) continue;
      throw Error(GSHMEM_ERROR_INTERNAL, "gshmem_init", "",
                  std::string("getrandom: ") + std::strerror(errno));
    }
    got += size_t(r);
  }
}

std::string random_hex(size_t n) {
  std::vector<unsigned char> bytes(n);
  random_bytes(bytes.data(), n);
  static const char* hex = "0123456789abcdef";
  std::string s;
  for (unsigned char b : bytes) {
    s += hex[b >> 4];
    s += hex[b & 15];
  }
  return s;
}

}  // namespace gshmem::sock
