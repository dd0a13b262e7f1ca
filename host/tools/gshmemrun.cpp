// gshmemrun -n N [--ppn K] [--timeout S] [--tag-output] prog args...
//
// Starts N PEs of prog on this machine and serves their bootstrap over an abstract Unix socket
// guarded by a per-job secret. Exits with the worst PE status; when a PE fails, ends the others
// within seconds and says which PE failed and how.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "host/base/env.hpp"
#include "host/tools/job.hpp"

namespace {

void usage(FILE* f) {
  std::fprintf(f,
               "usage: gshmemrun -n N [--ppn K] [--timeout S] [--tag-output] [--] prog [args...]\n"
               "  -n, -np N        number of PEs to start\n"
               "  --ppn K          K PEs per virtual node: PEs on different virtual nodes do not\n"
               "                   map each other's memory and talk over the network transport\n"
               "  --timeout S      end the job after S seconds (exit status 124)\n"
               "  --tag-output     prefix every output line with [PE n]\n"
               "The exit status is the worst PE's; gshmem_global_exit(s) makes it s.\n");
}

bool parse_int(const char* s, int* out) {
  char* end = nullptr;
  long v = std::strtol(s, &end, 10);
  if (!s[0] || *end || v < 1 || v > 1 << 20) return false;
  *out = int(v);
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  gshmem::launcher::Options opt;
  int i = 1;
  for (; i < argc; ++i) {
    std::string a = argv[i];
    auto value = [&](const char* name) -> const char* {
      if (i + 1 >= argc) {
        std::fprintf(stderr, "gshmemrun: %s needs a value\n", name);
        std::exit(2);
      }
      return argv[++i];
    };
    if (a == "-n" || a == "-np" || a == "--npes") {
      if (!parse_int(value(a.c_str()), &opt.npes)) {
        std::fprintf(stderr, "gshmemrun: %s wants a positive number, got '%s'\n", a.c_str(),
                     argv[i]);
        return 2;
      }
    } else if (a == "--ppn" || a == "-ppn" || a == "-N") {
      if (!parse_int(value(a.c_str()), &opt.ppn)) {
        std::fprintf(stderr, "gshmemrun: %s wants a positive number, got '%s'\n", a.c_str(),
                     argv[i]);
        return 2;
      }
    } else if (a == "--timeout") {
      if (!gshmem::Env::parse_seconds(value("--timeout"), &opt.timeout_s)) {
        std::fprintf(stderr, "gshmemrun: --timeout wants seconds, got '%s'\n", argv[i]);
        return 2;
      }
    } else if (a == "--tag-output") {
      opt.tag_output = true;
    } else if (a == "-h" || a == "--help") {
      usage(stdout);
      return 0;
    } else if (a == "--") {
      ++i;
      break;
    } else if (!a.empty() && a[0] == '-') {
      std::fprintf(stderr, "gshmemrun: unknown option '%s'\n", a.c_str());
      usage(stderr);
      return 2;
    } else {
      break;
    }
  }
  for (; i < argc; ++i) opt.argv.emplace_back(argv[i]);
  if (opt.npes < 1 || opt.argv.empty()) {
    usage(stderr);
    return 2;
  }
  return gshmem::launcher::Job(std::move(opt)).run();
}
