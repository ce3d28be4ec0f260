#!/usr/bin/env bash
# Builds a CUDA program the way a user does (nvcc -cudart shared -arch=sm_80, or nvcc's default
# static runtime with WARPSIM_CUDART=static) and runs it under `warpsim run`, comparing its stdout
# with an expected file.
# Usage: run_workload.sh WARPSIM WORKDIR SOURCE.cu EXPECTED_STDOUT|- [EXPECTED_EXIT] [STDERR_REGEX]
# WARPSIM_RUN_MODE (timing or functional, default functional) picks the simulation mode;
# WARPSIM_NVCC_FLAGS adds nvcc options (e.g. --default-stream per-thread; a later -arch wins);
# WARPSIM_RUN_GPU picks the simulated GPU (`warpsim run --gpu`, default a100);
# WARPSIM_BIN_SUFFIX names the binary apart when the same source is also built with other flags.
# Exit 77 (CTest SKIP_RETURN_CODE) when nvcc is not on PATH.
set -uo pipefail
warpsim=$1 workdir=$2 src=$3 expected=$4 want_rc=${5:-0} stderr_re=${6:-}
if ! command -v nvcc >/dev/null 2>&1; then
  echo "SKIP: nvcc is not on PATH (install the CUDA toolkit to build CUDA programs)"
  exit 77
fi
name=$(basename "$src" .cu)
mkdir -p "$workdir"
runtime=(-cudart shared)
[[ ${WARPSIM_CUDART:-shared} == static ]] && runtime=() && name="$name.static"
name="$name${WARPSIM_BIN_SUFFIX:-}"
bin="$workdir/$name"
if [[ ! -x "$bin" || "$src" -nt "$bin" ]]; then
  # Built under a temporary name and renamed: the timing and functional tests of a program may
  # build it at the same time.
  # -Xptxas -v: registers and shared memory per kernel, for the occupancy check below.
  # shellcheck disable=SC2086
  nvcc "${runtime[@]}" -arch=sm_80 ${WARPSIM_NVCC_FLAGS:-} -Xptxas -v -o "$bin.tmp.$$" "$src" 2>"$bin.ptxas.tmp.$$" ||
    { cat "$bin.ptxas.tmp.$$"; echo "FAIL: nvcc could not build $src"; exit 1; }
  mv -f "$bin.ptxas.tmp.$$" "$bin.ptxas"
  mv -f "$bin.tmp.$$" "$bin"
fi
mode=${WARPSIM_RUN_MODE:-functional}
out="$workdir/$name.$mode.stdout" err="$workdir/$name.$mode.stderr"
report=()
gpu=()
[[ -n ${WARPSIM_RUN_GPU:-} ]] && gpu=(--gpu "$WARPSIM_RUN_GPU")
# Timing mode: also check the report (CTAs per SM against the occupancy rules, registers).
[[ $mode == timing && -s "$bin.ptxas" ]] && command -v python3 >/dev/null 2>&1 &&
  rm -rf "$workdir/$name.report" && report=(--report "$workdir/$name.report")
"$warpsim" run "${gpu[@]}" --mode "$mode" "${report[@]}" -- "$bin" >"$out" 2>"$err"
rc=$?
cat "$err" >&2
if [[ $rc -ne $want_rc ]]; then
  echo "FAIL: $name exited with $rc, expected $want_rc"; cat "$out"; exit 1
fi
if [[ "$expected" != "-" ]] && ! diff -u "$expected" "$out"; then
  echo "FAIL: $name stdout differs from $expected"; exit 1
fi
if [[ -n "$stderr_re" ]] && ! tr "\n" " " <"$err" | grep -Eq "$stderr_re"; then
  echo "FAIL: $name stderr does not match /$stderr_re/"; exit 1
fi
if [[ ${#report[@]} -gt 0 ]]; then
  python3 "$(dirname "$0")/check_occupancy.py" "$workdir/$name.report/report.json" "$bin.ptxas" ||
    { echo "FAIL: $name report check"; exit 1; }
fi
echo "PASS: $name"
