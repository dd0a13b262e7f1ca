#!/usr/bin/env bash
# Installs the build into a fresh prefix and uses it the way the README tells a user to: a C++
# program built with pkg-config, a CMake project with find_package(gshmem), a C program built
# with the installed oshcc and run with oshrun (-np and -n), and gshmem-info, all from the prefix
# only. The prefix is a temporary directory, so this also proves the install is relocatable.
#   install_test.sh BUILD_DIR
set -euo pipefail
build=$1
prefix=$(mktemp -d /tmp/gshmem-install.XXXXXX)
work=$(mktemp -d /tmp/gshmem-user.XXXXXX)
trap 'rm -rf "$prefix" "$work"' EXIT
step() { echo "== $*"; }

step "cmake --install into $prefix"
cmake --install "$build" --prefix "$prefix" > "$work/install.log"
pcdir=$(dirname "$(find "$prefix" -name gshmem.pc | head -1)")
[[ -n $pcdir ]] || { echo "no gshmem.pc installed"; exit 1; }

# The README's example: every PE adds its rank to PE 0's counter.
cat > "$work/sum.cpp" <<'SRC'
#include <gshmem/gshmem.h>
#include <cstdio>
int main() {
  gshmem_init();
  int me = gshmem_my_pe(), n = gshmem_n_pes();
  long* x = static_cast<long*>(gshmem_calloc(1, sizeof(long)));
  gshmem_long_atomic_add(x, me, 0);
  gshmem_barrier_all();
  if (me == 0) std::printf("sum %ld want %d\n", *x, n * (n - 1) / 2);
  gshmem_free(x);
  gshmem_finalize();
}
SRC
expect_sum() {  # expect_sum N OUTPUT
  grep -qx "sum $(( $1 * ($1 - 1) / 2 )) want $(( $1 * ($1 - 1) / 2 ))" <<< "$2" ||
    { echo "unexpected output: $2"; exit 1; }
}

step "g++ sum.cpp \$(pkg-config --cflags --libs gshmem)"
flags=$(PKG_CONFIG_PATH=$pcdir pkg-config --cflags --libs gshmem)
g++ -std=c++17 "$work/sum.cpp" $flags -o "$work/sum_pc"
expect_sum 4 "$("$prefix/bin/gshmemrun" -n 4 "$work/sum_pc")"

step "find_package(gshmem) in a CMake project"
mkdir -p "$work/proj"
cp "$work/sum.cpp" "$work/proj/"
cat > "$work/proj/CMakeLists.txt" <<'SRC'
cmake_minimum_required(VERSION 3.20)
project(user LANGUAGES CXX)
find_package(gshmem REQUIRED)
add_executable(sum sum.cpp)
target_link_libraries(sum gshmem::gshmem)
SRC
cmake -S "$work/proj" -B "$work/proj/build" -DCMAKE_PREFIX_PATH="$prefix" > "$work/proj.log" 2>&1 ||
  { cat "$work/proj.log"; exit 1; }
cmake --build "$work/proj/build" > "$work/proj-build.log" 2>&1 || { cat "$work/proj-build.log"; exit 1; }
expect_sum 3 "$("$prefix/bin/gshmemrun" -n 3 "$work/proj/build/sum")"

step "oshcc prog.c && oshrun -np 4 / -n 2"
cat > "$work/osh.c" <<'SRC'
#include <pshmem.h> /* shmem.h and the profiling interface's pshmem_ names */
#include <stdio.h>
long counter; /* a global: symmetric, as OpenSHMEM allows */
int main(void) {
  shmem_init();
  int me = shmem_my_pe(), n = shmem_n_pes();
  shmem_long_atomic_add(&counter, me, 0);
  pshmem_barrier_all();
  if (me == 0) printf("sum %ld want %d\n", counter, n * (n - 1) / 2);
  shmem_finalize();
  return 0;
}
SRC
"$prefix/bin/oshcc" "$work/osh.c" -o "$work/osh"
expect_sum 4 "$("$prefix/bin/oshrun" -np 4 "$work/osh")"
expect_sum 2 "$("$prefix/bin/oshrun" -n 2 "$work/osh")"

step "gshmem-info from the prefix"
info=$("$prefix/bin/gshmem-info" --env)
grep -q "GSHMEM_SYMMETRIC_SIZE" <<< "$info" || { echo "gshmem-info printed no registry"; exit 1; }
compat=$(cd "$(dirname "$0")/../compat" && pwd)
step "find_package(NVSHMEM): an NVSHMEM host program, unchanged (NVSHMEM_INCLUDE_DIR used directly)"
mkdir -p "$work/nv"
cp "$compat/nvshmem_host.cpp" "$work/nv/"
cat > "$work/nv/CMakeLists.txt" <<'SRC'
cmake_minimum_required(VERSION 3.20)
project(nvuser LANGUAGES CXX)
find_package(NVSHMEM REQUIRED)
# As real build files do: the variables for the includes, the target only as an INTERFACE link.
add_library(nvdeps INTERFACE)
target_link_libraries(nvdeps INTERFACE nvshmem::nvshmem_host)
add_executable(nvhost nvshmem_host.cpp)
target_include_directories(nvhost PRIVATE ${NVSHMEM_INCLUDE_DIR})
target_link_libraries(nvhost PRIVATE nvdeps)
SRC
cmake -S "$work/nv" -B "$work/nv/build" -DCMAKE_PREFIX_PATH="$prefix" > "$work/nv.log" 2>&1 ||
  { cat "$work/nv.log"; exit 1; }
cmake --build "$work/nv/build" > "$work/nv-build.log" 2>&1 || { cat "$work/nv-build.log"; exit 1; }
out=$("$prefix/bin/gshmemrun" -n 2 "$work/nv/build/nvhost")
grep -q "nvshmem host program: 2 PEs OK" <<< "$out" || { echo "unexpected output: $out"; exit 1; }

step "g++ nvshmem_host.cpp \$(pkg-config --cflags --libs nvshmem)"
flags=$(PKG_CONFIG_PATH=$pcdir pkg-config --cflags --libs nvshmem)
g++ -std=c++17 "$compat/nvshmem_host.cpp" $flags -o "$work/nv_pc"
out=$("$prefix/bin/gshmemrun" -n 3 "$work/nv_pc")
grep -q "nvshmem host program: 3 PEs OK" <<< "$out" || { echo "unexpected output: $out"; exit 1; }

nvcc=${CUDACXX:-/usr/local/cuda/bin/nvcc}
if [[ -x $nvcc && -n $(find "$prefix" -name 'libgshmem_device.a' | head -1) ]]; then
  step "find_package(NVSHMEM): a CUDA program, -rdc=true, device-linked for sm_90a"
  mkdir -p "$work/nvcu"
  cp "$compat/nvshmem_kernel.cu" "$work/nvcu/"
  cat > "$work/nvcu/CMakeLists.txt" <<'SRC'
cmake_minimum_required(VERSION 3.24)
project(nvcuda LANGUAGES CXX CUDA)
find_package(NVSHMEM REQUIRED)
add_executable(nvkernel nvshmem_kernel.cu)
set_target_properties(nvkernel PROPERTIES CUDA_SEPARABLE_COMPILATION ON CUDA_ARCHITECTURES 90a)
target_link_libraries(nvkernel PRIVATE nvshmem::nvshmem_device nvshmem::nvshmem_host)
SRC
  cmake -S "$work/nvcu" -B "$work/nvcu/build" -DCMAKE_PREFIX_PATH="$prefix" \
        -DCMAKE_CUDA_COMPILER="$nvcc" > "$work/nvcu.log" 2>&1 || { cat "$work/nvcu.log"; exit 1; }
  cmake --build "$work/nvcu/build" > "$work/nvcu-build.log" 2>&1 ||
    { cat "$work/nvcu-build.log"; exit 1; }
  [[ -x $work/nvcu/build/nvkernel ]] || { echo "no nvkernel built"; exit 1; }
fi

if [[ -f $build/python/gshmem/__init__.py ]]; then
  step "import gshmem from the prefix (PYTHONPATH=\$prefix/lib/python3/dist-packages)"
  cat > "$work/sum.py" <<'SRC'
import torch, gshmem
gshmem.init()
x = gshmem.zeros(1, dtype=torch.int64)
gshmem.atomic_add(x, gshmem.my_pe(), 0)
gshmem.barrier_all()
n = gshmem.n_pes()
if gshmem.my_pe() == 0: print(f"sum {x.item()} want {n * (n - 1) // 2}")
gshmem.free(x)
SRC
  expect_sum 2 "$(PYTHONPATH=$prefix/lib/python3/dist-packages "$prefix/bin/gshmemrun" -n 2 \
                  /usr/bin/python3 "$work/sum.py")"
fi
echo "install test: OK"
