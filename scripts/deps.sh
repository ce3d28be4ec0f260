#!/usr/bin/env bash
# Installs the Debian packages warpsim needs to build and test, when they are missing.
# Usage: scripts/deps.sh [--fuzz]   (--fuzz adds clang and its sanitizer runtimes for libFuzzer)
# Without root, it prints the apt-get command to run instead.
set -euo pipefail
pkgs=(cmake ninja-build g++ libfmt-dev libcli11-dev libgtest-dev libbenchmark-dev libtomlplusplus-dev)
if [[ "${1:-}" == "--fuzz" ]]; then
  pkgs+=(clang libclang-rt-14-dev)
fi
missing=()
for p in "${pkgs[@]}"; do
  dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
done
[[ ${#missing[@]} -eq 0 ]] && exit 0
if [[ $(id -u) -ne 0 ]]; then
  echo "warpsim needs these Debian packages: ${missing[*]}" >&2
  echo "install them with: sudo apt-get install -y ${missing[*]}" >&2
  exit 1
fi
echo "installing: ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
