#!/usr/bin/env bash
# The library programs in the simulator, per kernel, as validation/workloads/run_sim.sh does it for
# the corpus (L2 flushed before every kernel, first 40 kernels, CSV on stdout):
#   validation/libtime/run_sim.sh [--gpu h100] > validation/libtime/sim_h100.csv
here="$(cd "$(dirname "$0")" && pwd)"; root="$here/../.."
LIST="$here/list.txt" BIN="${BIN:-$root/build-hw/libtime}" exec "$here/../workloads/run_sim.sh" "$@"
