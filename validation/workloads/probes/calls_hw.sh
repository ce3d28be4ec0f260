#!/usr/bin/env bash
# The H100 run of calls.cu: the probe itself (5 launches of each device_calls variant), then Nsight
# Compute on its first three calls_kernel launches (no printf / printf / printf just after
# cudaDeviceSetLimit(cudaLimitStackSize, 4096)): warp stall reasons, instruction mix and the
# local-memory traffic. Writes into OUTDIR (default ./calls_out).
set -uo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
out="${1:-calls_out}"
mkdir -p "$out"
bin=$(mktemp -d)
{
  nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.sm --format=csv
  nvcc --version | tail -1
  date -u
  nvcc -O3 -cudart shared -arch=sm_80 -o "$bin/calls" "$here/calls.cu"
} > "$out/env.txt" 2>&1
timeout 30 "$bin/calls" 5 > "$out/calls.csv" 2>> "$out/env.txt"
echo "== probe exit $? $(date -u +%T)" >> "$out/env.txt"
timeout 40 ncu --csv --print-units base --cache-control all --clock-control none -k regex:calls_kernel \
  --launch-count 3 --section WarpStateStats --section InstructionStats --section SchedulerStats \
  "$bin/calls" 1 > "$out/ncu_sections.csv" 2>> "$out/env.txt"
echo "== ncu sections exit $? $(date -u +%T)" >> "$out/env.txt"
ncu --query-metrics --chip gh100 > "$out/metrics_all.txt" 2>&1
want="smsp__inst_executed smsp__inst_executed_op_local_ld smsp__inst_executed_op_local_st
l1tex__t_sectors_pipe_lsu_mem_local_op_ld l1tex__t_sectors_pipe_lsu_mem_local_op_st
l1tex__t_sectors_pipe_lsu_mem_local_op_ld_lookup_hit l1tex__t_requests_pipe_lsu_mem_local_op_ld
l1tex__t_requests_pipe_lsu_mem_local_op_st lts__t_sectors_op_write lts__t_sectors_op_read
smsp__inst_executed_op_branch sm__cycles_elapsed gpu__time_duration"
m=""
for b in $want; do
  if grep -qw "$b" "$out/metrics_all.txt"; then
    case $b in gpu__time_duration|sm__cycles_elapsed) m="$m,$b.max" ;; *) m="$m,$b.sum" ;; esac
  fi
done
timeout 30 ncu --csv --print-units base --cache-control all --clock-control none -k regex:calls_kernel \
  --launch-count 3 --metrics "${m#,}" "$bin/calls" 1 > "$out/ncu_metrics.csv" 2>> "$out/env.txt"
echo "== ncu metrics exit $? $(date -u +%T)" >> "$out/env.txt"
gzip -f "$out/metrics_all.txt"
