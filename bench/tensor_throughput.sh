#!/usr/bin/env bash
# Tensor-core GEMM throughput of the timing model: workloads/gemm_pipelined (FP16 in, FP32
# accumulate, CTA tile 128x128x32, 4-stage cp.async pipeline, ldmatrix + mma.m16n8k16) built with
# nvcc as a user builds it and run under `warpsim run` in timing mode. Prints the kernel's cycles,
# FMA per clock per SM, TFLOPS at the machine's clock and the share of the dense FP16 peak
# (SMs x tensor cores x FMA/clk x 2 x clock: 312 TFLOPS on the a100), and the stall breakdown.
#   bench/tensor_throughput.sh [M N K] [--variant multistage|mbarrier|tuned] [--gpu a100]
# (tuned: the variant with precomputed addresses, fragments loaded between the mma rows and a
# coalesced epilogue; same tiles and pipeline depth)
# Default: the tuned variant at 1536 x 2304 x 4096: 12 x 18 = 216 CTAs, one full wave of 2 CTAs
# (64 KiB of shared memory each) on each of the a100's 108 SMs, K long enough that the main loop,
# not the start and the C tail, sets the figure (about 2 minutes of simulation on one core). At
# K = 1024 the fixed ~12k cycles of start and tail are a quarter of the kernel (72% of peak).
# Needs build/warpsim and nvcc. The program checks a sample of C against its CPU reference.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
WS="$ROOT/build/warpsim"
OUT="${BENCH_OUT:-$ROOT/build/bench-tensor}"
M=1536 N=2304 K=4096 variant=tuned gpu=a100
pos=()
while [[ $# -gt 0 ]]; do
  case "$1" in
    --variant) variant=$2; shift 2
      case "$variant" in multistage|mbarrier|tuned) ;; *) echo "--variant: multistage, mbarrier or tuned" >&2; exit 2 ;; esac ;;
    --gpu) gpu=$2; shift 2 ;;
    -h|--help) sed -n '2,12p' "$0"; exit 0 ;;
    *) pos+=("$1"); shift ;;
  esac
done
if [[ ${#pos[@]} -eq 3 ]]; then M=${pos[0]} N=${pos[1]} K=${pos[2]}
elif [[ ${#pos[@]} -ne 0 ]]; then echo "give all of M N K" >&2; exit 2; fi
[[ -x "$WS" ]] || { echo "build warpsim first: scripts/build.sh" >&2; exit 1; }
command -v nvcc >/dev/null || { echo "nvcc not found" >&2; exit 77; }
mkdir -p "$OUT"
src="$ROOT/workloads/gemm_pipelined/gemm_pipelined.cu"
bin="$OUT/gemm_pipelined"
[[ -x "$bin" && "$bin" -nt "$src" ]] || nvcc -cudart shared -arch=sm_80 -o "$bin" "$src"
rep="$OUT/report-$gpu-$variant-${M}x${N}x${K}"
rm -rf "$rep"
echo "== gemm_pipelined $M x $N x $K ($variant) on $gpu, timing mode; $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"
t0=$(date +%s)
"$WS" run --quiet --gpu "$gpu" --mode timing --report "$rep" -- "$bin" "$M" "$N" "$K" --variant "$variant"
t1=$(date +%s)
echo "simulation wall time: $((t1 - t0)) s"
"$WS" info --gpu "$gpu" > "$OUT/info-$gpu.txt"
python3 - "$rep/report.json" "$M" "$N" "$K" "$OUT/info-$gpu.txt" <<'PY'
import json, re, sys
r = json.load(open(sys.argv[1]))
info = open(sys.argv[5]).read()
M, N, K = map(int, sys.argv[2:5])
ks = [k for k in r["kernels"] if k["name"].startswith(("_Z15gemm_multistage", "_Z13gemm_mbarrier", "_Z10gemm_tuned"))]
assert len(ks) == 1, "expected one GEMM kernel in the report"
k = ks[0]
t = k["timing"]
cyc, launch, sms, mhz = t["cycles"], t.get("launch_cycles", 0), t["sms"], t["clock_mhz"]
fma = M * N * K
# Dense FP16 peak of the simulated machine from `warpsim info`: tensor cores per SM x f16 FMA/clk
# per core (a100: 4 x 256, the whitepaper's 312 TFLOPS at 1410 MHz on 108 SMs).
cores = int(re.search(r"tensor cores\s*\n\s*per SM\s+(\d+)", info).group(1))
per_core = int(re.search(r"dense FMA/clk per core\s+f16 (\d+)", info).group(1))
peak_fma_sm = cores * per_core
def line(label, c):
    per_sm = fma / c / sms
    tflops = 2 * fma / (c / (mhz * 1e6)) / 1e12
    peak = 2 * peak_fma_sm * sms * mhz * 1e6 / 1e12
    print(f"{label:<34} cycles {c:>9}  {per_sm:8.1f} FMA/clk/SM  {tflops:7.1f} TFLOPS @ {mhz} MHz  "
          f"{100 * tflops / peak:5.1f}% of {peak:.0f} TFLOPS peak")
print(f"kernel {k['demangled']}: grid {k['grid']}, {t['ctas']} CTAs, {t['ctas_per_sm']} CTAs/SM, "
      f"{t['sms_used']}/{sms} SMs, {t['warp_instructions']} warp instructions, {k['registers']} registers")
# "cycles" runs from the first CTA's start to the last store's acknowledgement; the launch
# overhead (launch_cycles) comes on top of it (time_ns counts both).
line("kernel", cyc)
if launch:
    line("kernel + launch overhead", cyc + launch)
print(f"IPC/SM {t['ipc_per_sm']:.3f}  issue-slot utilisation {t['issue_slot_utilisation']:.3f}  "
      f"achieved occupancy {t['achieved_occupancy']:.3f} (theoretical {t['theoretical_occupancy']:.3f})  "
      f"icache misses {t['icache_misses']}")
# Tensor pipe: each mma.m16n8k16 holds a tensor core 2048 / (FMA/clk per core) cycles.
mmas = fma // 2048
busy = mmas * (2048 / per_core)
print(f"tensor pipe utilisation (mma busy cycles / (cores x SMs x cycles)): {100 * busy / (cores * sms * cyc):.1f}%")
ws = t["warp_states"]
tot = sum(ws.values())
print("warp states (share of warp-cycles):")
for name, v in sorted(ws.items(), key=lambda kv: -kv[1]):
    if v:
        print(f"  {name:<28} {100 * v / tot:5.1f}%")
mem = t.get("memory", {})
for key in ("l1tex__data_bank_conflicts_pipe_lsu_mem_shared.sum", "lts__t_sector_hit_rate.pct", "dram__bytes_read.sum"):
    if key in mem:
        print(f"  {key} = {mem[key]}")
PY
