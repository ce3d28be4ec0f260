#!/usr/bin/env bash
# The sm_90 SASS behind the decoder's if-conversion (src/func/schedule.cpp, if_convert): for each
# kernel whose PTX has if-then regions around global loads, how many of its LDGs ptxas predicates
# (@P / @!P LDG: the region became predicated code) and how many it issues unguarded (behind a
# kept branch, or outside any region), then the memory and branch instructions themselves.
#   validation/workloads/probes/ifconv_sass.sh > validation/workloads/probes/ifconv_sm90_sass.txt
# Compiles the committed PTX (workloads/<w>/<w>.ptx, nvcc's sm_80 output, which the driver JIT-compiles
# for the H100) with ptxas -arch=sm_90. Needs ptxas and cuobjdump (CUDA 13.0 was used;
# `pip install nvidia-cuda-cuobjdump` provides cuobjdump where the toolkit lacks it: CUOBJDUMP=path).
set -euo pipefail
root="$(cd "$(dirname "$0")/../../.." && pwd)"
CUOBJDUMP="${CUOBJDUMP:-cuobjdump}"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
echo "# ptxas -arch=sm_90 ($(ptxas --version | grep -o 'release [0-9.]*')) on workloads/<w>/<w>.ptx, cuobjdump -sass"
sass() {  # workload kernel-substring: the kernel's SASS lines
  "$CUOBJDUMP" -sass "$tmp/$1.cubin" | awk -v k="$2" '/Function :/ {on = index($0, k) > 0} on' |
    grep -E '^\s+/\*[0-9a-f]{4}\*/' | sed 's#/\* 0x[0-9a-f]* \*/##; s/ \+/ /g; s/ ;.*$//'
}
kernels="transpose:_Z15transpose_tiledILi1 transpose:_Z15transpose_tiledILi0 transpose_naive:_Z15transpose_tiled
  dgemm:_Z11dgemm_tiled sgemm:_Z11sgemm_tiled stencil:_Z9stencil2d scan:_Z9tile_scan scan:_Z11scan_totals
  radix_sort:_Z7scatter bitonic_sort:_Z16bitonic_segments nbody:_Z11nbody_accel conv2d:_Z11conv_direct
  conv2d:_Z10conv_tiledILi2 conv2d:_Z10conv_tiledILi1 stencil3d:_Z14stencil_tile3d stencil3d:_Z14stencil_zmarch"
echo "# kernel: predicated LDG, unguarded LDG"
for wk in $kernels; do
  w=${wk%%:*}; k=${wk#*:}
  [[ -f $tmp/$w.cubin ]] || ptxas -arch=sm_90 -o "$tmp/$w.cubin" "$root/workloads/$w/$w.ptx"
  echo "$w:$k: $(sass "$w" "$k" | grep -cE '@!?P[0-9] LDG' || true), $(sass "$w" "$k" | grep -E 'LDG' | grep -cv '@' || true)"
done
for wk in $kernels; do
  w=${wk%%:*}; k=${wk#*:}
  echo; echo "## $w: $k"
  sass "$w" "$k" | grep -E 'LDG|STG|LDS|STS|BAR|BRA|EXIT|BSSY|BSYNC' || true
done
