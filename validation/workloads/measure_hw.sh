#!/usr/bin/env bash
# Per-kernel Nsight Compute metrics of the corpus workloads on the local GPU (what produced
# h100_ncu.csv). Binaries from build.sh (BIN, default build-hw/workloads). Kernel replay, caches
# flushed before each kernel (ncu's default --cache-control all), clocks left to the GPU
# (--clock-control none: the boost clock the simulator's config uses), at most 40 kernels per
# program. Writes OUTDIR/<workload>.csv (ncu --csv) and OUTDIR/env.txt.
set -uo pipefail
here="$(cd "$(dirname "$0")" && pwd)"; root="$here/../.."
out="${1:-hw_out}"; BIN="${BIN:-$root/build-hw/workloads}"
mkdir -p "$out"
metrics=gpu__time_duration.sum,sm__cycles_elapsed.max,gpc__cycles_elapsed.max,smsp__inst_executed.sum,dram__bytes_read.sum,dram__bytes_write.sum,lts__t_sectors_op_read.sum,lts__t_sectors_op_write.sum,lts__t_sector_hit_rate.pct,l1tex__t_sector_hit_rate.pct,sm__warps_active.avg.pct_of_peak_sustained_active
{ nvidia-smi; nvidia-smi -q -d CLOCK; ncu --version; date -u; } > "$out/env.txt" 2>&1
for w in $(grep -v '^#' "$here/list.txt"); do
  ( cd "$out" && timeout 120 ncu --csv --print-units base --print-kernel-base mangled --cache-control all \
      --clock-control none --launch-count 40 --metrics "$metrics" "$BIN/$w" > "$w.csv" 2> "$w.err" )
  echo "$w: exit $?" >> "$out/env.txt"
done
nvidia-smi -q -d CLOCK >> "$out/env.txt" 2>&1
