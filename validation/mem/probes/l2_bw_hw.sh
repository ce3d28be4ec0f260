#!/usr/bin/env bash
# Runs validation/mem/probes/l2_bw.cu on the local GPU (what produced h100_l2_bw_measured.csv) and
# records the conditions into OUTDIR (default ./l2bw_out):
#   env.txt         nvidia-smi, nvcc version, clocks before and after
#   clocks.csv      SM / memory clock sampled every 200 ms while the probe runs
#   l2_bw_sm90.csv  the probe built for sm_90, every section, --reps 5
#   l2_bw_sm80.csv  the same program built for sm_80 (PTX JIT-compiled by the driver), sections D and F
#   sass.txt        cuobjdump -sass of the sm_90 build (k_bw<U> loops)
#   ncu.txt         if ncu is present: L2 slice (lts) instance counts and peak rates for one configuration
# Usage: validation/mem/probes/l2_bw_hw.sh [OUTDIR]
set -uo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
out="${1:-l2bw_out}"
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
nvcc -O3 -cudart shared -arch=sm_90 -o "$bin/l2_bw90" "$here/l2_bw.cu" >> "$out/env.txt" 2>&1
nvcc -O3 -cudart shared -arch=sm_80 -o "$bin/l2_bw80" "$here/l2_bw.cu" >> "$out/env.txt" 2>&1
cuobjdump -sass "$bin/l2_bw90" > "$out/sass.txt" 2>&1
echo "== sm_90 start $(date -u +%T)" >> "$out/env.txt"
timeout 300 "$bin/l2_bw90" --reps 5 > "$out/l2_bw_sm90.csv" 2>> "$out/env.txt"
echo "== sm_90 exit $? $(date -u +%T)" >> "$out/env.txt"
timeout 120 "$bin/l2_bw80" --reps 5 --gpcs 16,16,16,16,16,16,16,16 --sections DF > "$out/l2_bw_sm80.csv" 2>> "$out/env.txt"
echo "== sm_80 exit $? $(date -u +%T)" >> "$out/env.txt"
kill "$sampler" 2>/dev/null
nvidia-smi -q -d CLOCK >> "$out/env.txt" 2>&1
if command -v ncu > /dev/null; then
    {
        ncu --version
        # one configuration (every SM, W32 U4, 8 MiB), its first timed launches: per-slice sectors
        # (instance values: how many lts units, how evenly a contiguous 8 MiB spreads over them) and
        # the tool's nominal peak rates
        timeout 150 ncu -k regex:k_bw --launch-skip 8 --launch-count 1 --print-units base \
            --metrics lts__t_sectors.sum,lts__t_sectors.avg,lts__t_sectors.max,lts__t_sectors.min,lts__t_bytes.sum.peak_sustained,lts__t_bytes.sum.per_second,lts__cycles_elapsed.avg.per_second,lts__cycles_elapsed.avg,sm__cycles_elapsed.avg,l1tex__m_xbar2l1tex_read_bytes.sum.peak_sustained,l1tex__m_xbar2l1tex_read_bytes.sum.per_second,lts__t_sectors_srcunit_tex_op_read.sum,lts__t_sectors_srcunit_tex_op_read_lookup_hit.sum \
            "$bin/l2_bw90" --quick --reps 1 --no-warm-each --sections D --per-sm-kib 4096 --only-ws 8
        echo "== instances"
        timeout 100 ncu -k regex:k_bw --launch-skip 8 --launch-count 1 --print-metric-instances values \
            --metrics lts__t_sectors.sum,lts__t_sectors_srcunit_tex_op_read.sum \
            "$bin/l2_bw90" --quick --reps 1 --no-warm-each --sections D --per-sm-kib 4096 --only-ws 8
        echo "== fabric"
        timeout 100 ncu -k regex:k_bw --launch-skip 8 --launch-count 1 --print-units base \
            --metrics lts__t_sectors_srcunit_ltcfabric.sum,lts__t_sectors_srcunit_tex.sum,lts__t_sectors_srcunit_tex_lookup_hit.sum \
            "$bin/l2_bw90" --quick --reps 1 --no-warm-each --sections D --per-sm-kib 4096 --only-ws 8
    } > "$out/ncu.txt" 2>&1
else
    echo "ncu not found" > "$out/ncu.txt"
fi
rm -rf "$bin"
