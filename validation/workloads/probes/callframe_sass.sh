#!/usr/bin/env bash
# The sm_90 calling convention behind the decoder's call frames (src/func/schedule.cpp,
# add_call_frame): ptxas -v's frame and spill sizes per function of device_calls.ptx, and the SASS
# of its kernel with the device functions (fib at the first CALL.REL target, tree_max_path at the
# second): STL of the saved registers at entry, LDL of them before RET.REL.NODEC R20.
#   validation/workloads/probes/callframe_sass.sh > validation/workloads/probes/callframe_sm90_sass.txt
# Needs ptxas and cuobjdump (CUDA 13.0 was used; CUOBJDUMP=path where the toolkit lacks it).
set -euo pipefail
root="$(cd "$(dirname "$0")/../../.." && pwd)"
CUOBJDUMP="${CUOBJDUMP:-cuobjdump}"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
echo "# ptxas -v -arch=sm_90 ($(ptxas --version | grep -o 'release [0-9.]*')) on workloads/device_calls/device_calls.ptx"
ptxas -v -arch=sm_90 -o "$tmp/dc.cubin" "$root/workloads/device_calls/device_calls.ptx" 2>&1 |
  grep -E 'Function properties|stack frame' | paste - - | sed 's/ptxas info *: //g; s/\t */ | /'
echo; echo "# cuobjdump -sass: the kernel, then its device functions"
"$CUOBJDUMP" -sass "$tmp/dc.cubin" | grep -E '^\s+/\*[0-9a-f]{4}\*/' | sed 's#/\* 0x[0-9a-f]* \*/##; s/ \+/ /g; s/ ;.*$//'
