#!/usr/bin/env python3
"""Corpus workloads, simulated vs measured per kernel.

  compare.py flatten HW_OUT_DIR > h100_ncu.csv      # ncu --csv files of measure_hw.sh -> one CSV
  compare.py table h100_ncu.csv sim_h100.csv        # markdown tables for docs/validation-workloads.md

Kernels are matched by launch order within a workload; a name mismatch is reported, not matched.
"""
import csv
import math
import sys
from collections import OrderedDict, defaultdict

NCU = OrderedDict([
    ("cycles", "sm__cycles_elapsed.max"),
    ("time_ns", "gpu__time_duration.sum"),
    ("sass_warp_instructions", "smsp__inst_executed.sum"),
    ("dram_bytes_read", "dram__bytes_read.sum"),
    ("dram_bytes_write", "dram__bytes_write.sum"),
    ("lts_sectors_read", "lts__t_sectors_op_read.sum"),
    ("lts_sectors_write", "lts__t_sectors_op_write.sum"),
    ("lts_hit_pct", "lts__t_sector_hit_rate.pct"),
    ("l1tex_hit_pct", "l1tex__t_sector_hit_rate.pct"),
    ("achieved_occupancy_pct", "sm__warps_active.avg.pct_of_peak_sustained_active"),
])


def num(s):
    s = (s or "").replace(",", "").strip()
    try:
        return float(s)
    except ValueError:
        return math.nan


def flatten(d):
    import glob
    import os
    out = csv.writer(sys.stdout, lineterminator="\n")
    out.writerow(["workload", "index", "kernel"] + list(NCU))
    for path in sorted(glob.glob(os.path.join(d, "*.csv"))):
        w = os.path.basename(path)[:-4]
        rows = [l for l in open(path) if l.startswith('"')]
        kern = OrderedDict()
        for r in csv.DictReader(rows):
            k = kern.setdefault(r["ID"], {"name": r["Kernel Name"]})
            k[r["Metric Name"]] = r["Metric Value"]
        for i, k in enumerate(kern.values()):
            out.writerow([w, i, k["name"]] + [k.get(m, "") for m in NCU.values()])


def load(path):
    rows = [l for l in open(path) if not l.startswith("#")]
    d = defaultdict(list)
    for r in csv.DictReader(rows):
        d[r["workload"]].append(r)
    return d


def gmean(xs):
    xs = [x for x in xs if x > 0 and math.isfinite(x)]
    return math.exp(sum(map(math.log, xs)) / len(xs)) if xs else math.nan


def table(hw_path, sim_path):
    hw, sim = load(hw_path), load(sim_path)
    print("| workload | kernels | measured us | simulated us | sim / hw | measured cycles | simulated cycles + launch | DRAM MB hw / sim |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- |")
    ratios, kratios, mismatched = [], [], []
    for w in hw:
        h, s = hw[w], sim.get(w, [])
        pairs = []
        for i in range(min(len(h), len(s))):
            if h[i]["kernel"] != s[i]["kernel"]:
                mismatched.append(f"{w}#{i}: {h[i]['kernel']} vs {s[i]['kernel']}")
                continue
            pairs.append((h[i], s[i]))
        if not pairs:
            print(f"| {w} | 0 of {len(h)} matched | | | | | | |")
            continue
        ht = sum(num(a["time_ns"]) for a, _ in pairs) / 1e3
        st = sum(num(b["time_ns"]) for _, b in pairs) / 1e3
        hc = sum(num(a["cycles"]) for a, _ in pairs)
        sc = sum(num(b["cycles"]) + num(b["launch_cycles"]) for _, b in pairs)
        for a, b in pairs:
            kratios.append(num(b["time_ns"]) / num(a["time_ns"]))
        dh = sum(num(a["dram_bytes_read"]) + num(a["dram_bytes_write"]) for a, _ in pairs) / 1e6
        ds = sum(num(b["dram_bytes_read"]) + num(b["dram_bytes_write"]) for _, b in pairs) / 1e6
        r = st / ht if ht else math.nan
        ratios.append(r)
        more = f" of {len(h)}" if len(pairs) < len(h) else ""
        print(f"| {w} | {len(pairs)}{more} | {ht:,.1f} | {st:,.1f} | {r:.2f} | {hc:,.0f} | {sc:,.0f} | {dh:.2f} / {ds:.2f} |")
    print()
    inside = lambda lo, hi: sum(1 for x in ratios if lo <= x <= hi)
    print(f"Workloads: {len(ratios)}; geometric mean of sim/hw time {gmean(ratios):.2f}; "
          f"within 0.8-1.25: {inside(0.8, 1.25)}, within 0.5-2: {inside(0.5, 2)}. "
          f"Kernels: {len(kratios)}, geometric mean {gmean(kratios):.2f}.")
    if mismatched:
        print("\nUnmatched (name differs at the same launch index): " + "; ".join(mismatched))


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "flatten":
        flatten(sys.argv[2])
    elif len(sys.argv) == 4 and sys.argv[1] == "table":
        table(sys.argv[2], sys.argv[3])
    else:
        sys.exit(__doc__)
