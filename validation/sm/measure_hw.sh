#!/usr/bin/env bash
# Measures the SM microbenchmarks on the local GPU (what produced h100_measured.csv) and records the
# conditions. Writes everything into OUTDIR (default ./hw_out):
#   env.txt                nvidia-smi, nvcc, driver, clocks (nvidia-smi -q -d CLOCK before and after)
#   clock_samples.csv      SM clock sampled every 100 ms while the benchmarks run
#   run1.csv .. runK.csv   validation/sm/run.sh --arch ARCH --reps REPS (K = RUNS, after one warm-up run)
#   sm80build.csv          one run of the -arch=sm_80 build (on a newer GPU: JIT from compute_80 PTX)
#   sass/                  cuobjdump -sass of each program
#   measured.csv           per-metric median over run1..runK (merge_runs.py)
# Usage: validation/sm/measure_hw.sh [OUTDIR] (env: ARCH=sm_90 REPS=7 RUNS=3)
set -uo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
out="${1:-hw_out}"
ARCH="${ARCH:-sm_90}" REPS="${REPS:-7}" RUNS="${RUNS:-3}"
mkdir -p "$out/sass" "$out/bin" "$out/bin80"
{
    echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
    echo "host: $(uname -srm)"
    nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,clocks.mem,power.limit,persistence_mode --format=csv
    nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm --format=csv
    nvcc --version | tail -2
    echo "== nvidia-smi -q -d CLOCK (before)"
    nvidia-smi -q -d CLOCK
} > "$out/env.txt" 2>&1

nvidia-smi --query-gpu=timestamp,clocks.sm,clocks.mem --format=csv -lms 100 > "$out/clock_samples.csv" 2>&1 &
sampler=$!

"$here/run.sh" --arch "$ARCH" --reps "$REPS" --build-dir "$out/bin" --sass "$out/sass" > "$out/warmup.csv"
echo "warm-up run: exit $?" >> "$out/env.txt"
runs=()
for k in $(seq 1 "$RUNS"); do
    "$here/run.sh" --arch "$ARCH" --reps "$REPS" --build-dir "$out/bin" > "$out/run$k.csv"
    echo "run $k: exit $?" >> "$out/env.txt"
    runs+=("$out/run$k.csv")
done
"$here/run.sh" --arch sm_80 --reps "$REPS" --build-dir "$out/bin80" --sass "$out/sass" > "$out/sm80build.csv"
echo "sm_80 build run: exit $?" >> "$out/env.txt"

kill "$sampler" 2>/dev/null
wait "$sampler" 2>/dev/null
{
    echo "== nvidia-smi -q -d CLOCK (after)"
    nvidia-smi -q -d CLOCK
} >> "$out/env.txt" 2>&1
python3 "$here/merge_runs.py" "${runs[@]}" > "$out/measured.csv"
rm -rf "$out/bin" "$out/bin80"
