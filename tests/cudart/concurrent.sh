#!/usr/bin/env bash
# Kernels from two streams overlap in simulated time; the default-stream kernel starts after both.
# Usage: concurrent.sh WARPSIM WORKDIR SRC_DIR
set -uo pipefail
warpsim=$1 workdir=$2 srcdir=$3
command -v nvcc >/dev/null 2>&1 || { echo "SKIP: nvcc is not on PATH"; exit 77; }
command -v python3 >/dev/null 2>&1 || { echo "SKIP: no python3"; exit 77; }
fail() { echo "FAIL: $*"; exit 1; }
mkdir -p "$workdir"
bin=$workdir/concurrent
nvcc -cudart shared -arch=sm_80 -o "$bin.tmp.$$" "$srcdir/concurrent.cu" && mv -f "$bin.tmp.$$" "$bin" || fail "nvcc"
rm -rf "$workdir/report.concurrent"
out=$("$warpsim" run --report "$workdir/report.concurrent" -- "$bin" 2>"$bin.err") || { cat "$bin.err"; fail "exit $?: $out"; }
[[ "$out" == "concurrent: PASS" ]] || fail "output: $out"
python3 - "$workdir/report.concurrent/report.json" <<'PY' || fail "timeline"
import json, sys
k = json.load(open(sys.argv[1]))["kernels"]
assert len(k) == 3, len(k)
a, b, c = k
# s1 and s2: launched together, so they start together and overlap.
assert a["start_ns"] == b["start_ns"], (a["start_ns"], b["start_ns"])
overlap = min(a["start_ns"] + a["simulated_ns"], b["start_ns"] + b["simulated_ns"]) - a["start_ns"]
assert overlap > 0.9 * min(a["simulated_ns"], b["simulated_ns"]), overlap
# The legacy default stream waits for both.
assert c["start_ns"] >= max(a["start_ns"] + a["simulated_ns"], b["start_ns"] + b["simulated_ns"]) - 1e-6
# Each one-block kernel keeps one SM busy: side by side they take about as long as one alone.
assert abs(a["timing"]["cycles"] - c["timing"]["cycles"]) <= 0.05 * c["timing"]["cycles"], (a["timing"]["cycles"], c["timing"]["cycles"])
print("timeline ok:", [(x["start_ns"], x["simulated_ns"]) for x in k])
PY
# Functional mode: the same program, run in order.
out=$("$warpsim" run --mode functional -- "$bin" 2>/dev/null) || fail "functional mode exit $?"
[[ "$out" == "concurrent: PASS" ]] || fail "functional output: $out"
echo "PASS: concurrent"
