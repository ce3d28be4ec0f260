#!/usr/bin/env bash
# The experiment of seeds/002 on the simulated A100 80 GB: random coalesced 128-B warp reads over
# regions of 1 to 72 GiB, every SM anywhere ("all") versus each TLB group of SMs confined to one
# half of the memory ("groups": the half-GPC groups of the simulated GPU, as the seed found them
# by probing; `warpsim info --gpu a100-80gb` prints the TLB layout). Writes CSV on stdout.
#
#   validation/mem/sim_tlb_experiment.sh [--gpu a100-80gb] [--sizes 1,16,32,48,64,72] [--reads R]
#                                        [--set key=value ...] [--label L]
#
# --set passes machine overrides to warpsim, e.g. a scaled run: `--set tlb.l2_entries=1792` gives
# each group TLB a 3.5 GiB reach (64 GiB / 18.3), so sizes 0.5 ... 4 GiB (4 / 3.5 = 72 / 63) show
# the same knee with 1/18 of the warm-up reads (minutes instead of an hour of simulation). Sizes
# are capped at whole GiB by tlb_groups' allocation.
#
# The group TLBs hold 32768 x 2 MiB = 64 GiB; each launch is preceded by a warm-up launch, and the
# warp count x reads is sized so that the warm-up touches every page of the largest region several
# times (steady state, as the seed's long runs are). Slow: minutes of simulation per point.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
gpu=a100-80gb sizes=1,16,32,48,64,72 reads=1024 wps=16 label=sim_a100
sets=()
while [ $# -gt 0 ]; do
  case "$1" in
    --gpu) gpu=$2; shift 2 ;;
    --sizes) sizes=$2; shift 2 ;;
    --reads) reads=$2; shift 2 ;;
    --warps-per-sm) wps=$2; shift 2 ;;
    --set) sets+=(--set "$2"); shift 2 ;;
    --label) label=$2; shift 2 ;;
    *) echo "unknown option $1" >&2; exit 2 ;;
  esac
done
build="${TMPDIR:-/tmp}/warpsim-tlb-exp"
mkdir -p "$build"
nvcc -cudart shared -arch=sm_80 -o "$build/tlb_groups" "$here/tlb_groups.cu"
# TLB groups of the simulated GPU: per GPC, its TPCs split into tlb.groups_per_gpc contiguous
# shares (timing/memory/memory_system.cpp); SM ids run GPC by GPC.
groups=$("$root/build/warpsim" info --gpu "$gpu" "${sets[@]}" | python3 -c '
import re, sys
t = sys.stdin.read()
tpcs = [int(x) for x in re.search(r"x \[([0-9, ]+)\] TPCs", t).group(1).split(",")]
per = int(re.search(r"x (\d+) SMs/TPC", t).group(1))
g = int(re.search(r"\((\d+) groups per GPC\)", t).group(1))
out = []
for n in tpcs:
    k = min(g, n)
    cnt = [0] * k
    for tpc in range(n):
        cnt[tpc * k // n] += per
    out += cnt
print("+".join(map(str, out)))')
echo "# sim_tlb_experiment: gpu $gpu ${sets[*]}, TLB groups (SMs) $groups, $wps warps/SM x $reads reads, warm-up launch + 1"
"$root/build/warpsim" run -q --gpu "$gpu" "${sets[@]}" -- "$build/tlb_groups" --sizes "$sizes" --modes "all,groups:$groups" \
  --reads "$reads" --warps-per-sm "$wps" --no-fill --reps 1 --label "$label"
