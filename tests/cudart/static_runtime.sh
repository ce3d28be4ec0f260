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
out=$(PATH="$workdir:$PATH" "$w" run -q -- static_runtime_app 2>&1); rc=$?
[[ $rc == 0 ]] || { echo "FAIL: via PATH: exit status $rc: $out"; exit 1; }
echo "static runtime runs: ok"
