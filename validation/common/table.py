"""CSV loading, markdown comparison tables and the command line shared by validation/sm/compare.py
and validation/mem/compare.py (Python 3 standard library only). Each suite keeps its usage text
and its own measure of agreement (sm: % error, mem: ratio) and passes them in."""
import argparse
import csv
import os


def read_csv(path):
    """Rows of a `benchmark,metric,value,unit[,...]` CSV (`#` lines are comments) as
    ({(benchmark, metric): row dict}, [keys in first-seen order]); a repeated key keeps its last row."""
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
    """A reference value `v`, `~v` or a range `a-b` as (lo, hi); None for 'none' / empty."""
    t = (text or "").strip().lstrip("~")
    if not t or t.lower() == "none":
        return None
    if "-" in t[1:]:
        # split at the first '-' after a possible leading minus sign
        a, b = t[0] + t[1:].split("-", 1)[0], t[1:].split("-", 1)[1]
        try:
            lo, hi = float(a), float(b)
            return (min(lo, hi), max(lo, hi))
        except ValueError:
            pass  # not a range: a number like 1e-5
    v = float(t)
    return (v, v)


def fmt(v):
    if v is None:
        return "-"
    return f"{v:.3g}" if abs(v) < 1000 else f"{v:.0f}"


def comparison_table(title, sim, refs, order, tol, with_source, measure_name, measure, no_ref):
    """Markdown table of the simulated values `sim` against the reference rows `refs` (in `order`),
    with a closing count of the metrics within `tol` %. measure(sim_value, (lo, hi), tol) returns
    (cell text, within tolerance) for the column `measure_name`; `no_ref` is the text of rows
    whose reference is 'none'; with_source adds the reference's source and notes."""
    out = [f"### {title}", ""]
    hdr = ["benchmark", "metric", "simulated", "reference", "unit", measure_name, f"within {tol:g}%"]
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
            cell, ok, ref_s = "-", no_ref, "none"
        elif sv is None:
            cell, ok, ref_s = "-", "not simulated", r["value"]
        else:
            cell, good = measure(sv, ref, tol)
            n_cmp += 1
            n_ok += good
            ok, ref_s = "yes" if good else "**no**", r["value"]
        row = [key[0], key[1], fmt(sv), ref_s, r.get("unit", "") or "", cell, ok]
        if with_source:
            src = "; ".join(x for x in (r.get("source") or "", r.get("notes") or "") if x)
            row.append(src.replace("|", "/"))
        out.append("| " + " | ".join(row) + " |")
    out.append("")
    out.append(f"{n_ok} of {n_cmp} compared metrics within {tol:g}%.")
    out.append("")
    return "\n".join(out)


def compare_main(doc, here, measure_name, measure, no_ref, measured_label):
    """main() of a suite's compare.py: --a100 against the published A100 figures, --h100 against
    the H100 measurements (defaults: published_a100.csv, h100_measured.csv in `here`), one table
    each. `doc` is the usage text (--help); measured_label(path) names the H100 reference in the
    second table's title."""
    ap = argparse.ArgumentParser(description=doc, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--a100", help="simulator CSV for the A100 (run.sh --arch sm_80 under warpsim --gpu a100)")
    ap.add_argument("--h100", help="simulator CSV for the H100 (warpsim --gpu h100)")
    ap.add_argument("--published", default=os.path.join(here, "published_a100.csv"))
    ap.add_argument("--measured", default=os.path.join(here, "h100_measured.csv"))
    ap.add_argument("--tolerance", type=float, default=10.0, help="percent (default 10)")
    args = ap.parse_args()
    if not args.a100 and not args.h100:
        ap.error("give --a100 and/or --h100")
    if args.a100:
        sim, _ = read_csv(args.a100)
        pub, order = read_csv(args.published)
        print(comparison_table("Simulated A100 vs published A100 measurements", sim, pub, order, args.tolerance,
                               True, measure_name, measure, no_ref))
    if args.h100:
        sim, _ = read_csv(args.h100)
        meas, order = read_csv(args.measured)
        print(comparison_table(f"Simulated H100 vs measured H100 ({measured_label(args.measured)})", sim, meas,
                               order, args.tolerance, False, measure_name, measure, no_ref))
    return 0
