// Facts about the machine the PE runs on.
#pragma once

namespace gshmem {

// CPUs this process may run on (its affinity mask), not all the machine has.
int cpus_available();

// Binds the calling thread to one CPU of its affinity mask: the (index % count)-th, so that PEs
// numbered 0, 1, ... on a node spread evenly over the CPUs they were given. Returns that CPU, or
// -1 when the mask cannot be read or set (the thread is then left as it was).
int bind_thread_to_cpu(int index);

}  // namespace gshmem
