// The unique id's contents: where rank 0 listens and the random secret every rank presents to it.
// It travels between processes out of band (torchrun's store, a file, MPI), so decoding trusts
// nothing in it.
#pragma once

#include <cstddef>
#include <string>

namespace gshmem::uid {

struct Info {
  std::string host;
  int port = 0;
  std::string secret;
};

// The text stored in gshmemx_uniqueid_t::internal: "gshuid1|host|port|secret".
std::string encode(const Info& info);
// False unless the bytes (up to the first NUL) are exactly that form, with a port in 1..65535,
// a host without '|', and a secret of hex digits long enough to be unguessable.
bool decode(const char* bytes, size_t n, Info* out);

}  // namespace gshmem::uid
