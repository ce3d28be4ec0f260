#!/usr/bin/env bash
# Simulation speed of the timing model: simulated warp instructions per second of wall time (one
# core), on corpus workloads built with nvcc as a user builds them, in timing and functional mode.
#   bench/timing_speed.sh [workload...|memory|file.cu...]     (default: sgemm nbody mandelbrot)
#   A name with a '/' is a CUDA source file (e.g. tests/cudart/cuda_libs.cu: cub, thrust, curand).
#   `memory` is the memory-bound set of issue 6: saxpy reduce transpose_naive spmv_csr histogram
#   stencil3d. BENCH_REPS=N runs each N times and reports the fastest (the figures of a shared
#   machine vary by tens of percent from run to run).
# Needs build/warpsim (scripts/build.sh) and nvcc. Each program checks its own result, so a fast
# but wrong simulation fails instead of reporting a figure. sim_wall_s counts the kernels'
# simulation only (not the program's host code, PTX loading or building the GPU model).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
WS="$ROOT/build/warpsim"
OUT="${BENCH_OUT:-$ROOT/build/bench-timing}"
mkdir -p "$OUT"
[[ -x "$WS" ]] || { echo "build warpsim first: scripts/build.sh" >&2; exit 1; }
command -v nvcc >/dev/null || { echo "nvcc not found" >&2; exit 77; }
works=("$@")
[[ ${#works[@]} -eq 0 ]] && works=(sgemm nbody mandelbrot)
[[ "${works[*]}" == memory ]] && works=(saxpy reduce transpose_naive spmv_csr histogram stencil3d)
reps="${BENCH_REPS:-1}"
pin=()
command -v taskset >/dev/null 2>&1 && pin=(taskset -c "${BENCH_CPU:-0}")
echo "== $(uname -m), $(nproc) cores; load: $(cut -d' ' -f1-3 /proc/loadavg)"
printf '%-12s %-10s %14s %10s %14s %14s\n' workload mode warp_instrs sim_wall_s warp_instr/s sim_cycles
for w in "${works[@]}"; do
  src="$ROOT/workloads/$w/$w.cu"
  if [[ $w == */* ]]; then
    src="$(cd "$(dirname "$w")" && pwd)/$(basename "$w")"
    w=$(basename "$w" .cu)
  fi
  bin="$OUT/$w"
  [[ -x "$bin" && "$bin" -nt "$src" ]] || nvcc -cudart shared -arch=sm_80 -o "$bin" "$src"
  for mode in timing functional; do
    best=""
    for ((i = 0; i < reps; ++i)); do
      rep="$OUT/report-$w-$mode"
      rm -rf "$rep"
      t0=$(date +%s.%N)
      "${pin[@]}" "$WS" run --quiet --mode "$mode" --report "$rep" -- "$bin" > "$OUT/$w-$mode.out"
      t1=$(date +%s.%N)
      line=$(python3 - "$rep/report.json" "$w" "$mode" "$t0" "$t1" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
sim = r.get("simulation", r)
ks = sim["kernels"]
wi = sum(k["warp_instructions"] for k in ks)
cyc = sum((k.get("timing") or {}).get("cycles", 0) for k in ks)
# Seconds spent simulating kernels (not the program's own host code or PTX loading).
wall = sum(k.get("simulation_wall_s", 0) for k in ks) or (float(sys.argv[5]) - float(sys.argv[4]))
print(f"{sys.argv[2]:<12} {sys.argv[3]:<10} {wi:>14} {wall:>10.3f} {wi/wall:>14.0f} {cyc:>14}")
PY
)
      # Keep the fastest repetition (column 4: seconds).
      if [[ -z "$best" ]] || awk -v a="$(echo "$line" | awk '{print $4}')" -v b="$(echo "$best" | awk '{print $4}')" 'BEGIN{exit !(a < b)}'; then
        best="$line"
      fi
    done
    echo "$best"
  done
done
