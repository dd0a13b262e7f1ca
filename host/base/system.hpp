// Facts about the machine the PE runs on.
#pragma once

namespace gshmem {

// CPUs this process may run on (its affinity mask), not all the machine has.
int cpus_available();

}  // namespace gshmem
