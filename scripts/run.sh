#!/usr/bin/env bash
# The main job: build warpsim, build the bundled vector-add workload with nvcc as a user would
# (nvcc -arch=sm_80: nvcc's default static runtime, which reaches the simulator through its driver
# API), and run it unmodified on the simulated A100 with `warpsim run`. Without nvcc, it checks the
# workload's committed PTX instead.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/build.sh
if command -v nvcc >/dev/null 2>&1; then
  mkdir -p build/workloads
  nvcc -arch=sm_80 -o build/workloads/vecadd workloads/vecadd/vecadd.cu
  ./build/warpsim run --gpu a100 -- ./build/workloads/vecadd
else
  echo "nvcc not found: checking the committed PTX of the workload instead of running it" >&2
  ./build/warpsim ptx check workloads/vecadd/vecadd.ptx
fi
