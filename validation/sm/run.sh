#!/usr/bin/env bash
# Builds the SM microbenchmarks with nvcc and runs them, concatenating their CSV on stdout.
#
#   validation/sm/run.sh [--arch sm_90] [--runner "PREFIX"] [--reps R] [--build-dir DIR] [--sass DIR]
#                        [bench...]
#
#   --arch      nvcc target; sm_90 (the default) for an H100, sm_80 for an A100 or the simulator.
#               Programs are always built with -cudart shared (the simulator's libcudart replaces
#               the shared runtime; on hardware it is the ordinary libcudart.so).
#   --runner    a command put in front of every program, e.g.
#                 --runner "build/warpsim run --gpu a100 --mode timing --"
#   --reps      launches per measurement; the median is printed (default 5; the simulator is
#               deterministic, so use --reps 1 there)
#   --build-dir where the binaries go (default: a temporary directory, removed at exit)
#   --sass      also write `cuobjdump -sass` of each program into DIR (needs cuobjdump)
#   bench       any of: alu sync mem (default: all)
#
# Output: `# ...` comment lines and `benchmark,metric,value,unit` lines. Exit status: 0 when every
# program built, ran and passed its self-checks; 1 otherwise (the CSV of the others is still printed).
set -uo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
arch=sm_90 runner="" reps=5 build="" sass=""
benches=()
while [ $# -gt 0 ]; do
    case "$1" in
        --arch) arch=$2; shift 2 ;;
        --runner) runner=$2; shift 2 ;;
        --reps) reps=$2; shift 2 ;;
        --build-dir) build=$2; shift 2 ;;
        --sass) sass=$2; shift 2 ;;
        -h|--help) sed -n '2,20p' "$0"; exit 0 ;;
        -*) echo "run.sh: unknown option $1" >&2; exit 2 ;;
        *) benches+=("$1"); shift ;;
    esac
done
[ ${#benches[@]} -eq 0 ] && benches=(alu sync mem)
NVCC="${NVCC:-nvcc}"
if [ -z "$build" ]; then
    build="$(mktemp -d)"
    trap 'rm -rf "$build"' EXIT
fi
mkdir -p "$build"
[ -n "$sass" ] && mkdir -p "$sass"

echo "# validation/sm/run.sh: arch $arch, reps $reps, runner '${runner}', $(date -u +%Y-%m-%dT%H:%M:%SZ)"
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
    # shellcheck disable=SC2086
    $runner "$bin" --reps "$reps"
    rc=$?
    if [ $rc -ne 0 ]; then echo "# $b: FAIL (exit $rc)"; status=1; fi
done
exit $status
