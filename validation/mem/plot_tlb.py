#!/usr/bin/env python3
"""Plots the tlb_groups experiment: GB/s against region size, one line per mode ("all", "half_g<G>",
"rand") and per benchmark label (tlb_groups, tlb_groups_w4, ...).

    python3 validation/mem/plot_tlb.py CSV [CSV...] [--out tlb_groups.svg] [--title TEXT]

Input: CSVs from validation/mem/run.sh or h100_measured.csv (`benchmark,metric,value,unit`, metric
<mode>_<S>GiB, `#` lines are comments); rows of other benchmarks are ignored. Output: SVG or PNG
(by the extension of --out). Needs matplotlib (validation/mem/requirements.txt).
"""
import argparse
import csv
import re
import sys
from collections import defaultdict

METRIC = re.compile(r"^(?P<mode>.+)_(?P<size>[0-9.]+)GiB$")


def read(paths):
    series = defaultdict(list)  # (label, mode) -> [(GiB, GB/s)]
    for path in paths:
        with open(path) as f:
            lines = [l for l in f if l.strip() and not l.startswith("#")]
        for r in csv.reader(lines):
            if len(r) < 3 or not r[0].startswith("tlb_groups"):
                continue
            m = METRIC.match(r[1].strip())
            if not m:
                continue
            try:
                v = float(r[2])
            except ValueError:
                continue
            label = r[0].strip()
            series[(label, m.group("mode"))].append((float(m.group("size")), v))
    return series


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("csv", nargs="+")
    ap.add_argument("--out", default="tlb_groups.svg")
    ap.add_argument("--title", default="Random 128-B line reads vs region size (tlb_groups)")
    args = ap.parse_args()
    series = read(args.csv)
    if not series:
        print("plot_tlb.py: no tlb_groups rows found", file=sys.stderr)
        return 1
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7.5, 4.5))
    for (label, mode), pts in sorted(series.items()):
        pts.sort()
        name = mode if label == "tlb_groups" else f"{mode} ({label[len('tlb_groups_'):]})"
        ax.plot([p[0] for p in pts], [p[1] for p in pts], marker="o", label=name)
    ax.set_xscale("log", base=2)
    ax.set_xlabel("region size (GiB)")
    ax.set_ylabel("GB/s")
    ax.set_ylim(bottom=0)
    ax.set_title(args.title, fontsize=10)
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(args.out)
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
