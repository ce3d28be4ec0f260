#!/usr/bin/env bash
# Measures the memory microbenchmarks on the local GPU (what produced h100_measured.csv) and records
# the conditions. Writes into OUTDIR (default ./hw_out):
#   env.txt            nvidia-smi, nvcc, driver, `nvidia-smi -q -d CLOCK` before and after
#   clock_samples.csv  SM / memory clock sampled every 200 ms while the benchmarks run
#   run.csv            validation/mem/run.sh --arch ARCH --reps REPS
#   sass/              cuobjdump -sass of each program
# Usage: validation/mem/measure_hw.sh [OUTDIR] [bench...]   (env: ARCH=sm_90 REPS=5)
set -uo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
out="${1:-hw_out}"; shift || true
ARCH="${ARCH:-sm_90}" REPS="${REPS:-5}"
mkdir -p "$out/sass" "$out/bin"
# shellcheck source-path=SCRIPTDIR source=../common/hw_lib.sh
. "$here/../common/hw_lib.sh"
hw_env_begin "$out" \
    name,driver_version,clocks.sm,clocks.max.sm,clocks.mem,clocks.max.mem,power.limit,persistence_mode,memory.total
hw_sampler_start "$out" 200
"$here/run.sh" --arch "$ARCH" --reps "$REPS" --build-dir "$out/bin" --sass "$out/sass" "$@" > "$out/run.csv" 2> "$out/run.stderr"
echo "run: exit $?" >> "$out/env.txt"
hw_sampler_stop
hw_env_end "$out"
rm -rf "$out/bin"
