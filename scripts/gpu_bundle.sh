#!/usr/bin/env bash
# Packs what tests/gpu/run_all.sh runs from a CUDA build into one folder, for a GPU machine that
# has the driver but not gshmem's build dependencies (libfabric, hwloc, GoogleTest) and no package
# registry:
#
#   scripts/gpu_bundle.sh BUILD DEST      # here: BUILD is a CUDA build (sm_90 among its targets)
#   tests/gpu/run_all.sh --prebuilt DEST OUTDIR   # there: runs it without configuring or building
#
# DEST keeps BUILD's relative paths for the launcher, the GPU tests, the device perftests and the
# example, and DEST/lib holds the shared libraries they load that a GPU machine may lack (libgshmem
# and what ldd finds outside the C library, the C++ runtime and the CUDA driver, which the machine
# must provide itself). Builds the targets first when they are missing.
set -euo pipefail
build=${1:?usage: gpu_bundle.sh BUILD DEST}
dest=${2:?usage: gpu_bundle.sh BUILD DEST}
root=$(cd "$(dirname "$0")/.." && pwd)
# The run's targets, from run_all.sh itself (one list).
targets=$(bash "$root/tests/gpu/run_all.sh" --list-targets)
cmake --build "$build" --target $targets >/dev/null
rm -rf "$dest"
mkdir -p "$dest/lib"
programs=()
for t in $targets; do
  # The shallowest match: tests build other trees inside this one (cuda-off/, run-all-*/).
  f=$(cd "$build" && find . -path ./CMakeFiles -prune -o -type f -name "$t" -perm -u+x -print |
    awk -F/ '{ print NF, $0 }' | sort -n | head -1 | cut -d' ' -f2-)
  [ -n "$f" ] || { echo "gpu_bundle.sh: $t was not built in $build" >&2; exit 1; }
  mkdir -p "$dest/$(dirname "$f")"
  cp "$build/$f" "$dest/$f"
  programs+=("$build/$f")
done
# Libraries every Linux machine with a driver has, of its own version: never carried.
system='^(linux-vdso|ld-linux|libc|libm|libdl|librt|libpthread|libstdc\+\+|libgcc_s|libcuda|libnvidia)[.-]'
for p in "${programs[@]}"; do
  ldd "$p" | awk '$3 ~ /^\// {print $1, $3}'
done | sort -u | while read -r name path; do
  [[ $name =~ $system ]] && continue
  cp -L "$path" "$dest/lib/$name"
done
# Without debug information: the bundle travels (RelWithDebInfo objects are mostly DWARF).
find "$dest" -type f -exec strip --strip-debug {} +
# The module images gpu_module loads (it looks for them beside itself).
cp "$build"/tests/gpu/*.fatbin "$dest/tests/gpu/" 2>/dev/null || true
du -sh "$dest" | awk '{print "gpu_bundle.sh: " $1 " in " $2}'
