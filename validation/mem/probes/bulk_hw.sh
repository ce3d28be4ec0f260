#!/usr/bin/env bash
# Runs validation/mem/probes/bulk.cu on the local GPU (what produced h100_bulk_measured.csv) and
# records the conditions into OUTDIR (default ./bulk_out):
#   env.txt          nvidia-smi, nvcc version, clocks before and after, the SASS opcodes of the copies
#   clocks.csv       SM / memory clock sampled every 200 ms while the probe runs
#   bulk_sm90.csv    sections L (global -> shared latency), W (shared -> global), S (streams), --reps 5
#                    (SECTIONS=... picks others: the second run was SECTIONS=LV NCU=0, the third SECTIONS=SVLW NCU=0, the fourth SECTIONS=IM NCU=0)
#   ncu.txt          Nsight Compute on section N: L2 sectors / DRAM bytes of one 4 KiB copy each way
#                    and of one SM streaming 1 MiB (ncu's default --cache-control all)
# Usage: validation/mem/probes/bulk_hw.sh [OUTDIR]
set -uo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
out="${1:-bulk_out}"
mkdir -p "$out"
bin=$(mktemp -d)
{
    date -u
    nvidia-smi
    nvcc --version
    nvidia-smi -q -d CLOCK
} > "$out/env.txt" 2>&1
nvidia-smi --query-gpu=timestamp,clocks.sm,clocks.mem,power.draw --format=csv -lms 200 > "$out/clocks.csv" 2>&1 &
sampler=$!
nvcc -O3 -cudart shared -arch=sm_90 -o "$bin/bulk90" "$here/bulk.cu" >> "$out/env.txt" 2>&1
{
    echo "== SASS opcodes of the bulk-copy kernels"
    cuobjdump -sass "$bin/bulk90" | grep -oE "(UBLKCP|UTMALDG|UTMASTG|SYNCS|FENCE|UBLKRED|ARRIVES|DEPBAR)[A-Z0-9_.]*" | sort | uniq -c
    echo "== k_stream SASS"
    cuobjdump -sass "$bin/bulk90" | awk '/Function : / {on = /k_stream/} on' | grep -E "^\s+/\*[0-9a-f]+\*/" | head -160
} >> "$out/env.txt" 2>&1
echo "== run start $(date -u +%T)" >> "$out/env.txt"
timeout 300 "$bin/bulk90" --reps 5 --sections "${SECTIONS:-LWS}" > "$out/bulk_sm90.csv" 2>> "$out/env.txt"
echo "== run exit $? $(date -u +%T)" >> "$out/env.txt"
kill $sampler 2>/dev/null
nvidia-smi -q -d CLOCK >> "$out/env.txt" 2>&1
if [ "${NCU:-1}" = 1 ] && command -v ncu > /dev/null; then
    ncu --query-metrics --chip gh100 > "$bin/metrics_all.txt" 2>&1
    want="lts__t_sectors_op_read lts__t_sectors_op_write lts__t_requests_op_read lts__t_requests_op_write
lts__t_sectors_srcunit_tex_op_read lts__t_sectors_srcunit_tex_op_write lts__t_sectors_srcunit_ltcfabric
lts__t_sector_op_read_hit_rate dram__bytes_read dram__bytes_write l1tex__m_xbar2l1tex_read_sectors
l1tex__m_l1tex2xbar_write_sectors smsp__inst_executed sm__cycles_elapsed gpu__time_duration"
    m=""
    for b in $want; do
        if grep -qw "$b" "$bin/metrics_all.txt"; then
            case $b in
                gpu__time_duration | sm__cycles_elapsed) m="$m,$b.max" ;;
                lts__t_sector_op_read_hit_rate) m="$m,$b.pct" ;;
                *) m="$m,$b.sum" ;;
            esac
        fi
    done
    echo "metrics: ${m#,}" > "$out/ncu.txt"
    timeout 180 ncu -k regex:"k_lat|k_stream" --print-units base --metrics "${m#,}" "$bin/bulk90" --sections N \
        >> "$out/ncu.txt" 2>&1
    echo "== ncu exit $?" >> "$out/ncu.txt"
else
    echo "no ncu" > "$out/ncu.txt"
fi
rm -rf "$bin"
