#!/usr/bin/env bash
# Runs the tensor-core microbenchmark (mma_bench.cu) under the simulator on the a100 and h100
# machines and writes validation/tensor/sim_a100.csv and sim_h100.csv (compare with
# h100_measured.csv, which measure_hw.sh produced on the real H100).
#   validation/tensor/run.sh [WARPSIM]     (default: build/warpsim)
# The program is built as a user builds it (nvcc -cudart shared -arch=sm_80). If the simulator
# cannot load mma.sp, the benchmark is rebuilt without it (-DMMA_BENCH_NO_SP) and the CSV says so.
# The simulator is deterministic: --reps 1.
set -uo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
ws="${1:-$root/build/warpsim}"
[[ -x "$ws" ]] || { echo "run.sh: no warpsim at $ws (build it first)" >&2; exit 1; }
command -v nvcc >/dev/null || { echo "run.sh: nvcc not found" >&2; exit 77; }
b="$(mktemp -d)"
trap 'rm -rf "$b"' EXIT
# ptxas prints an advisory per mma.sp (".sp::ordered_metadata should be used"); not an error.
nvcc -O3 -cudart shared -arch=sm_80 -o "$b/mma_bench" "$here/mma_bench.cu" 2>/dev/null ||
    { echo "run.sh: nvcc failed" >&2; exit 1; }
status=0
for gpu in a100 h100; do
    csv="$here/sim_$gpu.csv"
    {
        echo "# validation/tensor/run.sh: $ws run --gpu $gpu --mode timing -- mma_bench --reps 1, $(date -u +%Y-%m-%dT%H:%M:%SZ)"
        echo "# nvcc: $(nvcc --version | grep -o "release .*")"
        echo "benchmark,metric,value,unit"
    } > "$csv"
    if ! "$ws" run -q --gpu "$gpu" --mode timing -- "$b/mma_bench" --reps 1 > "$b/out.csv" 2> "$b/err.txt"; then
        if grep -q "mma.sp\|m16n8k32.f32.f16" "$b/err.txt"; then
            [[ -x "$b/mma_bench_nosp" ]] ||
                nvcc -O3 -cudart shared -arch=sm_80 -DMMA_BENCH_NO_SP -o "$b/mma_bench_nosp" "$here/mma_bench.cu" 2>/dev/null
            echo "# mma.sp left out: the simulator could not load it ($(grep -m1 -o 'error: .*' "$b/err.txt" | cut -c1-160))" >> "$csv"
            "$ws" run -q --gpu "$gpu" --mode timing -- "$b/mma_bench_nosp" --reps 1 > "$b/out.csv" 2> "$b/err.txt" || status=1
        else
            status=1
        fi
    fi
    cat "$b/err.txt" >&2
    grep -v '^benchmark,' "$b/out.csv" >> "$csv"
    echo "wrote $csv"
done
exit $status
