#!/usr/bin/env bash
# On the H100: thrust_sort's cub DeviceRadixSortSingleTileKernel (kernels 5, 6, 9 of the workload
# table): warp-stall reasons per issued instruction (as tensor_hw.sh), and for the first one the
# executed SASS per instruction and per opcode (Nsight Compute source page, InstructionStats).
#   B=build-hw/workloads OUT=outdir validation/workloads/probes/thrust_singletile_hw.sh
# (2026-11-24: run on the H100 from a copy in the repository root's devprobe-outl2/, B the default;
# summary in ../h100_thrust_singletile_ncu.txt)
set -u
out="${OUT:-out}"; mkdir -p "$out"; B="${B:-../build-hw/workloads}"
{ nvidia-smi; date -u; ncu --version; } > "$out/env.txt" 2>&1
m='regex:smsp__average_warps_issue_stalled_.*_per_issue_active\.ratio$,smsp__average_warp_latency_per_inst_issued.ratio,sm__cycles_elapsed.max,smsp__inst_executed.sum,gpu__time_duration.sum'
timeout 150 ncu --csv --print-units base --print-kernel-base mangled --cache-control all --clock-control none \
  -k regex:SingleTile --metrics "$m" "$B/thrust_sort" > "$out/ncu_thrust_singletile_stalls.csv" 2> "$out/err_stalls.txt"
echo "stalls: $?" >> "$out/env.txt"
timeout 200 ncu --cache-control all --clock-control none -k regex:RadixSortSingleTile -c 1 \
  --section InstructionStats --section WarpStateStats --section SourceCounters --section SchedulerStats \
  -f -o "$out/rs5" "$B/thrust_sort" > "$out/log_rep.txt" 2>&1
echo "report: $?" >> "$out/env.txt"
timeout 100 ncu -i "$out/rs5.ncu-rep" --page source --csv --print-source sass > "$out/rs5_source_sass.csv" 2> "$out/err_src.txt"
echo "source: $?" >> "$out/env.txt"
timeout 100 ncu -i "$out/rs5.ncu-rep" --page details --print-details all > "$out/rs5_details.txt" 2>&1
echo "details: $?" >> "$out/env.txt"
cd "$out" && tar czf thrust_singletile.tgz env.txt ncu_thrust_singletile_stalls.csv err_stalls.txt log_rep.txt rs5_source_sass.csv err_src.txt rs5_details.txt rs5.ncu-rep 2>/dev/null
ls -la; find . -maxdepth 1 -type f ! -name thrust_singletile.tgz -delete; ls -la
