/* OpenSHMEM 1.5 C API over gshmem, for programs written against the specification: build with
 * oshcc (or -I<prefix>/include/gshmem/compat -lgshmem), run with oshrun -np N. Compiles as C11
 * and as C++ (C++ gets overloads where C11 gets _Generic).
 *
 * Umbrella over one header per concern in shmem/: constants and handles, setup and the heap,
 * RMA and signals, atomics, ordering/waits/locks, teams and contexts, team collectives, the
 * deprecated names the specification still lists, and the type-generic interfaces.
 *
 * Every routine is a thin wrapper over gshmem's own inline implementation with the default
 * context; errors are reported as gshmem reports them: bad input on a routine without a return
 * value ends the job with a message naming the routine and the argument.
 */
#ifndef GSHMEM_COMPAT_SHMEM_H
#define GSHMEM_COMPAT_SHMEM_H

#include "shmem/constants.h"
#include "shmem/typelist.h"
#include "shmem/setup.h"
#include "shmem/rma.h"
#include "shmem/amo.h"
#include "shmem/sync.h"
#include "shmem/team.h"
#include "shmem/coll.h"
#include "shmem/legacy.h"
#include "shmem/generic.h"

#endif /* GSHMEM_COMPAT_SHMEM_H */
