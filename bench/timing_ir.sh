#!/usr/bin/env bash
# Host instructions the timing model executes per simulated warp instruction, counted by
# callgrind: unlike wall-clock seconds, the count does not depend on what else the machine runs,
# so it compares two builds on a shared machine (it does not see cache misses, which wall time
# does: bench/timing_speed.sh gives that side).
#   bench/timing_ir.sh [workload...|memory]     (default: memory, the set of bench/timing_speed.sh)
# Only instructions inside timing::Gpu::run (the simulation of the kernels: building the SMs,
# dispatch, the clock loop, draining, statistics) are counted, not the program's host code or PTX
# loading. Needs valgrind, nvcc and build/warpsim; the programs are built as timing_speed.sh
# builds them (build/bench-timing).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
WS="${WARPSIM:-$ROOT/build/warpsim}"
OUT="${BENCH_OUT:-$ROOT/build/bench-timing}"
mkdir -p "$OUT"
command -v valgrind >/dev/null || { echo "valgrind not found" >&2; exit 77; }
works=("$@")
[[ ${#works[@]} -eq 0 || "${works[*]}" == memory ]] && works=(saxpy reduce transpose_naive spmv_csr histogram stencil3d)
printf '%-16s %14s %16s %14s\n' workload warp_instrs Ir_in_Gpu::run Ir/warp_instr
for w in "${works[@]}"; do
  src="$ROOT/workloads/$w/$w.cu"
  bin="$OUT/$w"
  [[ -x "$bin" && "$bin" -nt "$src" ]] || nvcc -cudart shared -arch=sm_80 -o "$bin" "$src"
  tmp=$(mktemp -d)
  valgrind --tool=callgrind --trace-children=yes --toggle-collect='warpsim::timing::Gpu::run*' \
    --callgrind-out-file="$tmp/cg.%p" "$WS" run --quiet --mode timing --report "$tmp/rep" -- "$bin" >/dev/null 2>&1
  ir=0
  for f in "$tmp"/cg.*; do
    n=$(awk '/^totals:/ {print $2}' "$f")
    ir=$((ir + ${n:-0}))
  done
  wi=$(python3 -c "import json,sys; r=json.load(open(sys.argv[1])); print(sum(k['warp_instructions'] for k in r['kernels']))" "$tmp/rep/report.json")
  printf '%-16s %14d %16d %14.0f\n' "$w" "$wi" "$ir" "$(echo "$ir / $wi" | bc -l)"
  rm -rf "$tmp"
done
