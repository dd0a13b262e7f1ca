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

int bind_thread_to_cpu(int index) {
  cpu_set_t allowed;
  CPU_ZERO(&allowed);
  if (sched_getaffinity(0, sizeof allowed, &allowed) != 0) return -1;
  int count = CPU_COUNT(&allowed);
  if (count <= 0 || index < 0) return -1;
  int wanted = index % count;
  for (int cpu = 0; cpu < CPU_SETSIZE; ++cpu) {
    if (!CPU_ISSET(cpu, &allowed) || wanted-- != 0) continue;
    cpu_set_t one;
    CPU_ZERO(&one);
    CPU_SET(cpu, &one);
    return sched_setaffinity(0, sizeof one, &one) == 0 ? cpu : -1;
  }
  return -1;
}

}  // namespace gshmem
