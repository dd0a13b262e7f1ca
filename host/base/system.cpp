#include "host/base/system.hpp"

#include <sched.h>
#include <unistd.h>

namespace gshmem {

int cpus_available() {
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof set, &set) != 0) return int(sysconf(_SC_NPROCESSORS_ONLN));
  return CPU_COUNT(&set);
}

}  // namespace gshmem
