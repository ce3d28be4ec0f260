#!/usr/bin/env bash
# warpsim run --timeline: the samples' rates, integrated over time, give back the per-kernel totals
# of the same run (warp instructions, L1 and L2 sectors, DRAM bytes), computed independently by
# the kernels' counters; samples lie inside the kernels' span; scripts/timeline.py makes a valid
# trace of it; bad use is refused.
set -uo pipefail
w=$1 workdir=$2 src=$3 root=$4
command -v nvcc >/dev/null || { echo "no nvcc: skipped"; exit 77; }
command -v python3 >/dev/null || { echo "no python3: skipped"; exit 77; }
mkdir -p "$workdir"
exe=$workdir/timeline_saxpy
nvcc -cudart shared -arch=sm_80 -o "$exe" "$src" || { echo "FAIL: nvcc"; exit 1; }
rep=$workdir/timeline.report
rm -rf "$rep"
"$w" run -q --timeline 200 --cache-control all --report "$rep" -- "$exe" >/dev/null || { echo "FAIL: run"; exit 1; }
python3 - "$rep/report.json" <<'PY' || exit 1
import json, sys
r = json.load(open(sys.argv[1]))
tl = r["timeline"]
assert tl["interval_cycles"] == 200, tl["interval_cycles"]
col = {n: i for i, n in enumerate(tl["columns"])}
s = tl["samples"]
ks = r["kernels"]
mhz = ks[0]["timing"]["clock_mhz"]
assert len(s) > 10, len(s)
t = [x[col["t_ns"]] for x in s]
assert all(b >= a for a, b in zip(t, t[1:])), "time goes backwards"
lo = min(k["start_ns"] for k in ks); hi = max(k["start_ns"] + k["simulated_ns"] for k in ks)
assert lo - 1e-6 <= t[0] and t[-1] <= hi + 1e-6, (t[0], t[-1], lo, hi)
def integral(c, scale):
    return sum(s[i][col[c]] * (t[i] - t[i - 1]) * scale for i in range(1, len(s)))
want = {
    "ipc": sum(k["warp_instructions"] for k in ks),
    "l1_gbytes_per_s": 32 * sum(k["timing"]["memory"]["l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum"] +
                                k["timing"]["memory"]["l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum"] +
                                k["timing"]["memory"]["l1tex__t_sectors_pipe_lsu_mem_local.sum"] for k in ks),
    "l2_gbytes_per_s": 32 * sum(k["timing"]["memory"]["lts__t_sectors_op_read.sum"] + k["timing"]["memory"]["lts__t_sectors_op_write.sum"] +
                                k["timing"]["memory"]["lts__t_sectors_op_atom.sum"] for k in ks),
    "dram_read_gbytes_per_s": sum(k["timing"]["memory"]["dram__bytes_read.sum"] for k in ks),
    "dram_write_gbytes_per_s": sum(k["timing"]["memory"]["dram__bytes_write.sum"] for k in ks),
}
bad = 0
for c, v in want.items():
    got = integral(c, mhz * 1e-3 if c == "ipc" else 1.0)
    ok = abs(got - v) <= 0.01 * v + 64
    print(("ok " if ok else "BAD") + f" integral of {c}: {got:.0f} (kernels' total {v})")
    bad += not ok
assert max(x[col["resident_warps"]] for x in s) > 0 and s[-1][col["resident_warps"]] == 0
sys.exit(1 if bad else 0)
PY
python3 "$root/scripts/timeline.py" "$rep/report.json" --trace "$rep/trace.json" || { echo "FAIL: timeline.py"; exit 1; }
python3 - "$rep/trace.json" "$rep/report.json" <<'PY' || exit 1
import json, sys
ev = json.load(open(sys.argv[1]))["traceEvents"]
r = json.load(open(sys.argv[2]))
kernels = [e for e in ev if e["ph"] == "X" and e["tid"] == 1]
counters = [e for e in ev if e["ph"] == "C"]
assert len(kernels) == len(r["kernels"]), (len(kernels), len(r["kernels"]))
assert len(counters) == 3 * len(r["timeline"]["samples"]), len(counters)
print(f"ok trace: {len(kernels)} kernels, {len(counters)} counter events")
PY
err=$("$w" run --timeline 100 -- "$exe" 2>&1) && { echo "FAIL: --timeline without --report accepted"; exit 1; }
grep -q "needs --report" <<<"$err" || { echo "FAIL: $err"; exit 1; }
err=$("$w" run --timeline 100 --mode functional --report "$rep" -- "$exe" 2>&1) && { echo "FAIL: functional timeline accepted"; exit 1; }
grep -q "needs the timing mode" <<<"$err" || { echo "FAIL: $err"; exit 1; }
err=$(WARPSIM_TIMELINE=abc "$exe" 2>&1); grep -q "bad timeline interval" <<<"$err" || echo "note: the program was not run under warpsim's libcudart here"
echo "timeline: ok"
