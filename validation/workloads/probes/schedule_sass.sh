#!/usr/bin/env bash
# The sm_90 SASS behind the decoder's load-scheduling rules (src/func/schedule.cpp): the memory
# and branch instructions of the kernels whose PTX order differs most from ptxas's, to stdout.
#   validation/workloads/probes/schedule_sass.sh > validation/workloads/probes/schedule_sm90_sass.txt
# Needs nvcc and cuobjdump (CUDA 13.0 was used; `pip install nvidia-cuda-cuobjdump` provides
# cuobjdump where the toolkit lacks it: CUOBJDUMP=path).
set -euo pipefail
root="$(cd "$(dirname "$0")/../../.." && pwd)"
CUOBJDUMP="${CUOBJDUMP:-cuobjdump}"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
echo "# nvcc -cubin -arch=sm_90 -O3 ($(nvcc --version | grep -o 'release [0-9.]*')), cuobjdump -sass; loads, stores, barriers and branches only"
# workload:kernel (a substring of the mangled name)
for wk in mma_ptx:_Z8mma_gemmILb0 mma_ptx:_Z8mma_gemmILb1 tensor_gemm:_Z16mma_f16_ldmatrixILb0 \
          sgemm:_Z14sgemm_regblock bitonic_sort:_Z15bitonic_kv_desc spmv_csr:_Z11spmv_scalar \
          cooperative:_Z18specialised_kernel; do
  w=${wk%%:*}; k=${wk#*:}
  [[ -f $tmp/$w.cubin ]] || nvcc -cubin -arch=sm_90 -O3 -o "$tmp/$w.cubin" "$root/workloads/$w/$w.cu"
  echo; echo "## $w: $k"
  "$CUOBJDUMP" -sass "$tmp/$w.cubin" | awk -v k="$k" '/Function :/ {on = index($0, k) > 0} on' |
    grep -E '^\s+/\*[0-9a-f]{4}\*/' | sed 's#/\* 0x[0-9a-f]* \*/##; s/ \+/ /g; s/ ;.*$//' |
    grep -E 'LDG|STG|LDS|STS|LDSM|ATOM|RED|BAR|BRA|EXIT|MEMBAR' || true
done
