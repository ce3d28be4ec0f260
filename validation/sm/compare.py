#!/usr/bin/env python3
"""Compares simulator output of validation/sm/run.sh with published A100 figures and with the H100
measurements, printing markdown tables (Python 3 standard library only).

    python3 validation/sm/compare.py --a100 sim_a100.csv [--h100 sim_h100.csv]
        [--published validation/sm/published_a100.csv] [--measured validation/sm/h100_measured.csv]
        [--tolerance 10]

Tables:
  1. simulated A100 vs published A100 figures (% error, within tolerance or not; rows without a
     published figure are listed as "none");
  2. simulated H100 vs measured H100 (when --h100 is given), every metric the measurement has.
Input CSVs: `benchmark,metric,value,unit[,...]`, `#` lines are comments. Published values may be a
range `a-b` (the error is 0 inside it, else relative to the nearer end) or `none`.
"""
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "common"))
from table import compare_main  # noqa: E402  (validation/common/table.py)


def rel_error(sim, ref):
    lo, hi = ref
    if lo <= sim <= hi:
        return 0.0
    near = lo if sim < lo else hi
    if near == 0:
        return float("inf")
    return (sim - near) / abs(near) * 100.0


def error_cell(sim, ref, tol):
    err = rel_error(sim, ref)
    return f"{err:+.1f}", abs(err) <= tol


def main():
    # the title names the committed measurement whichever file --measured gives
    return compare_main(__doc__, HERE, "error %", error_cell, "no published figure",
                        lambda _path: "validation/sm/h100_measured.csv")


if __name__ == "__main__":
    sys.exit(main())
