#!/usr/bin/env bash
# Installs every Debian package Terrabit's build, tests and benchmarks need, only when missing.
# Idempotent; works as root or through sudo. Usage: packaging/install-deps.sh
set -euo pipefail

packages=(
  # toolchain
  build-essential cmake ninja-build pkg-config git
  # core
  libgdal-dev gdal-bin libgeos-dev nlohmann-json3-dev libyaml-cpp-dev libcli11-dev libpng-dev
  # render and export
  libopenscenegraph-dev openscenegraph libtinygltf-dev libstb-dev libtinyobjloader-dev
  libdeflate-dev  # compresses the osgb files (render/src/scene_file.cpp)
  # ui
  qt6-base-dev qt6-base-dev-tools libqt6opengl6-dev libgl-dev libglx-mesa0 libgl1-mesa-dri
  libqt6svg6  # the SVG icon engine and image plugin: the app icon is resources/icons/terrabit.svg
  # packaging: the .deb, its dependency scan, desktop/AppStream validation, the man page
  dpkg-dev file desktop-file-utils appstream help2man
  # scale-out: terrabit-cli bake --mpi (OpenMPI; found by CMake, built when present)
  libopenmpi-dev openmpi-bin
  # tests and benchmarks
  libgtest-dev libgmock-dev googletest libbenchmark-dev xvfb xauth
  # fuzzing (tests/fuzz): clang with libFuzzer and the sanitizer runtimes
  clang libclang-rt-14-dev
)

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done

if [ ${#missing[@]} -eq 0 ]; then
  echo "install-deps: all ${#packages[@]} packages present"
  exit 0
fi

echo "install-deps: installing ${missing[*]}"
sudo=""
if [ "$(id -u)" -ne 0 ]; then
  if command -v sudo >/dev/null 2>&1; then sudo="sudo"; else
    echo "install-deps: not root and no sudo: install these by hand: ${missing[*]}" >&2
    exit 1
  fi
fi
export DEBIAN_FRONTEND=noninteractive
# A fresh machine has no package lists yet; a failed update on a machine that has them is fine.
$sudo apt-get update -qq || [ -n "$(ls -A /var/lib/apt/lists 2>/dev/null | grep -v lock)" ]
$sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
