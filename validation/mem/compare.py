#!/usr/bin/env python3
"""Compares simulator output of validation/mem/run.sh with published A100 figures and with the H100
measurements, printing markdown tables (Python 3 standard library only).

    python3 validation/mem/compare.py --a100 sim_a100.csv [--h100 sim_h100.csv]
        [--published validation/mem/published_a100.csv] [--measured validation/mem/h100_measured.csv]
        [--tolerance 10]

For simulator runs made with --quick, compare the H100 side with h100_measured_quick.csv (same
parameters as the quick run): --measured validation/mem/h100_measured_quick.csv.

Tables:
  1. simulated A100 vs published A100 figures: metric, simulated, reference, ratio (simulated /
     reference; against the nearer end of a range, 1.00 inside it), within tolerance or not; rows
     without a published figure are listed as "none";
  2. simulated H100 vs measured H100 (when --h100 is given): every metric the measurement has.
Input CSVs: `benchmark,metric,value,unit[,...]`, `#` lines are comments. Reference values may be a
range `a-b` or `none`.
"""
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "common"))
from table import compare_main  # noqa: E402  (validation/common/table.py)


def ratio(sim, ref):
    lo, hi = ref
    if lo <= sim <= hi:
        return 1.0
    near = lo if sim < lo else hi
    return float("inf") if near == 0 else sim / near


def ratio_cell(sim, ref, tol):
    q = ratio(sim, ref)
    return f"{q:.2f}", abs(q - 1.0) * 100.0 <= tol


def main():
    return compare_main(__doc__, HERE, "ratio", ratio_cell, "no reference", os.path.basename)


if __name__ == "__main__":
    sys.exit(main())
