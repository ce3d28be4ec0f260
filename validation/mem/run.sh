#!/usr/bin/env bash
# Builds the memory-hierarchy microbenchmarks with nvcc and runs them, concatenating their CSV on
# stdout (same shape as validation/sm/run.sh).
#
#   validation/mem/run.sh [--arch sm_90] [--runner "PREFIX"] [--reps R] [--build-dir DIR] [--sass DIR]
#                         [--quick] [bench...]
#
#   --arch      nvcc target; sm_90 (the default) for an H100, sm_80 for an A100 or the simulator.
#               Programs are always built with -cudart shared (the simulator's libcudart replaces
#               the shared runtime; on hardware it is the ordinary libcudart.so).
#   --runner    a command put in front of every program, e.g.
#                 --runner "build/warpsim run --gpu a100 --"
#   --reps      launches per measurement; the median is printed (default 5; the simulator is
#               deterministic, so use --reps 1 there)
#   --build-dir where the binaries go (default: a temporary directory, removed at exit)
#   --sass      also write `cuobjdump -sass` of each program into DIR (needs cuobjdump)
#   --quick     pass --quick to every program: short runs for the cycle-level simulator (a few
#               million warp instructions per program)
#   bench       any of: pchase bandwidth tlb_groups (default: all)
# Extra per-program options come from the environment: PCHASE_ARGS, BANDWIDTH_ARGS, TLB_GROUPS_ARGS
# (e.g. PCHASE_ARGS="--loads 500 --no-tlb"); MEM_QUICK=1 / MEM_LOADS=N are read by the programs too.
#
# Output: `# ...` comment lines and `benchmark,metric,value,unit` lines. Exit status: 0 when every
# program built, ran and passed its self-checks; 1 otherwise (the CSV of the others is still printed).
set -uo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
arch=sm_90 runner="" reps=5 build="" sass="" quick=""
benches=()
while [ $# -gt 0 ]; do
    case "$1" in
        --arch) arch=$2; shift 2 ;;
        --runner) runner=$2; shift 2 ;;
        --reps) reps=$2; shift 2 ;;
        --build-dir) build=$2; shift 2 ;;
        --sass) sass=$2; shift 2 ;;
        --quick) quick="--quick"; shift ;;
        -h|--help) sed -n '2,27p' "$0"; exit 0 ;;
        -*) echo "run.sh: unknown option $1" >&2; exit 2 ;;
        *) benches+=("$1"); shift ;;
    esac
done
[ ${#benches[@]} -eq 0 ] && benches=(pchase bandwidth tlb_groups)
NVCC="${NVCC:-nvcc}"
if [ -z "$build" ]; then
    build="$(mktemp -d)"
    trap 'rm -rf "$build"' EXIT
fi
mkdir -p "$build"
[ -n "$sass" ] && mkdir -p "$sass"

echo "# validation/mem/run.sh: arch $arch, reps $reps, runner '${runner}'${quick:+, --quick}, $(date -u +%Y-%m-%dT%H:%M:%SZ)"
echo "# nvcc: $($NVCC --version | tail -1)"
echo "benchmark,metric,value,unit"
status=0
for b in "${benches[@]}"; do
    src="$here/$b.cu"
    if [ ! -f "$src" ]; then echo "run.sh: no benchmark $b" >&2; status=1; continue; fi
    bin="$build/$b"
    if ! $NVCC -O3 -cudart shared -arch="$arch" -o "$bin" "$src" >&2; then
        echo "# $b: FAIL (nvcc)"; status=1; continue
    fi
    if [ -n "$sass" ] && command -v cuobjdump >/dev/null; then
        cuobjdump -sass "$bin" > "$sass/$b.$arch.sass" 2>&1 || true
    fi
    case "$b" in
        pchase) extra="${PCHASE_ARGS:-}" ;;
        bandwidth) extra="${BANDWIDTH_ARGS:-}" ;;
        tlb_groups) extra="${TLB_GROUPS_ARGS:-}" ;;
        *) extra="" ;;
    esac
    # shellcheck disable=SC2086
    $runner "$bin" --reps "$reps" $quick $extra
    rc=$?
    if [ $rc -ne 0 ]; then echo "# $b: FAIL (exit $rc)"; status=1; fi
done
exit $status
