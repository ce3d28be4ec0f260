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
import argparse
import csv
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))


def read_csv(path):
    rows, order = {}, []
    with open(path) as f:
        lines = [l for l in f if l.strip() and not l.startswith("#")]
    for r in csv.DictReader(lines):
        if not r.get("benchmark") or r["benchmark"] == "benchmark":
            continue
        key = (r["benchmark"].strip(), r["metric"].strip())
        if key not in rows:
            order.append(key)
        rows[key] = r
    return rows, order


def parse_ref(text):
    """(lo, hi), or None for 'none' / empty."""
    t = (text or "").strip().lstrip("~")
    if not t or t.lower() == "none":
        return None
    if "-" in t[1:]:
        a, b = t[0] + t[1:].split("-", 1)[0], t[1:].split("-", 1)[1]
        try:
            lo, hi = float(a), float(b)
            return (min(lo, hi), max(lo, hi))
        except ValueError:
            pass
    v = float(t)
    return (v, v)


def ratio(sim, ref):
    lo, hi = ref
    if lo <= sim <= hi:
        return 1.0
    near = lo if sim < lo else hi
    return float("inf") if near == 0 else sim / near


def fmt(v):
    if v is None:
        return "-"
    return f"{v:.3g}" if abs(v) < 1000 else f"{v:.0f}"


def table(title, sim, refs, order, tol, with_source):
    out = [f"### {title}", ""]
    hdr = ["benchmark", "metric", "simulated", "reference", "unit", "ratio", f"within {tol:g}%"]
    if with_source:
        hdr.append("source")
    out.append("| " + " | ".join(hdr) + " |")
    out.append("|" + "---|" * len(hdr))
    n_ok = n_cmp = 0
    for key in order:
        r = refs[key]
        ref = parse_ref(r.get("value"))
        s = sim.get(key)
        sv = None
        if s:
            try:
                sv = float(s["value"])
            except (TypeError, ValueError):
                sv = None
        if ref is None:
            rat, ok, ref_s = "-", "no reference", "none"
        elif sv is None:
            rat, ok, ref_s = "-", "not simulated", r["value"]
        else:
            q = ratio(sv, ref)
            n_cmp += 1
            good = abs(q - 1.0) * 100.0 <= tol
            n_ok += good
            rat, ok, ref_s = f"{q:.2f}", "yes" if good else "**no**", r["value"]
        row = [key[0], key[1], fmt(sv), ref_s, r.get("unit", "") or "", rat, ok]
        if with_source:
            src = "; ".join(x for x in (r.get("source") or "", r.get("notes") or "") if x)
            row.append(src.replace("|", "/"))
        out.append("| " + " | ".join(row) + " |")
    out.append("")
    out.append(f"{n_ok} of {n_cmp} compared metrics within {tol:g}%.")
    out.append("")
    return "\n".join(out)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--a100", help="simulator CSV for the A100 (run.sh --arch sm_80 under warpsim --gpu a100)")
    ap.add_argument("--h100", help="simulator CSV for the H100 (warpsim --gpu h100)")
    ap.add_argument("--published", default=os.path.join(HERE, "published_a100.csv"))
    ap.add_argument("--measured", default=os.path.join(HERE, "h100_measured.csv"))
    ap.add_argument("--tolerance", type=float, default=10.0, help="percent (default 10)")
    args = ap.parse_args()
    if not args.a100 and not args.h100:
        ap.error("give --a100 and/or --h100")
    if args.a100:
        sim, _ = read_csv(args.a100)
        pub, order = read_csv(args.published)
        print(table("Simulated A100 vs published A100 measurements", sim, pub, order, args.tolerance, True))
    if args.h100:
        sim, _ = read_csv(args.h100)
        meas, order = read_csv(args.measured)
        print(table(f"Simulated H100 vs measured H100 ({os.path.basename(args.measured)})", sim, meas, order,
                    args.tolerance, False))
    return 0


if __name__ == "__main__":
    sys.exit(main())
