#!/usr/bin/env python3
"""Merges several outputs of validation/sm/run.sh into one CSV holding, per (benchmark, metric),
the median of the runs' values (each of which is already a median over --reps launches).
Comment lines of the first file are kept; a `# runs:` comment lists the per-run values.

    python3 validation/sm/merge_runs.py run1.csv run2.csv run3.csv > measured.csv
"""
import csv
import statistics
import sys


def read(path):
    comments, rows = [], []
    with open(path) as f:
        for line in f:
            line = line.rstrip("\n")
            if not line:
                continue
            if line.startswith("#"):
                comments.append(line)
                continue
            r = next(csv.reader([line]))
            if r[0] == "benchmark" or len(r) != 4:
                continue
            rows.append(r)
    return comments, rows


def main(paths):
    if not paths:
        print(__doc__, file=sys.stderr)
        return 2
    order, values, units = [], {}, {}
    first_comments = None
    for p in paths:
        comments, rows = read(p)
        if first_comments is None:
            first_comments = comments
        for b, m, v, u in rows:
            key = (b, m)
            if key not in values:
                order.append(key)
                values[key] = []
                units[key] = u
            values[key].append(float(v))
    for c in first_comments or []:
        print(c)
    print(f"# merged: median over {len(paths)} runs of run.sh")
    print("benchmark,metric,value,unit,runs")
    for key in order:
        vals = values[key]
        runs = " ".join(f"{v:g}" for v in vals)
        print(f"{key[0]},{key[1]},{statistics.median(vals):.3f},{units[key]},{runs}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
