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
{
    echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
    echo "host: $(uname -srm)"
    nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,clocks.mem,clocks.max.mem,power.limit,persistence_mode,memory.total --format=csv
    nvcc --version | tail -2
    echo "== nvidia-smi -q -d CLOCK (before)"
    nvidia-smi -q -d CLOCK
} > "$out/env.txt" 2>&1
nvidia-smi --query-gpu=timestamp,clocks.sm,clocks.mem --format=csv -lms 200 > "$out/clock_samples.csv" 2>&1 &
sampler=$!
"$here/run.sh" --arch "$ARCH" --reps "$REPS" --build-dir "$out/bin" --sass "$out/sass" "$@" > "$out/run.csv" 2> "$out/run.stderr"
echo "run: exit $?" >> "$out/env.txt"
kill "$sampler" 2>/dev/null
wait "$sampler" 2>/dev/null
{
    echo "== nvidia-smi -q -d CLOCK (after)"
    nvidia-smi -q -d CLOCK
} >> "$out/env.txt" 2>&1
rm -rf "$out/bin"
