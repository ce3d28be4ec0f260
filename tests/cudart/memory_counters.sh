#!/usr/bin/env bash
# Memory counters of real programs against their access patterns (computed here, not taken from
# the simulator's output):
#   vecadd: c[i] = a[i] + b[i] over n = 50000 floats in 256-B-aligned cudaMalloc arrays, with a
#     grid-stride loop of 64 x 256 threads: every element is loaded once (2 x 50000 x 4 B = 12500
#     32-B sectors, no reuse, so L1 hits 0 and L2 reads 12500 sectors) and stored once (6250
#     sectors); warp-level requests: ceil(50000 / 32) = 1563 per array, each within one 128-B line
#     (so also 1563 L2 write requests). The inputs come from the
#     host, so every read sector misses in L2 and DRAM reads 12500 x 32 = 400000 bytes. The L2 and
#     DRAM also read the kernel's code (instruction-cache fills, counted apart as warpsim__ifetch_*):
#     some, and less than the 2 KB of vecadd's PTX x 16 B per instruction plus a prefetch of 16 lines.
#   transpose (300 x 200 floats, 32 x 32 tiles, 32 x 8 threads): the padded tile[32][33] has no
#     bank conflicts. The unpadded tile[32][32] read tile[lane][row] puts a warp's a active lanes
#     in one bank: a wavefronts, a - 1 conflicts. Tiles along the 300 rows have a = 32 (9 of them)
#     and a = 12 (the last): 9 x 31 + 11 = 290 per tile column row; the read runs for each of the 200
#     columns of `in` (bx*32 + ty + j < 200): 290 x 200 = 58000 conflicts.
# Usage: memory_counters.sh WARPSIM WORKDIR SOURCE_DIR
set -uo pipefail
warpsim=$1 workdir=$2 src=$3
command -v nvcc >/dev/null 2>&1 || { echo "SKIP: no nvcc"; exit 77; }
command -v python3 >/dev/null 2>&1 || { echo "SKIP: no python3"; exit 77; }
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$workdir"
fail=0
run() {  # name, kernel substring, expectations... (warpsim run options in $RUN_OPTS)
  local name=$1 kernel=$2; shift 2
  nvcc -cudart shared -arch=sm_80 -o "$workdir/$name.mc" "$src/$name/$name.cu" || { echo "FAIL: nvcc $name"; fail=1; return; }
  rm -rf "$workdir/$name.mc.report"
  "$warpsim" run -q --mode timing ${RUN_OPTS:-} --report "$workdir/$name.mc.report" -- "$workdir/$name.mc" >/dev/null ||
    { echo "FAIL: $name did not run"; fail=1; return; }
  python3 "$here/check_memory.py" "$workdir/$name.mc.report/report.json" "$kernel" "$@" || fail=1
}
run vecadd vecadd \
  l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum=3126 \
  l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum=12500 \
  l1tex__t_sectors_pipe_lsu_mem_global_op_ld_lookup_hit.sum=0 \
  l1tex__t_requests_pipe_lsu_mem_global_op_st.sum=1563 \
  l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum=6250 \
  lts__t_sectors_op_read.sum-warpsim__ifetch_lts_sectors_read.sum=12500 \
  lts__t_sectors_op_write.sum=6250 \
  lts__t_requests_op_write.sum=1563 \
  dram__bytes_read.sum-warpsim__ifetch_dram_bytes_read.sum=400000 \
  "warpsim__ifetch_dram_bytes_read.sum>=128" "warpsim__ifetch_dram_bytes_read.sum<=6144" \
  l1tex__data_bank_conflicts_pipe_lsu_mem_shared.sum=0
# Per-controller DRAM bytes add up to the kernel's DRAM total; every 64-B access has a row outcome
# (vecadd reads 2 x 200000 contiguous bytes: most accesses find their row open).
python3 - "$workdir/vecadd.mc.report/report.json" <<'PY' || fail=1
import json, sys
m = json.load(open(sys.argv[1]))["kernels"][0]["timing"]["memory"]
ctl = m["dram_controllers"]
rb = sum(c["read_bytes"] for c in ctl)
acc = m["warpsim__dram_row_hits.sum"] + m["warpsim__dram_row_misses.sum"] + m["warpsim__dram_row_conflicts.sum"]
ok = len(ctl) == 10 and rb == m["dram__bytes_read.sum"] and acc > 0 and m["warpsim__dram_row_hit_rate.pct"] >= 50
print(("ok " if ok else "BAD") + f" {len(ctl)} controllers read {rb} B (dram__bytes_read {m['dram__bytes_read.sum']}), "
      f"{acc} accesses, row hit rate {m['warpsim__dram_row_hit_rate.pct']:.1f}%")
sys.exit(0 if ok else 1)
PY
# Host copies cross PCIe ([pcie] of a100.toml: 31.5 GB/s, 2 us per transfer): each 200000-byte
# copy of vecadd takes 2000 + 200000 / 31.5 ns; its cudaMemset of 200000 bytes runs at the HBM2
# peak, 5120 bits x 2 x 1215 MHz = 1555.2 GB/s: 128.6 ns.
python3 - "$workdir/vecadd.mc.report/report.json" <<'PY' || fail=1
import json, sys
cs = json.load(open(sys.argv[1]))["copies"]
pcie = 2000 + 200000 / 31.5
mset = 200000 / (5120 / 8 * 2 * 1215e6) * 1e9
want = [("HtoD", pcie), ("HtoD", pcie), ("memset", mset), ("DtoH", pcie)]
got = [(c["kind"], c["bytes"], c["simulated_ns"]) for c in cs]
ok = len(cs) == len(want) and all(c["bytes"] == 200000 and c["kind"] == k and abs(c["simulated_ns"] - ns) < 0.01
                                  for c, (k, ns) in zip(cs, want))
print(("ok " if ok else "BAD") + f" copies {got} (expected {want})")
sys.exit(0 if ok else 1)
PY
run transpose ILi1E l1tex__data_bank_conflicts_pipe_lsu_mem_shared.sum=0 "l1tex__data_pipe_lsu_wavefronts_mem_shared.sum>=1"
run transpose ILi0E l1tex__data_bank_conflicts_pipe_lsu_mem_shared.sum=58000
# Cache control. saxpy_stride reads x and y (2 x 50000 floats = 400000 bytes) that saxpy, the kernel
# before it, read and wrote. Left as saxpy left it, the L2 (40 MB) holds them: no DRAM read. With
# --cache-control all (Nsight Compute's default) the L2 is written back and emptied before every
# kernel: all 12500 sectors miss and come from DRAM again, and the kernel's own stores stay in L2.
# Its code is read from DRAM in both cases (saxpy ran other code), after the flush as well.
run saxpy saxpy_stride dram__bytes_read.sum-warpsim__ifetch_dram_bytes_read.sum=0 \
  lts__t_sectors_op_read.sum-warpsim__ifetch_lts_sectors_read.sum=12500
RUN_OPTS="--cache-control all" run saxpy saxpy_stride dram__bytes_read.sum-warpsim__ifetch_dram_bytes_read.sum=400000 \
  dram__bytes_write.sum=0 lts__t_sectors_op_read.sum-warpsim__ifetch_lts_sectors_read.sum=12500 \
  "warpsim__ifetch_dram_bytes_read.sum>=128"
if "$warpsim" run -q --cache-control some -- "$workdir/saxpy.mc" >/dev/null 2>&1; then
  echo "BAD --cache-control some was accepted"; fail=1
fi
[[ $fail == 0 ]] && echo "PASS: memory counters" || { echo "FAIL: memory counters"; exit 1; }
