#!/usr/bin/env bash
# On the H100: the kernels' SASS sizes and, under ncu --cache-control all, their DRAM and L2 reads.
#   validation/mem/probes/ifetch_dram_hw.sh OUTDIR
set -uo pipefail
here="$(cd "$(dirname "$0")" && pwd)"; out=${1:-$OUT}
mkdir -p "$out"; b=$(mktemp -d)
nvcc -cudart shared -arch=sm_90 -O3 -o "$b/ifetch_dram" "$here/ifetch_dram.cu" || exit 1
nvidia-smi --query-gpu=name,driver_version,clocks.sm --format=csv > "$out/ifetch_dram_gpu.txt" 2>&1
cuobjdump -elf "$b/ifetch_dram" | grep -E "^\s*\[ *[0-9]+\]|\.text\." > "$out/ifetch_dram_sections.txt" 2>&1
cuobjdump -sass "$b/ifetch_dram" | grep -cE "^\s+/\*[0-9a-f]{4}\*/" > "$out/ifetch_dram_sass_lines.txt" 2>&1
ncu --cache-control all --csv --metrics dram__bytes_read.sum,dram__sectors_read.sum,lts__t_sectors_op_read.sum,lts__t_requests_srcunit_tex_op_read.sum,gpu__time_duration.sum \
    "$b/ifetch_dram" > "$out/ifetch_dram_ncu.csv" 2> "$out/ifetch_dram_ncu.err"
echo "rc=$?" >> "$out/ifetch_dram_ncu.err"
