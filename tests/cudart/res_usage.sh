#!/usr/bin/env bash
# Kernel resources under `warpsim run` against `ptxas -v` (the same numbers as `cuobjdump
# -res-usage`; the distribution's cuobjdump 11.8 cannot read CUDA 13 cubins), and occupancy against
# hand-computed values (res_usage.expected) and cuda_occupancy.h (checked inside res_usage.cu).
# Then a workload's --report: register counts in report.json must match ptxas -v too.
# Usage: res_usage.sh WARPSIM WORKDIR SRC_DIR WORKLOAD.cu
set -uo pipefail
warpsim=$1 workdir=$2 srcdir=$3 workload=$4
command -v nvcc >/dev/null 2>&1 || { echo "SKIP: nvcc is not on PATH"; exit 77; }
mkdir -p "$workdir"
fail() { echo "FAIL: $*"; exit 1; }
# "mangled regs stack" per kernel from ptxas -v.
ptxas_usage() {
  awk '/Compiling entry function/ { match($0, /'"'"'[^'"'"']+'"'"'/); k = substr($0, RSTART+1, RLENGTH-2) }
       /bytes stack frame/ { st[k] = $1 }
       /Used [0-9]+ registers/ { match($0, /Used [0-9]+/); r[k] = substr($0, RSTART+5, RLENGTH-5) }
       END { for (k in r) print k, r[k], st[k] }' "$1" | sort
}
bin=$workdir/res_usage
nvcc -cudart shared -arch=sm_80 -Xptxas -v -o "$bin" "$srcdir/res_usage.cu" 2>"$bin.ptxas" || fail "nvcc res_usage.cu"
"$warpsim" run -- "$bin" >"$bin.out" 2>"$bin.err"; rc=$?
cat "$bin.out" "$bin.err"
[[ $rc -eq 0 ]] || fail "res_usage exited with $rc"
diff -u "$srcdir/res_usage.expected" <(grep -v '^attr' "$bin.out") || fail "occupancy differs from res_usage.expected"
declare -A want
while read -r k r s; do want[$k]="$r $s"; done < <(ptxas_usage "$bin.ptxas")
declare -A mangled=([tiny]=_Z4tinyPf [bounded]=_Z7boundedPfi [heavy]=_Z5heavyPd [shared_static]=_Z13shared_staticPf
                    [shared_dynamic]=_Z14shared_dynamicPf)
for name in "${!mangled[@]}"; do
  line=$(grep "^attr $name " "$bin.out") || fail "no attributes for $name"
  regs=$(sed -E 's/.* regs=([0-9]+).*/\1/' <<<"$line"); local_=$(sed -E 's/.* local=([0-9]+).*/\1/' <<<"$line")
  read -r wr ws <<<"${want[${mangled[$name]}]}"
  [[ "$regs" == "$wr" && "$local_" == "$ws" ]] || fail "$name: regs $regs local $local_, ptxas -v says $wr registers, $ws bytes stack"
  echo "ok: $name $regs registers, $local_ bytes stack (ptxas -v: $wr, $ws)"
done
grep -q "attr bounded .*maxThreads=128 " "$bin.out" || fail "bounded: maxThreadsPerBlock should be 128 (__launch_bounds__)"
grep -q "register counts estimated" "$bin.err" && fail "summary says estimated although the fatbinary has a cubin"

# --report with a workload.
w=$(basename "$workload" .cu)
wbin=$workdir/$w.res
nvcc -cudart shared -arch=sm_80 -Xptxas -v -o "$wbin" "$workload" 2>"$wbin.ptxas" || fail "nvcc $workload"
rm -rf "$workdir/report.$w"
"$warpsim" run --report "$workdir/report.$w" -- "$wbin" >/dev/null 2>"$wbin.err" || fail "$w under --report"
report=$workdir/report.$w/report.json
[[ -s $report ]] || fail "no $report"
if command -v python3 >/dev/null 2>&1; then
  python3 "$srcdir/check_occupancy.py" "$report" "$wbin.ptxas" --no-faults || fail "report.json check"
  python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); assert r["exit_code"] == 0' "$report" || fail "exit_code"
else
  grep -q '"exit_code": 0' "$report" || fail "report.json lacks exit_code 0"
fi
# PTX only (no cubin): registers are estimated, and the summary and the report say so.
pbin=$workdir/$w.ptxonly
nvcc -cudart shared -arch=compute_80 -code=compute_80 -o "$pbin" "$workload" || fail "nvcc compute_80 $workload"
rm -rf "$workdir/report.$w.ptx"
"$warpsim" run --report "$workdir/report.$w.ptx" -- "$pbin" >/dev/null 2>"$pbin.err" || fail "$w (PTX only)"
grep -q "register counts estimated" "$pbin.err" || fail "PTX-only run: summary does not say 'register counts estimated'"
grep -q '"registers_estimated": true' "$workdir/report.$w.ptx/report.json" || fail "PTX-only report lacks registers_estimated"
echo "PASS: res_usage"
