#!/usr/bin/env bash
# Builds and runs the MUFU measurement (mufu_measure.cu) and the CUDA test program
# tests/cudart/mufu_results.cu on the GPU, and packs what they wrote into OUTDIR:
#   sass.txt          the MUFU/FMUL lines of each measurement kernel (one MUFU, no refinement)
#   summary.txt       per input set, histogram of (hardware - correctly rounded) in ulps
#   *.tar.xz          the per-input differences (int32 little-endian) and half.raw
#   mufu_results.out  the test program's output (its expected file)
# Usage (from a directory holding mufu_measure.cu and mufu_results.cu): run_h100.sh OUTDIR
set -u
out=${1:?OUTDIR}
mkdir -p "$out" work
nvcc -arch=sm_90a -O2 -o work/mufu_measure mufu_measure.cu || exit 1
nvcc -arch=sm_90 -o work/mufu_results mufu_results.cu || exit 1
cuobjdump -sass work/mufu_measure | grep -E "Function|MUFU|FMUL|FFMA|FADD|FSETP|FSEL|HADD2|HMUL2|F2F|RRO" > "$out/sass.txt"
./work/mufu_results > "$out/mufu_results.out"; echo "mufu_results exit $?" >> "$out/mufu_results.out"
time ./work/mufu_measure work || exit 1
cp work/summary.txt "$out/"
cd work
tar -cf - rcp_1_2.diff rsq_1_4.diff | xz -T16 -6 > "$out/rcp_rsq.tar.xz"
tar -cf - lg2_*.diff | xz -T16 -6 > "$out/lg2.tar.xz"
tar -cf - ex2_*.diff | xz -T16 -6 > "$out/ex2.tar.xz"
tar -cf - sin_*.diff cos_*.diff | xz -T16 -6 > "$out/sincos.tar.xz"
tar -cf - tanh_*.diff rcp_*wide.diff rsq_*wide.diff half.raw | xz -T16 -6 > "$out/tanh_wide_half.tar.xz"
ls -l "$out"
