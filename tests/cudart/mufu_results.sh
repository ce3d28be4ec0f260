#!/usr/bin/env bash
# Runs mufu_results.cu under warpsim (run_workload.sh, without its byte-for-byte comparison) and
# compares its results column by column with our H100's (mufu_results_check.py says how close
# each must be). Usage: mufu_results.sh WARPSIM WORKDIR SOURCE.cu EXPECTED
set -uo pipefail
warpsim=$1 workdir=$2 src=$3 expected=$4
here=$(dirname "$0")
"$here/run_workload.sh" "$warpsim" "$workdir" "$src" - || exit $?
python3 "$here/mufu_results_check.py" "$expected" "$workdir/mufu_results.${WARPSIM_RUN_MODE:-functional}.stdout"
