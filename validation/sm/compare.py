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
import argparse
import csv
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))


def read_csv(path):
    rows = {}
    order = []
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
    """Returns (lo, hi) or None for 'none'/empty."""
    t = (text or "").strip()
    if not t or t.lower() == "none":
        return None
    if "-" in t[1:]:
        a, b = t.split("-", 1) if not t.startswith("-") else (t, t)
        try:
            lo, hi = float(a), float(b)
            return (min(lo, hi), max(lo, hi))
        except ValueError:
            pass
    v = float(t.lstrip("~"))
    return (v, v)


def rel_error(sim, ref):
    lo, hi = ref
    if lo <= sim <= hi:
        return 0.0
    near = lo if sim < lo else hi
    if near == 0:
        return float("inf")
    return (sim - near) / abs(near) * 100.0


def fmt(v):
    if v is None:
        return "-"
    return f"{v:.3g}" if abs(v) < 1000 else f"{v:.0f}"


def table(title, sim, ref_rows, ref_order, ref_col, tol, notes_col=None, source_col=None):
    out = [f"### {title}", ""]
    hdr = ["benchmark", "metric", "simulated", "reference", "unit", "error %", f"within {tol:g}%"]
    if source_col:
        hdr.append("source")
    out.append("| " + " | ".join(hdr) + " |")
    out.append("|" + "---|" * len(hdr))
    n_ok = n_cmp = 0
    for key in ref_order:
        r = ref_rows[key]
        ref = parse_ref(r.get(ref_col))
        s = sim.get(key)
        sv = float(s["value"]) if s else None
        if ref is None:
            err_s, ok_s, ref_s = "-", "no published figure", "none"
        elif sv is None:
            err_s, ok_s = "-", "not simulated"
            ref_s = r[ref_col]
        else:
            err = rel_error(sv, ref)
            n_cmp += 1
            ok = abs(err) <= tol
            n_ok += ok
            err_s, ok_s, ref_s = f"{err:+.1f}", "yes" if ok else "**no**", r[ref_col]
        row = [key[0], key[1], fmt(sv), ref_s, r.get("unit", ""), err_s, ok_s]
        if source_col:
            src = r.get(source_col, "") or ""
            note = r.get(notes_col, "") if notes_col else ""
            row.append("; ".join(x for x in (src, note) if x).replace("|", "/"))
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
        pub, pub_order = read_csv(args.published)
        print(table("Simulated A100 vs published A100 measurements", sim, pub, pub_order, "value",
                    args.tolerance, notes_col="notes", source_col="source"))
    if args.h100:
        sim, _ = read_csv(args.h100)
        meas, meas_order = read_csv(args.measured)
        print(table("Simulated H100 vs measured H100 (validation/sm/h100_measured.csv)", sim, meas, meas_order,
                    "value", args.tolerance))
    return 0


if __name__ == "__main__":
    sys.exit(main())
