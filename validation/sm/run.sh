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
#   bench       any of: alu sync mem expand stscatter (default: all)
#
# Output: `# ...` comment lines and `benchmark,metric,value,unit` lines. Exit status: 0 when every
# program built, ran and passed its self-checks; 1 otherwise (the CSV of the others is still printed).
set -uo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
# shellcheck source-path=SCRIPTDIR source=../common/run_lib.sh
. "$here/../common/run_lib.sh"
suite_name=validation/sm/run.sh
suite_dir=$here
suite_benches=(alu sync mem expand stscatter)
run_suite "$@"
