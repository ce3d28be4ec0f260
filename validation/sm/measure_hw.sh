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
# shellcheck source-path=SCRIPTDIR source=../common/hw_lib.sh
. "$here/../common/hw_lib.sh"
hw_env_begin "$out" name,driver_version,clocks.sm,clocks.max.sm,clocks.mem,power.limit,persistence_mode \
    name,clocks.sm,clocks.max.sm
hw_sampler_start "$out" 100

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

hw_sampler_stop
hw_env_end "$out"
python3 "$here/merge_runs.py" "${runs[@]}" > "$out/measured.csv"
rm -rf "$out/bin" "$out/bin80"
