#!/usr/bin/env bash
# A program built with nvcc's default (the static CUDA runtime) runs on the simulator through our
# libcuda.so.1 and the driver API: right output, and the summary and report say which runtime it
# carried. Found through PATH as well, as execvp would.
set -uo pipefail
w=$1 workdir=$2 src=$3
command -v nvcc >/dev/null || { echo "no nvcc: skipped"; exit 77; }
mkdir -p "$workdir"
exe=$workdir/static_runtime_app
nvcc -arch=sm_80 -o "$exe" "$src" || { echo "FAIL: nvcc"; exit 1; }
expected=$(dirname "$src")/expected_output.txt
rm -rf "$workdir/static_runtime.report"
out=$("$w" run --report "$workdir/static_runtime.report" -- "$exe" 2>"$workdir/static_runtime.err"); rc=$?
[[ $rc == 0 ]] || { echo "FAIL: exit status $rc"; cat "$workdir/static_runtime.err"; exit 1; }
diff <(echo "$out") "$expected" || { echo "FAIL: output differs from $expected"; exit 1; }
grep -q "static CUDA runtime, through the driver API" "$workdir/static_runtime.err" ||
  { echo "FAIL: the summary does not name the static runtime"; cat "$workdir/static_runtime.err"; exit 1; }
grep -q '"cuda_runtime": "static"' "$workdir/static_runtime.report/report.json" ||
  { echo "FAIL: report.json lacks cuda_runtime static"; exit 1; }
grep -q '"driver_api": true' "$workdir/static_runtime.report/report.json" ||
  { echo "FAIL: report.json lacks driver_api true"; exit 1; }
# The same source built with -cudart shared: the same kernels, cycle for cycle (one device, one
# timing model, whichever runtime carried the launches).
nvcc -arch=sm_80 -cudart shared -o "$exe.shared" "$src" || { echo "FAIL: nvcc (shared)"; exit 1; }
rm -rf "$workdir/static_runtime.shared.report"
"$w" run -q --report "$workdir/static_runtime.shared.report" -- "$exe.shared" >/dev/null 2>&1 ||
  { echo "FAIL: the shared build failed"; exit 1; }
python3 - "$workdir/static_runtime.report/report.json" "$workdir/static_runtime.shared.report/report.json" <<'PY' || exit 1
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:3])
ka = [(k["name"], k["timing"]["cycles"], k["warp_instructions"]) for k in a["kernels"]]
kb = [(k["name"], k["timing"]["cycles"], k["warp_instructions"]) for k in b["kernels"]]
if not ka or ka != kb:
    sys.exit(f"FAIL: static {ka} vs shared {kb}")
assert b["cuda_runtime"] == "shared" and b["driver_api"] is False, (b["cuda_runtime"], b["driver_api"])
print(f"static and shared builds: {len(ka)} kernels, same cycles and instructions")
PY
out=$(PATH="$workdir:$PATH" "$w" run -q -- static_runtime_app 2>&1); rc=$?
[[ $rc == 0 ]] || { echo "FAIL: via PATH: exit status $rc: $out"; exit 1; }
echo "static runtime runs: ok"
