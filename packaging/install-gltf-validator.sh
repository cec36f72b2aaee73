#!/usr/bin/env bash
# Installs the Khronos glTF validator (npm package gltf-validator, pinned) for the export tests.
# Usage: packaging/install-gltf-validator.sh [DIR]
#   DIR defaults to ${XDG_CACHE_HOME:-~/.cache}/terrabit/gltf-validator; the tests pass a folder
#   in the build tree. Node.js and npm come from Debian (nodejs, npm) when missing.
# Idempotent: does nothing when DIR already holds the pinned version. Fails (exit 1) with a
# message when npm cannot reach its registry: the export tests then fail, they never skip.
set -euo pipefail

version="2.0.0-dev.3.10"
dir="${1:-${XDG_CACHE_HOME:-$HOME/.cache}/terrabit/gltf-validator}"
marker="$dir/node_modules/gltf-validator/package.json"

if [ -f "$marker" ] && grep -q "\"version\": *\"$version\"" "$marker"; then
  echo "install-gltf-validator: gltf-validator $version present in $dir"
  exit 0
fi

if ! command -v node >/dev/null 2>&1 || ! command -v npm >/dev/null 2>&1; then
  echo "install-gltf-validator: installing Debian nodejs and npm"
  sudo=""
  if [ "$(id -u)" -ne 0 ]; then
    if command -v sudo >/dev/null 2>&1; then sudo="sudo"; else
      echo "install-gltf-validator: not root and no sudo: install nodejs and npm by hand" >&2
      exit 1
    fi
  fi
  export DEBIAN_FRONTEND=noninteractive
  $sudo apt-get update -qq || [ -n "$(ls -A /var/lib/apt/lists 2>/dev/null | grep -v lock)" ]
  $sudo apt-get install -y -qq --no-install-recommends nodejs npm
fi

# Install beside the destination, then move it into place, so an interrupted download never
# leaves a half-installed validator that the check above would accept.
mkdir -p "$(dirname "$dir")"
staging="$(mktemp -d "$dir.staging.XXXXXX")"
trap 'rm -rf "$staging"' EXIT
registry="$(npm config get registry 2>/dev/null || echo "the npm registry")"
if ! npm install --prefix "$staging" --no-audit --no-fund --no-save --loglevel=error \
       "gltf-validator@$version" >"$staging.log" 2>&1; then
  cat "$staging.log" >&2 || true
  rm -f "$staging.log"
  echo "install-gltf-validator: npm could not install gltf-validator@$version from $registry." >&2
  echo "install-gltf-validator: the export tests need it; check the network or proxy settings (npm config)." >&2
  exit 1
fi
rm -f "$staging.log"
rm -rf "$dir"
mv "$staging" "$dir"
trap - EXIT
echo "install-gltf-validator: gltf-validator $version installed in $dir"
