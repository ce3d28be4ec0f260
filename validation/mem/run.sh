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
#   bench       any of: pchase bandwidth tlb_groups constcache (default: all)
# Extra per-program options come from the environment: PCHASE_ARGS, BANDWIDTH_ARGS, TLB_GROUPS_ARGS,
# CONSTCACHE_ARGS
# (e.g. PCHASE_ARGS="--loads 500 --no-tlb"); MEM_QUICK=1 / MEM_LOADS=N are read by the programs too.
#
# Output: `# ...` comment lines and `benchmark,metric,value,unit` lines. Exit status: 0 when every
# program built, ran and passed its self-checks; 1 otherwise (the CSV of the others is still printed).
set -uo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
# shellcheck source-path=SCRIPTDIR source=../common/run_lib.sh
. "$here/../common/run_lib.sh"
suite_name=validation/mem/run.sh
suite_dir=$here
suite_benches=(pchase bandwidth tlb_groups constcache)
suite_quick=1
suite_extra_args() {
    case "$1" in
        pchase) printf '%s' "${PCHASE_ARGS:-}" ;;
        bandwidth) printf '%s' "${BANDWIDTH_ARGS:-}" ;;
        tlb_groups) printf '%s' "${TLB_GROUPS_ARGS:-}" ;;
        constcache) printf '%s' "${CONSTCACHE_ARGS:-}" ;;
    esac
}
run_suite "$@"
