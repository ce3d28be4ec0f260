#!/usr/bin/env bash
# Per-kernel Nsight Compute metrics of the library programs on the local GPU (what produced
# h100_ncu.csv and h100_stalls_ncu.csv here). The same settings as validation/workloads/measure_hw.sh:
# kernel replay, caches flushed before each kernel (--cache-control all), clocks left to the GPU
# (--clock-control none), at most 40 kernels per program; a second pass adds the warp-stall reasons
# per issued instruction and the issue-slot utilisation. Binaries from build.sh (BIN, default
# build-hw/libtime). Writes OUTDIR/<program>.csv, <program>_stalls.csv, <program>.out, env.txt.
set -uo pipefail
here="$(cd "$(dirname "$0")" && pwd)"; root="$here/../.."
out="${1:-hw_out}"; BIN="${BIN:-$root/build-hw/libtime}"
mkdir -p "$out"
metrics=gpu__time_duration.sum,sm__cycles_elapsed.max,gpc__cycles_elapsed.max,smsp__inst_executed.sum,dram__bytes_read.sum,dram__bytes_write.sum,lts__t_sectors_op_read.sum,lts__t_sectors_op_write.sum,lts__t_sector_hit_rate.pct,l1tex__t_sector_hit_rate.pct,sm__warps_active.avg.pct_of_peak_sustained_active
stalls='regex:smsp__average_warps_issue_stalled_.*_per_issue_active\.ratio$,smsp__issue_active.avg.pct_of_peak_sustained_active,smsp__inst_executed.sum,sm__cycles_elapsed.max,launch__registers_per_thread,launch__grid_size,launch__block_size,launch__shared_mem_per_block_static,launch__shared_mem_per_block_dynamic,launch__occupancy_limit_registers'
{ nvidia-smi; nvidia-smi -q -d CLOCK; ncu --version; date -u; } > "$out/env.txt" 2>&1
for w in $(grep -v '^#' "$here/list.txt"); do
  ( cd "$out" && "$BIN/$w" > "$w.out" 2>&1; echo "$w run: exit $?" >> env.txt
    timeout 150 ncu --csv --print-units base --print-kernel-base mangled --cache-control all \
      --clock-control none --launch-count 40 --metrics "$metrics" "$BIN/$w" > "$w.csv" 2> "$w.err"
    echo "$w ncu: exit $?" >> env.txt
    timeout 150 ncu --csv --print-units base --print-kernel-base mangled --cache-control all \
      --clock-control none --launch-count 40 --metrics "$stalls" "$BIN/$w" > "${w}_stalls.csv" 2>> "$w.err"
    echo "$w stalls: exit $?" >> env.txt )
done
nvidia-smi -q -d CLOCK >> "$out/env.txt" 2>&1
