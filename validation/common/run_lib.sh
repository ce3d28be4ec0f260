# shellcheck shell=bash
# The driver behind validation/sm/run.sh and validation/mem/run.sh (sourced, not run): option
# parsing, the nvcc build of each program, the runner prefix, the CSV header and the exit status.
# A suite's run.sh keeps its usage text (its leading comment block, which --help prints), sets
#   suite_name       what the first CSV comment line names, e.g. validation/sm/run.sh
#   suite_dir        the folder holding the programs (<bench>.cu)
#   suite_benches    the default program list (array)
#   suite_quick=1    to accept --quick and pass it to every program (otherwise an unknown option)
# optionally redefines suite_extra_args BENCH (prints extra options for one program), and calls
#   run_suite "$@"
# Usage, output and exit status: see either suite's run.sh.

# Set by the suite after sourcing this file.
suite_name="" suite_dir="" suite_benches=() suite_quick=""

suite_extra_args() { :; }

# Prints the caller's leading comment block (after the #! line): its usage text.
run_usage() {
    awk 'NR > 1 && !/^#/ { exit } NR > 1' "$0"
}

run_suite() {
    local arch=sm_90 runner="" reps=5 build="" sass="" quick=""
    local benches=()
    while [ $# -gt 0 ]; do
        case "$1" in
            --arch) arch=$2; shift 2 ;;
            --runner) runner=$2; shift 2 ;;
            --reps) reps=$2; shift 2 ;;
            --build-dir) build=$2; shift 2 ;;
            --sass) sass=$2; shift 2 ;;
            --quick)
                [ -n "$suite_quick" ] || { echo "run.sh: unknown option $1" >&2; exit 2; }
                quick="--quick"; shift ;;
            -h|--help) run_usage; exit 0 ;;
            -*) echo "run.sh: unknown option $1" >&2; exit 2 ;;
            *) benches+=("$1"); shift ;;
        esac
    done
    [ ${#benches[@]} -eq 0 ] && benches=("${suite_benches[@]}")
    local NVCC="${NVCC:-nvcc}"
    if [ -z "$build" ]; then
        build="$(mktemp -d)"
        # global, not local: the EXIT trap runs after this function has returned
        run_tmp_build=$build
        trap 'rm -rf "$run_tmp_build"' EXIT
    fi
    mkdir -p "$build"
    [ -n "$sass" ] && mkdir -p "$sass"

    echo "# $suite_name: arch $arch, reps $reps, runner '${runner}'${quick:+, --quick}, $(date -u +%Y-%m-%dT%H:%M:%SZ)"
    echo "# nvcc: $($NVCC --version | tail -1)"
    echo "benchmark,metric,value,unit"
    local status=0 b src bin extra rc
    for b in "${benches[@]}"; do
        src="$suite_dir/$b.cu"
        if [ ! -f "$src" ]; then echo "run.sh: no benchmark $b" >&2; status=1; continue; fi
        bin="$build/$b"
        if ! $NVCC -O3 -cudart shared -arch="$arch" -o "$bin" "$src" >&2; then
            echo "# $b: FAIL (nvcc)"; status=1; continue
        fi
        if [ -n "$sass" ] && command -v cuobjdump >/dev/null; then
            cuobjdump -sass "$bin" > "$sass/$b.$arch.sass" 2>&1 || true
        fi
        extra="$(suite_extra_args "$b")"
        # shellcheck disable=SC2086  # runner, quick and extra are word lists
        $runner "$bin" --reps "$reps" $quick $extra
        rc=$?
        if [ $rc -ne 0 ]; then echo "# $b: FAIL (exit $rc)"; status=1; fi
    done
    exit $status
}
