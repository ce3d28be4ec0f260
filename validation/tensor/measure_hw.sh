#!/usr/bin/env bash
# The hardware run behind validation/tensor/h100_measured.csv and the expected outputs of
# workloads/gemm_pipelined, tensor_gemm and tensor_wmma: builds them as a user does
# (nvcc -cudart shared -arch=sm_80; on a newer GPU the driver JIT-compiles the compute_80 PTX) plus
# an sm_90 build of the mma benchmark, runs everything once and writes into OUTDIR:
#   env.txt                  date, GPU, driver, clocks, nvcc, exit codes
#   <workload>.out           stdout of the CI-size run of each workload
#   gemm_big.out             gemm_pipelined at 4096^3 and at the simulator benchmark size, timed
#   h100_mma_sm80.csv        validation/tensor/mma_bench (sm_80 build, JIT), --reps 7
#   h100_mma_sm90.csv        the same built for sm_90
#   ncu_gemm.txt             Nsight Compute sections of both gemm_pipelined kernels at 1536 x 2304 x 1024
# Usage (from the repository root): validation/tensor/measure_hw.sh [OUTDIR]
set -uo pipefail
out="${1:-hw_out}"
mkdir -p "$out"
b="$(mktemp -d)"
env="$out/env.txt"
{
    echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
    nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,clocks.mem,power.limit,persistence_mode --format=csv
    nvcc --version | tail -2
} > "$env" 2>&1
for w in gemm_pipelined tensor_gemm tensor_wmma; do
    nvcc -cudart shared -arch=sm_80 -o "$b/$w" "workloads/$w/$w.cu" >> "$env" 2>&1 &
done
# ptxas prints an advisory per mma.sp (".sp::ordered_metadata should be used"); not an error.
nvcc -O3 -cudart shared -arch=sm_80 -o "$b/mma_bench80" validation/tensor/mma_bench.cu > /dev/null 2>"$b/mb80.log" &
nvcc -O3 -cudart shared -arch=sm_90 -o "$b/mma_bench90" validation/tensor/mma_bench.cu > /dev/null 2>"$b/mb90.log" &
wait
grep -v Advisory "$b/mb80.log" "$b/mb90.log" >> "$env"
for w in gemm_pipelined tensor_gemm tensor_wmma; do
    timeout 120 "$b/$w" > "$out/$w.out" 2>> "$env"
    echo "$w: exit $?" >> "$env"
done
{
    timeout 120 "$b/gemm_pipelined" 4096 4096 4096 --time
    echo "exit $?"
    timeout 120 "$b/gemm_pipelined" 1536 2304 1024 --time
    echo "exit $?"
} > "$out/gemm_big.out" 2>&1
nvidia-smi --query-gpu=clocks.sm,clocks.max.sm --format=csv >> "$env" 2>&1
timeout 150 "$b/mma_bench80" --reps 7 > "$out/h100_mma_sm80.csv" 2>> "$env"
echo "mma_bench sm_80: exit $?" >> "$env"
timeout 150 "$b/mma_bench90" --reps 7 > "$out/h100_mma_sm90.csv" 2>> "$env"
echo "mma_bench sm_90: exit $?" >> "$env"
# Nsight Compute on the simulator benchmark's GEMM size: warp states, pipe utilisation, issue
# slots, to set beside the simulator's report (bench/tensor_throughput.sh --gpu h100).
if command -v ncu > /dev/null; then
    timeout 150 ncu --section SpeedOfLight --section WarpStateStats --section ComputeWorkloadAnalysis \
        --section SchedulerStats --section Occupancy \
        --metrics sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_active,sm__inst_executed_pipe_tensor_op_hmma.sum,smsp__inst_executed.sum,sm__cycles_elapsed.avg \
        -k regex:gemm_ "$b/gemm_pipelined" 1536 2304 1024 --no-check > "$out/ncu_gemm.txt" 2>&1
    echo "ncu: exit $?" >> "$env"
fi
echo "end: $(date -u +%Y-%m-%dT%H:%M:%SZ)" >> "$env"
rm -rf "$b"
