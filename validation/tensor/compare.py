#!/usr/bin/env python3
"""Measured (H100) vs simulated tensor-core figures of validation/tensor/mma_bench.cu.

    python3 validation/tensor/compare.py [--hw h100_measured.csv] [--h100 sim_h100.csv] [--a100 sim_a100.csv]

Prints a markdown table: per mma form and metric, the H100 measurement, the simulated H100 and its
error, and the simulated A100 (no A100 measurement of these forms is in the reference set)."""
import argparse, csv, os

here = os.path.dirname(os.path.abspath(__file__))


def load(path):
    out = {}
    with open(path) as f:
        for row in csv.reader(line for line in f if not line.startswith("#")):
            if len(row) == 4 and row[0] != "benchmark":
                out[(row[0], row[1])] = float(row[2])
    return out


ap = argparse.ArgumentParser()
ap.add_argument("--hw", default=os.path.join(here, "h100_measured.csv"))
ap.add_argument("--h100", default=os.path.join(here, "sim_h100.csv"))
ap.add_argument("--a100", default=os.path.join(here, "sim_a100.csv"))
a = ap.parse_args()
hw, sh, sa = load(a.hw), load(a.h100), load(a.a100)
metrics = ["dep_latency", "cycles_per_mma_subcore_4w_ilp8", "cycles_per_mma_subcore_8w_ilp4",
           "cycles_per_mma_subcore_16w_ilp4", "cycles_per_mma_subcore_4w_ilp8_distinct",
           "cycles_per_mma_subcore_8w_ilp4_distinct", "cycles_per_mma_subcore_16w_ilp4_distinct",
           "fma_per_clk_sm_4w_ilp8"]
forms = []
for (b, _m) in hw:
    if b != "clock64" and b not in forms:
        forms.append(b)
print("| form | metric | H100 measured | sim H100 | error | sim A100 |")
print("| --- | --- | ---: | ---: | ---: | ---: |")
for b in forms:
    for m in metrics:
        if (b, m) not in hw:
            continue
        v = hw[(b, m)]
        s = sh.get((b, m))
        e = f"{100 * (s - v) / v:+.0f}%" if s is not None and v else "-"
        fmt = lambda x: "-" if x is None else (f"{x:.1f}" if x < 1000 else f"{x:.0f}")
        print(f"| {b} | {m} | {fmt(v)} | {fmt(s)} | {e} | {fmt(sa.get((b, m)))} |")
