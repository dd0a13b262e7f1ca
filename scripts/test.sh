#!/usr/bin/env bash
# The whole test suite: installs dependencies, builds everything, runs every test with ctest.
# GPU tests report SKIPPED (with the reason) where no GPU is present.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${GSHMEM_BUILD_DIR:-$root/build}
"$root/scripts/deps.sh"
"$root/scripts/build.sh"
# Open MPI (PMIx tests and baselines) refuses to run as root unless told.
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
cd "$build"
ctest --output-on-failure -j 2 --timeout 600
