#!/usr/bin/env bash
# Second H100 run of l2_bw.cu (after l2_bw_hw.sh): section G (which SMs share the per-GPC limit),
# sections B and C again (repeatability), and ncu counts: per-slice spread of a 2 MiB range, and the
# fabric (far-partition) traffic of one GPC reading 8 MiB. Writes into OUTDIR (default ./l2bw_out2).
set -uo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
out="${1:-l2bw_out2}"
mkdir -p "$out"
bin=$(mktemp -d)
nvcc -O3 -cudart shared -arch=sm_90 -o "$bin/l2_bw90" "$here/l2_bw.cu" > "$out/env.txt" 2>&1
date -u >> "$out/env.txt"
timeout 200 "$bin/l2_bw90" --reps 5 --sections GBC > "$out/l2_bw_sm90_g.csv" 2>> "$out/env.txt"
echo "== exit $? $(date -u +%T)" >> "$out/env.txt"
m=lts__t_sectors.sum,lts__t_sectors.avg,lts__t_sectors.max,lts__t_sectors.min,lts__t_sectors_srcunit_ltcfabric.sum,lts__t_sectors_srcunit_tex_op_read.sum,lts__t_sectors_srcunit_tex_op_read_lookup_hit.sum,lts__cycles_elapsed.avg.per_second,sm__cycles_elapsed.avg.per_second
{
    echo "== every SM, W16 U4, 2 MiB (8 MiB per SM)"
    timeout 100 ncu -k regex:k_bw --launch-skip 1 --launch-count 1 --print-units base --metrics $m \
        "$bin/l2_bw90" --quick --reps 1 --no-warm-each --sections E --per-sm-kib 8192 --only-ws 2
    echo "== one GPC x 16, W32 U4, 8 MiB (group 0; 16 MiB per SM; its 2nd launch: launch 10)"
    timeout 100 ncu -k regex:k_bw --launch-skip 10 --launch-count 1 --print-units base --metrics $m \
        "$bin/l2_bw90" --quick --reps 2 --sections B --per-sm-kib 16384 --only-ws 8
    echo "== every SM, W32 U4, 8 MiB, clocks not locked"
    timeout 100 ncu --clock-control none -k regex:k_bw --launch-skip 8 --launch-count 1 --print-units base --metrics $m \
        "$bin/l2_bw90" --quick --reps 1 --no-warm-each --sections D --per-sm-kib 4096 --only-ws 8
} > "$out/ncu2.txt" 2>&1
rm -rf "$bin"
