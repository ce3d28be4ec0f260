#!/usr/bin/env bash
# The sm_90 SASS behind the decoder's loop unrolling (src/func/schedule.cpp, unroll_loops) and the
# constant-operand rule (src/timing/op_class.cpp, folded_const_loads):
#   validation/workloads/probes/unroll_sass.sh unroll > validation/workloads/probes/unroll_sm90_sass.txt
#   validation/workloads/probes/unroll_sass.sh constfold > validation/workloads/probes/constfold_sm90_sass.txt
# unroll: the loops of sgemm_naive, radix_sort's exclusive_scan and tensor_gemm's mma_direct<F16_F32>
# (their PTX: one block, counter stepped down to zero), with each instruction's control bits
# (sass_control.py): how many copies of the PTX body ptxas makes per trip, which LDGs issue before
# the first instruction that waits for one, and how many are outstanding at once.
# constfold: stencil2d's filter taps (`ld.const.f32 [c_coef+k]` + fma in the PTX) as ULDC + FFMA.
# Compiles the committed PTX with ptxas -arch=sm_90 (CUDA 13.0 was used); needs cuobjdump
# (`pip install nvidia-cuda-cuobjdump` provides it where the toolkit lacks it: CUOBJDUMP=path).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"; root="$here/../../.."
CUOBJDUMP="${CUOBJDUMP:-cuobjdump}"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
show() {  # workload kernel-substring
  [[ -f $tmp/$1.sass ]] || { ptxas -arch=sm_90 -o "$tmp/$1.cubin" "$root/workloads/$1/$1.ptx"; "$CUOBJDUMP" -sass "$tmp/$1.cubin" > "$tmp/$1.sass"; }
  echo; echo "## $1: $2"
  python3 "$here/sass_control.py" "$tmp/$1.sass" "$2"
}
echo "# ptxas -arch=sm_90 ($(ptxas --version | grep -o 'release [0-9.]*')) on workloads/<w>/<w>.ptx, cuobjdump -sass, control bits decoded"
case "${1:-unroll}" in
  unroll)
    show sgemm _Z11sgemm_naive
    show radix_sort _Z14exclusive_scan
    show tensor_gemm _Z10mma_directI7F16_F32 ;;
  constfold)
    show stencil _Z9stencil2d ;;
esac
