#!/usr/bin/env bash
# The main job: build warpsim and run it on the bundled workload for the default machine (A100).
# Today the simulator's front end is what exists: it parses the workload's PTX and summarises its
# kernels. Later layers turn this into a simulated run (see README.md).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/build.sh
./build/warpsim ptx check workloads/vecadd/vecadd.ptx
