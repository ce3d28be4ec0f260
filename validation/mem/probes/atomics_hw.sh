#!/usr/bin/env bash
# Third H100 run of atomics.cu: `atomics shape` (lines per warp instruction, one word or distinct
# words per line, active lanes, returned or not; one SM and every SM) twice, then Nsight Compute on a
# few shapes: which unit's throughput is at its peak (the breakdown of the memory throughput) and the
# atomic request and sector counts at L1 and L2. Writes into OUTDIR (default ./atomics_out).
set -uo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
out="${1:-atomics_out}"
mkdir -p "$out"
bin=$(mktemp -d)
{
  nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.sm --format=csv
  nvcc --version | tail -1
  nvcc -O3 -cudart shared -arch=sm_80 -o "$bin/atomics" "$here/atomics.cu"
  nvcc -O3 -cudart shared -arch=sm_90 -o "$bin/atomics90" "$here/atomics.cu"
  cuobjdump -sass -fun hammer_shape "$bin/atomics90" | grep -E "ATOM|RED|VOTE|MATCH|POPC" | sort | uniq -c
  date -u
} > "$out/env.txt" 2>&1
for run in 1 2; do
  timeout 120 "$bin/atomics" shape > "$out/shape_run$run.csv" 2>> "$out/env.txt"
  echo "== shape run $run exit $? $(date -u +%T)" >> "$out/env.txt"
done

ncu --query-metrics --chip gh100 > "$out/metrics_all.txt" 2>&1
want="lts__t_requests_op_atom lts__t_sectors_op_atom lts__t_requests_op_red lts__t_sectors_op_red
l1tex__t_requests_pipe_lsu_mem_global_op_atom l1tex__t_sectors_pipe_lsu_mem_global_op_atom
l1tex__t_requests_pipe_lsu_mem_global_op_red l1tex__t_sectors_pipe_lsu_mem_global_op_red
lts__d_atomic_input_cycles_active lts__t_sectors_srcunit_ltcfabric lts__t_requests_srcunit_tex_op_atom
lts__t_requests_srcunit_tex_op_red lts__cycles_active lts__xbar2lts_cycles_active lts__lts2xbar_cycles_active
l1tex__m_l1tex2xbar_req l1tex__m_xbar2l1tex_read_sectors l1tex__lsu_writeback_active
l1tex__data_pipe_lsu_wavefronts_mem_shared l1tex__t_set_accesses_pipe_lsu_mem_global_op_atom
lts__t_sectors_op_atom_lookup_hit lts__t_sectors_op_atom_lookup_miss lts__cycles_elapsed sm__cycles_elapsed
gpu__time_duration"
m=""
for b in $want; do
  if grep -qw "$b" "$out/metrics_all.txt"; then
    case $b in gpu__time_duration) m="$m,$b.sum" ;; *) m="$m,$b.sum,$b.max,$b.avg" ;; esac
  fi
done
m="${m#,}"
echo "$m" > "$out/metrics_used.txt"
# shapes: LINES ACTIVE SAME RED
{
  for cfg in "132 1024" "1 1024"; do
    for shape in "1 32 0 0" "32 32 0 0" "1 32 1 0" "4 32 1 0" "32 32 0 1" "32 1 0 0"; do
      echo "== shape $shape blocks/threads $cfg"
      timeout 90 ncu -k regex:hammer_shape --launch-skip 1 --launch-count 1 --print-units base \
        --metrics "breakdown:gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed,$m" \
        "$bin/atomics" one $shape $cfg 32
    done
  done
} > "$out/ncu.txt" 2>&1
rm -rf "$bin"
tar czf "$out.tgz" "$out"
