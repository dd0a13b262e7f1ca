#!/usr/bin/env bash
# Installs what gshmem builds and tests with, from Debian packages. Does nothing when everything is
# already there. The CUDA toolkit is not installed here: it is optional (found at
# /usr/local/cuda when present).
set -euo pipefail
# The Python package (import gshmem) is built for /usr/bin/python3 with Debian's pybind11 and
# torch, and tested with pytest. ninja: the GPU run's generator, whose build file a test checks.
# clang-14 and libclang-rt-14-dev: the libFuzzer harnesses (fuzz/, scripts/fuzz.sh).
# python3-matplotlib: the compare scripts' --plot charts (perftest/common/plot.py).
packages=(cmake g++ make pkg-config python3 iproute2 libfabric-dev libhwloc-dev libpmix-dev
          libgtest-dev libibverbs-dev openmpi-bin libopenmpi-dev
          python3-dev pybind11-dev python3-pybind11 python3-torch python3-numpy python3-pytest
          python3-matplotlib ninja-build clang-14 libclang-rt-14-dev)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi
echo "Installing: ${missing[*]}"
sudo=""
if [ "$(id -u)" -ne 0 ]; then sudo="sudo"; fi
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq
$sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
