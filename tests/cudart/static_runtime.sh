#!/usr/bin/env bash
# A program built with nvcc's default (the static CUDA runtime) is refused with advice to rebuild
# with -cudart shared, instead of failing inside the program with "driver version is insufficient".
set -uo pipefail
w=$1 workdir=$2 src=$3
command -v nvcc >/dev/null || { echo "no nvcc: skipped"; exit 77; }
mkdir -p "$workdir"
exe=$workdir/static_runtime_app
nvcc -arch=sm_80 -o "$exe" "$src" || { echo "FAIL: nvcc"; exit 1; }
err=$("$w" run -- "$exe" 2>&1); rc=$?
[[ $rc == 2 ]] || { echo "FAIL: exit status $rc (expected 2): $err"; exit 1; }
grep -q "has the static CUDA runtime linked in" <<<"$err" || { echo "FAIL: no static-runtime message: $err"; exit 1; }
grep -q -- "-cudart shared" <<<"$err" || { echo "FAIL: no rebuild advice: $err"; exit 1; }
# Found through PATH as well, as execvp would.
err=$(PATH="$workdir:$PATH" "$w" run -- static_runtime_app 2>&1); rc=$?
[[ $rc == 2 ]] || { echo "FAIL: via PATH: exit status $rc: $err"; exit 1; }
echo "static runtime refused: ok"
