#!/usr/bin/env bash
# Nsight Compute L2/DRAM sector counters of l2_hits.cu on the H100 (cold L2: --cache-control all,
# and the `twice` case also with --cache-control none). Writes OUTDIR/l2_hits_ncu.csv and env.txt.
set -uo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
out="${1:-l2_hits_out}"
mkdir -p "$out"
bin=$(mktemp -d)
nvcc -O3 -cudart shared -arch=sm_90 -o "$bin/l2_hits" "$here/l2_hits.cu" 2> "$out/env.txt" || exit 1
{ nvidia-smi --query-gpu=name,driver_version --format=csv; ncu --version | tail -1; } >> "$out/env.txt" 2>&1
ncu --query-metrics --chip gh100 2>/dev/null | grep -E "^(lts__|dram__)" > "$out/lts_metrics.txt"
m="lts__t_sectors_op_read.sum,lts__t_sectors_op_read_lookup_hit.sum,lts__t_sectors_op_read_lookup_miss.sum"
m="$m,lts__t_sectors_srcunit_tex_op_read.sum,lts__t_sectors_srcunit_tex_op_read_lookup_hit.sum,lts__t_sectors_srcunit_tex_op_read_lookup_miss.sum"
m="$m,lts__t_sectors_srcunit_ltcfabric.sum,lts__t_sectors_srcunit_ltcfabric_lookup_hit.sum,lts__t_sectors_srcunit_ltcfabric_lookup_miss.sum"
m="$m,lts__t_requests_srcunit_tex_op_read.sum,lts__t_sector_hit_rate.pct,lts__t_sector_op_read_hit_rate.pct"
m="$m,dram__sectors_read.sum,dram__bytes_read.sum,lts__t_sectors_srcunit_tex.sum,lts__t_sectors.sum,gpu__time_duration.sum"
# Keep the metrics this ncu knows (an unknown one fails the whole run).
keep=""
for x in ${m//,/ }; do
  base=${x%.*}
  if grep -q "^$base " "$out/lts_metrics.txt" || [[ $base == gpu__time_duration ]]; then keep="$keep${keep:+,}$x"; else echo "dropped $x" >> "$out/env.txt"; fi
done
m=$keep
run() {  # tag cache-control args...
  local tag=$1 cc=$2; shift 2
  ncu --csv --cache-control "$cc" --metrics "$m" "$bin/l2_hits" "$@" > "$out/$tag.csv" 2>> "$out/env.txt"
  echo "== $tag ($cc): $* exit $?" >> "$out/env.txt"
}
run stream_16M all stream 4194304
run stream_1M all stream 262144
run stride32 all stride 4194304 32
run stride8 all stride 4194304 8
run shared_256K all shared 65536 1
run shared_256K_x4 all shared 65536 4
run twice_flush all twice 4194304
run twice_warm none twice 4194304
( cd "$out" && for f in *.csv; do echo "### $f"; cat "$f"; done ) > "$out/l2_hits_ncu.csv"
