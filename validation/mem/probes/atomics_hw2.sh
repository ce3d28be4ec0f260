#!/usr/bin/env bash
# Fourth H100 run of atomics.cu (after atomics_hw.sh): one word for the whole grid (lines 0), atom
# and red, against the per-warp shapes, by blocks of 1024 threads (1..132 SMs); Nsight Compute
# counts for one word on every SM. Writes into OUTDIR (default ./atomics_out2).
set -uo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
out="${1:-atomics_out2}"
mkdir -p "$out"
bin=$(mktemp -d)
nvcc -O3 -cudart shared -arch=sm_80 -o "$bin/atomics" "$here/atomics.cu" > "$out/env.txt" 2>&1
echo "pattern,blocks,threads,iters,lane_ops,ns,cycles,lane_ops_per_clock" > "$out/blocks.csv"
for rep in 1 2; do
  for b in 1 8 33 66 99 132; do
    for shape in "0 32 0 0" "0 32 0 1" "1 32 1 0" "32 32 0 0" "32 32 0 1" "8 32 0 0"; do
      timeout 20 "$bin/atomics" one $shape $b 1024 32 >> "$out/blocks.csv" 2>> "$out/env.txt"
    done
  done
done
m="lts__t_requests_op_atom.sum,lts__t_requests_op_atom.max,lts__t_requests_op_red.sum,lts__t_requests_op_red.max,lts__t_sectors_op_atom.sum,lts__t_sectors_op_red.sum,lts__d_atomic_input_cycles_active.sum,lts__d_atomic_input_cycles_active.max,lts__xbar2lts_cycles_active.max,lts__t_requests_srcunit_tex_op_atom.sum,lts__t_requests_srcunit_tex_op_atom.max,lts__t_requests_srcunit_tex_op_red.sum,lts__t_requests_srcunit_tex_op_red.max,lts__t_sectors_srcunit_ltcfabric.sum,l1tex__t_requests_pipe_lsu_mem_global_op_atom.sum,l1tex__t_requests_pipe_lsu_mem_global_op_red.sum,lts__cycles_elapsed.avg,sm__cycles_elapsed.avg"
{
  for cfg in "0 32 0 0 132 1024 32" "0 32 0 1 132 1024 32" "0 32 0 0 8 1024 32"; do
    echo "== one $cfg"
    timeout 90 ncu -k regex:hammer_shape --launch-skip 1 --launch-count 1 --print-units base \
      --metrics "breakdown:gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed,$m" "$bin/atomics" one $cfg
  done
} > "$out/ncu.txt" 2>&1
rm -rf "$bin"
