#!/usr/bin/env bash
# Checks that a change to the simulator leaves every simulated result bit-identical: speed work
# must not move a cycle or a counter.
#   bench/same_results.sh record DIR    run everything, keep the results in DIR (before the change)
#   bench/same_results.sh check DIR     run everything again and compare with DIR (after it)
# "Everything": each corpus workload (workloads/<name>/<name>.cu) and each CUDA program of
# tests/cudart, in timing mode on the a100; a memory-bound subset also on the h100, v100 and g80
# (per-bank refresh, the far-copy demotion, no L2, the G80's issue period) and with
# --cache-control all and --timeline. A result is the program's stdout and exit code and its
# --report JSON without the host's wall-clock seconds: cycles, instructions, warp states, every
# memory counter, per kernel and per copy.
# Programs are built as a user builds them (nvcc -cudart shared -arch=sm_80) into
# build/same-results/programs, or taken from SAME_RESULTS_PROGS (a folder of such binaries, e.g. a
# test build's tests/cudart/programs); a program that cannot be built is skipped and named.
# SAME_RESULTS_ONLY="saxpy reduce" limits the run to those names. Exit 1 on any difference.
set -uo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
WS="${WARPSIM:-$ROOT/build/warpsim}"
verb=${1:-} dir=${2:-}
[[ ($verb == record || $verb == check) && -n $dir ]] || { sed -n 2,16p "$0"; exit 2; }
[[ -x "$WS" ]] || { echo "build warpsim first" >&2; exit 2; }
PROGS="$ROOT/build/same-results/programs"
mkdir -p "$PROGS" "$dir"
if [[ $verb == record ]]; then out="$dir"; else out="$(mktemp -d)"; trap 'rm -rf "$out"' EXIT; fi

srcs=()
for d in "$ROOT"/workloads/*/; do
  w=$(basename "$d")
  [[ -f "$d/$w.cu" ]] && srcs+=("$d/$w.cu")
done
for s in "$ROOT"/tests/cudart/*.cu; do grep -q "main(" "$s" && srcs+=("$s"); done  # not the rdc library pieces
memory_set=" saxpy reduce transpose_naive spmv_csr histogram stencil3d sgemm cp_async "

program() {  # builds or finds the binary of source $1; prints its path
  local src=$1 name bin
  name=$(basename "$src" .cu)
  if [[ -n ${SAME_RESULTS_PROGS:-} && -x "$SAME_RESULTS_PROGS/$name" ]]; then echo "$SAME_RESULTS_PROGS/$name"; return; fi
  bin="$PROGS/$name"
  if [[ ! -x "$bin" ]]; then
    command -v nvcc >/dev/null || return 1
    nvcc -cudart shared -arch=sm_80 -o "$bin.tmp" "$src" >/dev/null 2>&1 || return 1
    mv "$bin.tmp" "$bin"
  fi
  echo "$bin"
}

# One run: stdout, exit code and the report without wall-clock fields, as one normalised file.
run_one() {  # tag bin [warpsim run options...]
  local tag=$1 bin=$2
  shift 2
  local rep
  rep=$(mktemp -d)
  local rc=0
  (cd "$(dirname "$bin")" && timeout 900 "$WS" run --quiet --report "$rep" "$@" -- "$bin") >"$rep/stdout" 2>"$rep/stderr" || rc=$?
  python3 - "$rep" "$rc" >"$out/$tag.json" <<'PY'
import json, os, sys
rep, rc = sys.argv[1], int(sys.argv[2])
def clean(o):
    if isinstance(o, dict):
        return {k: clean(v) for k, v in o.items() if "wall" not in k and k != "program"}
    if isinstance(o, list):
        return [clean(v) for v in o]
    return o
path = os.path.join(rep, "report.json")
report = clean(json.load(open(path))) if os.path.exists(path) else None
print(json.dumps({"exit": rc, "stdout": open(os.path.join(rep, "stdout"), errors="replace").read(),
                  "report": report}, indent=1, sort_keys=True))
PY
  rm -rf "$rep"
}

skipped=() runs=()
for src in "${srcs[@]}"; do
  name=$(basename "$src" .cu)
  if [[ -n ${SAME_RESULTS_ONLY:-} && " $SAME_RESULTS_ONLY " != *" $name "* ]]; then continue; fi
  bin=$(program "$src") || { skipped+=("$name"); continue; }
  run_one "$name.a100" "$bin" --mode timing
  runs+=("$name.a100")
  if [[ $memory_set == *" $name "* ]]; then
    for g in h100 v100 g80; do
      run_one "$name.$g" "$bin" --mode timing --gpu "$g"
      runs+=("$name.$g")
    done
    run_one "$name.flush" "$bin" --mode timing --cache-control all
    run_one "$name.timeline" "$bin" --mode timing --timeline 500
    runs+=("$name.flush" "$name.timeline")
  fi
done
[[ ${#skipped[@]} -gt 0 ]] && echo "not built (no nvcc, or nvcc failed): ${skipped[*]}"
if [[ $verb == record ]]; then
  echo "recorded ${#runs[@]} runs in $dir"
  exit 0
fi
bad=0
for r in "${runs[@]}"; do
  if [[ ! -f "$dir/$r.json" ]]; then
    echo "NEW   $r (nothing recorded to compare with)"
  elif ! cmp -s "$dir/$r.json" "$out/$r.json"; then
    echo "DIFF  $r"
    diff "$dir/$r.json" "$out/$r.json" | head -20
    bad=1
  fi
done
if [[ $bad == 0 ]]; then echo "identical: ${#runs[@]} runs"; else echo "results differ"; fi
exit $bad
