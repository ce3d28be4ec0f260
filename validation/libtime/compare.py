#!/usr/bin/env python3
"""Library programs, simulated vs measured: per library call and per kernel.

  compare.py flatten HW_OUT_DIR > h100_ncu.csv              # the measure_hw.sh metrics, one CSV
  compare.py stalls HW_OUT_DIR > h100_stalls_ncu.csv         # issue slots, stall reasons, launch shape
  compare.py table h100_ncu.csv h100_stalls_ncu.csv sim_h100.csv   # markdown for docs/validation-workloads.md

Kernels are grouped by the library call that launched them (the H100 and the simulator may run a
call as different kernels: cuBLAS's GEMM and cuFFT's large sizes are SASS-only, and warpsim runs its
own PTX kernels for them); kernels of the same name at the same launch index are also compared one
by one, with their warp-stall reasons (cycles per issued warp instruction, as ncu's
smsp__average_warps_issue_stalled_*_per_issue_active.ratio; the simulator's warp_states divided by
its warp instructions).
"""
import csv
import math
import os
import sys
from collections import OrderedDict, defaultdict

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "workloads"))
import compare as wl  # noqa: E402  (flatten, load, num, gmean)

num, gmean = wl.num, wl.gmean


def call_of(w, name, seen):
    """The library call a kernel belongs to (kernels come in call order)."""
    n = name.lower()
    if w == "lt_cub":
        return "cub SortPairs 1M u32" if "radix" in n else "cub Reduce::Sum 4M f32" if "reduce" in n else "cub InclusiveSum 4M f32"
    if w == "lt_thrust":
        return "thrust device_vector fill 4M" if ("for_each" in n or "fill" in n) else "thrust transform 4M" if "transform" in n else "thrust reduce 4M"
    if w == "lt_cublas":  # the GEMM comes first; warpsim runs the GEMV as its GEMM kernel too
        if "gemv" in n or "gemm" in seen:
            seen.add("gemv")
        seen.add("gemm")
        return "cublasSgemv 4096" if "gemv" in seen else "cublasSgemm 1024^3"
    return "cufftExecC2C 2^16 x 16"


def ncu_rows(d, suffix):
    import glob
    out = OrderedDict()
    for path in sorted(glob.glob(os.path.join(d, "*%s.csv" % suffix))):
        w = os.path.basename(path)[: -len(suffix) - 4]
        if suffix == "" and w.endswith("_stalls"):
            continue
        rows = [l for l in open(path) if l.startswith('"')]
        kern = OrderedDict()
        for r in csv.DictReader(rows):
            k = kern.setdefault(r["ID"], {"name": r["Kernel Name"]})
            k[r["Metric Name"]] = r["Metric Value"]
        out[w] = list(kern.values())
    return out


def stalls(d):
    o = csv.writer(sys.stdout, lineterminator="\n")
    o.writerow(["workload", "index", "kernel", "issue_slot_pct", "registers", "grid", "block", "smem_static", "smem_dynamic",
                "stalls_per_instruction"])
    for w, ks in ncu_rows(d, "_stalls").items():
        for i, k in enumerate(ks):
            st = {m.split("stalled_")[1].split("_per_issue")[0]: num(v) for m, v in k.items() if "stalled_" in m}
            o.writerow([w, i, k["name"], k.get("smsp__issue_active.avg.pct_of_peak_sustained_active", ""),
                        k.get("launch__registers_per_thread", ""), k.get("launch__grid_size", ""), k.get("launch__block_size", ""),
                        k.get("launch__shared_mem_per_block_static", ""), k.get("launch__shared_mem_per_block_dynamic", ""),
                        " ".join(f"{a}={b:.2f}" for a, b in sorted(st.items(), key=lambda x: -x[1]) if b >= 0.005)])


def parse_stalls(s):
    out = {}
    for t in (s or "").split():
        a, b = t.split("=")
        out[a.replace("no_instructions", "no_instruction")] = float(b)
    return out


def top(st, n=5):
    return ", ".join(f"{a} {b:.2f}" for a, b in sorted(st.items(), key=lambda x: -x[1])[:n])


def table(hw_path, hst_path, sim_path):
    hw, sim = wl.load(hw_path), wl.load(sim_path)
    hst = wl.load(hst_path)
    print("| library call | kernels hw / sim | measured us | simulated us | sim / hw | measured cycles | simulated cycles + launch | warp instr. hw (SASS) / sim (PTX) | DRAM MB hw / sim |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    ratios = []
    for w in hw:
        calls = OrderedDict()
        seen_h, seen_s = set(), set()
        for a in hw[w]:
            calls.setdefault(call_of(w, a["kernel"], seen_h), ([], []))[0].append(a)
        for b in sim.get(w, []):
            calls.setdefault(call_of(w, b["kernel"], seen_s), ([], []))[1].append(b)
        for c, (h, s) in calls.items():
            if not h or not s:
                print(f"| {c} | {len(h)} / {len(s)} | | | | | | | |")
                continue
            ht = sum(num(a["time_ns"]) for a in h) / 1e3
            st = sum(num(b["time_ns"]) for b in s) / 1e3
            hc = sum(num(a["cycles"]) for a in h)
            sc = sum(num(b["cycles"]) + num(b["launch_cycles"]) for b in s)
            hi = sum(num(a["sass_warp_instructions"]) for a in h)
            si = sum(num(b["warp_instructions"]) for b in s)
            dh = sum(num(a["dram_bytes_read"]) + num(a["dram_bytes_write"]) for a in h) / 1e6
            ds = sum(num(b["dram_bytes_read"]) + num(b["dram_bytes_write"]) for b in s) / 1e6
            r = st / ht
            ratios.append(r)
            print(f"| {c} | {len(h)} / {len(s)} | {ht:,.1f} | {st:,.1f} | {r:.2f} | {hc:,.0f} | {sc:,.0f} | {hi:,.0f} / {si:,.0f} | {dh:.1f} / {ds:.1f} |")
    inside = sum(1 for x in ratios if 0.8 <= x <= 1.25)
    print(f"\nLibrary calls: {len(ratios)}; geometric mean of sim/hw time {gmean(ratios):.2f}; within 0.8-1.25: {inside}, "
          f"within 0.5-2: {sum(1 for x in ratios if 0.5 <= x <= 2)}.\n")
    print("| kernel (program #index) | hw / sim us | sim / hw | issue slots % hw / sim | L2 hit % hw / sim | stalls per instruction, H100 | stalls per instruction, sim |")
    print("| --- | --- | --- | --- | --- | --- | --- |")
    for w in hw:
        hs = {int(r["index"]): r for r in hst.get(w, [])}
        for i, a in enumerate(hw[w]):
            s = sim.get(w, [])
            b = s[i] if i < len(s) and s[i]["kernel"] == a["kernel"] else None
            x = hs.get(i, {})
            short = a["kernel"]
            for key in ("Onesweep", "Histogram", "ExclusiveSum", "SingleTile", "ReduceKernel", "ScanInit", "ScanKernel",
                        "static_kernel", "transform_kernel", "xmma_gemm", "gemvx", "regular_fft"):
                if key.lower() in short.lower():
                    short = key
                    break
            hst_s = top(parse_stalls(x.get("stalls_per_instruction", "")))
            if b is None:
                print(f"| {w} #{i} {short} | {num(a['time_ns'])/1e3:.1f} / - | - | {x.get('issue_slot_pct', '')} / - | {a['lts_hit_pct']} / - | {hst_s} | (not run by the simulator) |")
                continue
            print(f"| {w} #{i} {short} | {num(a['time_ns'])/1e3:.1f} / {num(b['time_ns'])/1e3:.1f} | {num(b['time_ns'])/num(a['time_ns']):.2f} | "
                  f"{x.get('issue_slot_pct', '')} / {b.get('issue_slot_pct', '')} | {num(a['lts_hit_pct']):.0f} / {num(b['lts_hit_pct']):.0f} | {hst_s} | "
                  f"{top(parse_stalls(b.get('stalls_per_instruction', '')))} |")
    for w in sim:
        hn = {a["kernel"] for a in hw.get(w, [])}
        for i, b in enumerate(sim[w]):
            if b["kernel"] not in hn:
                print(f"| {w} #{i} {b['kernel'][:40]} (simulator only) | - / {num(b['time_ns'])/1e3:.1f} | - | - / {b.get('issue_slot_pct', '')} | - / {num(b['lts_hit_pct']):.0f} | | {top(parse_stalls(b.get('stalls_per_instruction', '')))} |")


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "flatten":
        wl.flatten(sys.argv[2])
    elif len(sys.argv) == 3 and sys.argv[1] == "stalls":
        stalls(sys.argv[2])
    elif len(sys.argv) == 5 and sys.argv[1] == "table":
        table(sys.argv[2], sys.argv[3], sys.argv[4])
    else:
        sys.exit(__doc__)
