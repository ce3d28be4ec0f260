#!/usr/bin/env bash
# Builds the corpus workloads of list.txt as a user would (nvcc -cudart shared -arch=sm_80), into
# OUTDIR (default build-hw/workloads, git-ignored): the same binaries run on hardware (the driver
# JITs their compute_80 PTX for the GPU at hand) and in the simulator.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"; root="$here/../.."
out="${1:-$root/build-hw/workloads}"
mkdir -p "$out"
for w in $(grep -v '^#' "$here/list.txt"); do
  src="$root/workloads/$w/$w.cu"
  [[ -x "$out/$w" && "$out/$w" -nt "$src" ]] || nvcc -cudart shared -arch=sm_80 -o "$out/$w" "$src"
done
