#!/usr/bin/env bash
# The same binaries in the simulator: per-kernel cycles and memory metrics (the Nsight Compute names
# of the report) of the first 40 kernels of each workload in list.txt, as CSV on stdout.
#   validation/workloads/run_sim.sh [--gpu h100] [extra warpsim run options] > sim_h100.csv
# The L2 is flushed before every kernel (--cache-control all), as measure_hw.sh's Nsight Compute
# does; CACHE_CONTROL=none keeps it warm from kernel to kernel instead. LIST names another list of
# programs (validation/libtime/run_sim.sh).
set -uo pipefail
here="$(cd "$(dirname "$0")" && pwd)"; root="$here/../.."
BIN="${BIN:-$root/build-hw/workloads}"; WS="${WS:-$root/build/warpsim}"; LIST="${LIST:-$here/list.txt}"
gpu=h100
if [[ ${1:-} == --gpu ]]; then gpu=$2; shift 2; fi
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
echo "workload,index,kernel,cycles,launch_cycles,time_ns,warp_instructions,dram_bytes_read,dram_bytes_write,lts_sectors_read,lts_sectors_write,lts_hit_pct,l1tex_hit_pct,achieved_occupancy_pct,sim_wall_s,issue_slot_pct,stalls_per_instruction"
for w in $(grep -v '^#' "$LIST"); do
  rm -rf "$tmp/r"
  "$WS" run -q --gpu "$gpu" --mode timing --cache-control "${CACHE_CONTROL:-all}" --report "$tmp/r" "$@" -- "$BIN/$w" > "$tmp/out.txt" 2>&1 || echo "# $w: exit $? ($(tail -1 "$tmp/out.txt"))"
  python3 - "$tmp/r/report.json" "$w" <<'PY'
import json, sys
try:
    r = json.load(open(sys.argv[1]))
except OSError:
    sys.exit(0)
s = r.get("simulation", r)
for i, k in enumerate(s["kernels"][:40]):
    t = k.get("timing") or {}
    m = t.get("memory") or {}
    print(",".join(str(x) for x in [sys.argv[2], i, k["name"], t.get("cycles", ""), t.get("launch_cycles", ""), round(t.get("time_ns", 0), 1), k.get("warp_instructions", ""),
        m.get("dram__bytes_read.sum", ""), m.get("dram__bytes_write.sum", ""), m.get("lts__t_sectors_op_read.sum", ""),
        m.get("lts__t_sectors_op_write.sum", ""), round(m.get("lts__t_sector_hit_rate.pct", 0), 2),
        round(m.get("l1tex__t_sector_hit_rate.pct", 0), 2), round(100 * t.get("achieved_occupancy", 0), 2),
        k.get("simulation_wall_s", ""), round(100 * t.get("issue_slot_utilisation", 0), 2),
        " ".join(f"{a[6:]}={b / max(1, t.get('warp_instructions', 1)):.2f}" for a, b in (t.get("warp_states") or {}).items() if b)]))
PY
done
