// The node mesh's messages: the records every PE allgathers (node key, host, socket name, not
// necessarily terminated) and the hello on a node socket.
#include <cstring>
#include <string>
#include <vector>

#include "host/bootstrap/node_mesh.hpp"

using namespace gshmem::node_wire;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  size_t n = size / sizeof(Record);
  if (n) {
    std::vector<Record> records(n);
    std::memcpy(records.data(), data, n * sizeof(Record));
    Layout l = parse_records(records.data(), n);
    if (l.node_of.size() != n || l.n_nodes < 1 || size_t(l.n_nodes) > n) __builtin_trap();
    for (int id : l.node_of) {
      if (id < 0 || id >= l.n_nodes) __builtin_trap();
    }
    // The hello from the bytes after the records, checked by each PE of that layout.
    const uint8_t* rest = data + n * sizeof(Record);
    size_t left = size - n * sizeof(Record);
    for (int me = 0; me < int(n) && me < 8; ++me) {
      int pe = check_hello(rest, left, "0123456789abcdef0123456789abcdef", l.node_of, me);
      if (pe >= me || (pe >= 0 && l.node_of[size_t(pe)] != l.node_of[size_t(me)])) __builtin_trap();
    }
  } else {
    std::vector<int> node_of = {0, 0, 1, 0};
    int pe = check_hello(data, size, "s", node_of, 3);
    if (pe >= 3 || pe == 2) __builtin_trap();
  }
  return 0;
}
