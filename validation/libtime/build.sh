#!/usr/bin/env bash
# Builds the library programs of list.txt as a user would (nvcc -cudart shared -arch=sm_80 -O2, plus
# the library they call) into OUTDIR (default build-hw/libtime): the same binaries run on the H100
# (the driver JITs the compute_80 PTX of cub/thrust; cuBLAS and cuFFT run their own SASS) and in the
# simulator.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"; root="$here/../.."
out="${1:-$root/build-hw/libtime}"
mkdir -p "$out"
for w in $(grep -v '^#' "$here/list.txt"); do
  libs=""; case $w in lt_cublas) libs=-lcublas;; lt_cufft) libs=-lcufft;; esac
  src="$here/$w.cu"
  [[ -x "$out/$w" && "$out/$w" -nt "$src" ]] || nvcc -cudart shared -arch=sm_80 -O2 -o "$out/$w" "$src" $libs
done
