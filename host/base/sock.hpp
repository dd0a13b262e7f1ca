// Small socket helpers shared by the bootstraps, the launcher and the node mesh: whole-buffer
// I/O that survives EINTR, abstract Unix and TCP endpoints, and file descriptor passing.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace gshmem::sock {

// An owned file descriptor.
class Fd {
 public:
  Fd() = default;
  explicit Fd(int fd) : fd_(fd) {}
  Fd(Fd&& o) noexcept : fd_(o.release()) {}
  Fd& operator=(Fd&& o) noexcept;
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  ~Fd() { reset(); }
  int get() const { return fd_; }
  int release() {
    int f = fd_;
    fd_ = -1;
    return f;
  }
  void reset(int fd = -1);
  explicit operator bool() const { return fd_ >= 0; }

 private:
  int fd_ = -1;
};

// False on EOF or error (errno tells which; 0 for EOF).
bool write_all(int fd, const void* buf, size_t len);
bool read_all(int fd, void* buf, size_t len);

// Abstract-namespace Unix sockets: nothing appears in the file system, nothing is left behind,
// but any process in the network namespace can connect (and read the name in /proc/net/unix):
// whoever accepts on one checks peer_is_same_user and a secret, and the name must not be one.
Fd listen_abstract(const std::string& name, int backlog);
Fd connect_abstract(const std::string& name);

// Unix sockets at a path, for listeners that file permissions should guard: put the socket in a
// directory from private_dir. The socket itself is made 0600.
Fd listen_unix(const std::string& path, int backlog);
Fd connect_unix(const std::string& path);
// A fresh directory only this user can enter (mode 0700) under $TMPDIR or /tmp, short enough
// that a socket path inside it fits sun_path; empty on failure (errno says why).
std::string private_dir(const std::string& prefix);

// Whether the process at the other end of a Unix socket runs as this process's effective user
// (SO_PEERCRED, taken when it connected). True for sockets that are not Unix sockets: TCP peers
// prove themselves with a secret instead.
bool peer_is_same_user(int fd);
// Compares secrets in time that depends only on their lengths, so timing tells an attacker
// nothing about how much of a guess was right.
bool secret_equal(const void* a, size_t a_len, const void* b, size_t b_len);
inline bool secret_equal(const std::string& a, const std::string& b) {
  return secret_equal(a.data(), a.size(), b.data(), b.size());
}

// TCP. host may be a name or a numeric IPv4/IPv6 address; port 0 picks one (see local_port).
Fd listen_tcp(const std::string& host, int port, int backlog);
Fd connect_tcp(const std::string& host, int port);
int local_port(int fd);
// Splits "host:port" or "[v6]:port"; false when malformed.
bool split_host_port(const std::string& addr, std::string* host, int* port);
// The IPv4 address of `ifname`, or of the first interface that is up and not loopback when
// ifname is empty; "127.0.0.1" when there is none. Empty string when ifname does not exist.
std::string interface_address(const std::string& ifname);

// Bounds blocking reads/writes so a stuck or hostile peer cannot block forever.
void set_io_timeout(int fd, double seconds);

// Sends/receives file descriptors with SCM_RIGHTS, plus a small tag.
bool send_fds(int sock, const std::vector<int>& fds, uint64_t tag);
bool recv_fds(int sock, std::vector<int>* fds, size_t count, uint64_t* tag);

// n bytes of getrandom() output; throws Error when the kernel cannot give them (a secret must
// never be weaker than asked for).
void random_bytes(void* out, size_t n);
// 2*n lowercase hex characters of random_bytes() output.
std::string random_hex(size_t n);

}  // namespace gshmem::sock
