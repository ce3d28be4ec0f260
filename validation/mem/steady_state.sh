#!/usr/bin/env bash
# Steady-state DRAM use of one STREAM kernel in the simulator (docs/validation-mem.md, "What bounds
# each bandwidth"): builds steady.cu, runs it under WARPSIM_MEM_SAMPLE=20000 and averages the
# sampler's lines without the first two and the last three (ramp-up, and the tail where the L2
# absorbs the last writes): share of the DRAM peak, row hits / conflicts, read-to-write turnarounds.
#
#   validation/mem/steady_state.sh copy|read|init [MiB] [warpsim run options...]
#   e.g. validation/mem/steady_state.sh copy 128 --gpu a100
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
what=${1:?copy, read or init}; mib=${2:-128}; shift $(( $# >= 2 ? 2 : 1 ))
warpsim=${WARPSIM:-$here/../../build/warpsim}
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
nvcc -cudart shared -arch=sm_80 -O3 -o "$tmp/steady" "$here/steady.cu"
WARPSIM_MEM_SAMPLE=20000 "$warpsim" run -q "$@" -- "$tmp/steady" "$what" "$mib" 2>&1 | awk '
  /warpsim: mem/ { n++; for (i = 1; i <= NF; i++) {
      if ($i ~ /^\(/) busy[n] = substr($i, 2)
      split($i, kv, "="); v[kv[1], n] = kv[2] } }
  /GB\/s/ { res = $0 }
  END { k = 0; for (i = 3; i <= n - 3; i++) { k++; b += busy[i]; h += v["row_hits", i]; c += v["conflicts", i]; m += v["misses", i]; t += v["rd_to_wr", i] }
        if (k == 0) { print "too few samples (use more MiB)"; exit 1 }
        printf "steady state over %d samples: DRAM %.1f%% of peak, row hits %.1f%%, conflicts %.1f%%, rd->wr turnarounds %.0f per 20000 cycles\n%s\n", k, b / k, 100 * h / (h + c + m), 100 * c / (h + c + m), t / k, res }'
