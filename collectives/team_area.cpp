// The collectives' heap space, registered with the runtime before init (TeamAreaSizes in
// host/runtime/process.hpp): flags next to every team's sync words (followed, with
// GSHMEM_CHECK_CALLS, by the rows of collectives/call_check.hpp), and one scratch pool of
// GSHMEM_COLL_SCRATCH bytes, both laid out by gshmem/coll/workspace.cuh.
#include "collectives/call_check.hpp"
#include "gshmem/coll/workspace.cuh"
#include "host/base/env.hpp"
#include "host/runtime/process.hpp"

namespace gshmem::coll {

namespace {

const bool g_registered = [] {
  TeamAreaSizes sizes;
  sizes.per_team = [](int n_pes) { return team_area_bytes(n_pes) + call_check_bytes(n_pes); };
  sizes.pool = [] { return scratch_bytes(Env::get().size("GSHMEM_COLL_SCRATCH")); };
  register_team_area(sizes);
  return true;
}();

}  // namespace

}  // namespace gshmem::coll
