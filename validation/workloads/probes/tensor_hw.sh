#!/usr/bin/env bash
# On the H100: why the small mma.sync / ldmatrix workloads run slower in the model (docs/validation-workloads.md).
#   B=build-probe validation/workloads/probes/tensor_hw.sh OUTDIR
# (2026-11-24 run: the script and the binaries below copied into an ignored build-probe/ and
# carried to the H100 host; results in ../h100_ifetch_measured.csv, ../h100_tensor_stalls_ncu.txt,
# ../mma_ptx_sm90_sass.txt and tensor_hw_ncu/)
# B holds: ifetch (probes/ifetch.cu, nvcc -cudart shared -arch=sm_80), the corpus binaries mma_ptx,
# tensor_gemm, wmma_gemm, tensor_wmma, gemm_pipelined (validation/workloads/build.sh), and
# *_sm90.cubin (nvcc -cubin -arch=sm_90 -O3 of mma_ptx.cu, tensor_gemm.cu, ifetch.cu) for their SASS.
# Writes OUTDIR/ifetch.csv (3 runs), OUTDIR/*.sass, OUTDIR/ncu_<workload>.csv (Nsight Compute: every
# warp-stall reason per issued instruction, cycles, instructions; same cache/clock control as
# measure_hw.sh), OUTDIR/env.txt.
set -uo pipefail
B="$(realpath "${B:-build-probe}")"; out="${1:-tensor_hw_out}"; mkdir -p "$out"
{ nvidia-smi; date -u; } > "$out/env.txt" 2>&1
for i in 1 2 3; do timeout 20 "$B/ifetch" >> "$out/ifetch.csv" 2>&1; done
CUOBJ=$(command -v cuobjdump || echo /usr/local/cuda/bin/cuobjdump)
for c in "$B"/*_sm90.cubin; do timeout 20 "$CUOBJ" -sass "$c" > "$out/$(basename "$c" .cubin).sass" 2>&1; done
m='regex:smsp__average_warps_issue_stalled_.*_per_issue_active\.ratio$,smsp__average_warp_latency_per_inst_issued.ratio,sm__cycles_elapsed.max,smsp__inst_executed.sum,gpu__time_duration.sum'
for w in mma_ptx tensor_gemm wmma_gemm tensor_wmma gemm_pipelined ifetch; do
  ( cd "$out" && timeout 30 ncu --csv --print-units base --print-kernel-base mangled --cache-control all \
      --clock-control none --launch-count 24 --metrics "$m" "$B/$w" > "ncu_$w.csv" 2> "ncu_$w.err" ) || true
  echo "$w: exit $?" >> "$out/env.txt"
done
