#!/usr/bin/env bash
# Measures expand.cu (ptxas-expanded arithmetic, vote/match) and stscatter.cu (scattered stores) on
# the local GPU: what produced the expand/stg rows of h100_measured.csv and h100_expand_ncu.csv.
#   validation/sm/expand_hw.sh [OUTDIR]     (env: BIN=dir with prebuilt expand/stscatter, RUNS=3, REPS=7)
# The 2026-11-24 run used binaries built on the CPU machine (nvcc 13.0 -O3 -cudart shared
# -arch=sm_90; expand.cu takes ~3 minutes to compile) and also ran `ncu --section WarpStateStats`
# on the arith and warp_intrinsics workloads (docs/validation-sm.md).
# Writes OUTDIR/expand_runK.csv, stscatter_runK.csv, merged expand.csv / stscatter.csv, ncu_inst.csv
# and ncu_pipes.csv (Nsight Compute on each chain's one-warp kernel).
set -uo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
out="${1:-hw_expand}" RUNS="${RUNS:-3}" REPS="${REPS:-7}"
mkdir -p "$out"
bin="${BIN:-$out/bin}"
if [ -z "${BIN:-}" ]; then
    mkdir -p "$bin"
    for b in expand stscatter; do nvcc -O3 -cudart shared -arch=sm_90 -o "$bin/$b" "$here/$b.cu" || exit 1; done
fi
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,persistence_mode --format=csv > "$out/env.txt"
for b in expand stscatter; do
    runs=()
    for k in $(seq 1 "$RUNS"); do
        "$bin/$b" --reps "$REPS" > "$out/${b}_run$k.csv"; echo "$b run $k: exit $?" >> "$out/env.txt"
        runs+=("$out/${b}_run$k.csv")
    done
    python3 "$here/merge_runs.py" "${runs[@]}" > "$out/$b.csv"
done
pipes=alu,fma,fmaheavy,xu,fp64,cbu,adu,uniform
ncu --kernel-name regex:k_dep --metrics smsp__inst_executed.sum --csv "$bin/expand" --reps 1 > "$out/ncu_inst.csv" 2>&1
ncu --kernel-name regex:k_dep --metrics "$(echo $pipes | sed 's/\([a-z]*\)/smsp__inst_executed_pipe_\1.sum/g')" \
    --csv "$bin/expand" --reps 1 > "$out/ncu_pipes.csv" 2>&1
