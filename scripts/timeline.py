#!/usr/bin/env python3
"""Turns a warpsim report into a timeline you can look at.

    warpsim run --timeline 1000 --report out/ -- ./app
    scripts/timeline.py out/report.json --trace out/trace.json   # open in https://ui.perfetto.dev or chrome://tracing
    scripts/timeline.py out/report.json --plot out/timeline.png  # needs matplotlib (scripts/requirements.txt)

The trace has one track of kernels and one of copies (simulated time, from the report's
start_ns / simulated_ns), and counter tracks from the report's "timeline" samples: IPC of the whole
GPU, resident warps, and L1 / L2 / DRAM read / DRAM write bandwidth in GB/s. Each sample's rates
cover the time since the sample before it. Only the Python standard library is needed for --trace.
"""
import argparse
import json
import sys


def load(path):
    with open(path) as f:
        rep = json.load(f)
    return rep.get("simulation", rep)


def trace_events(rep):
    ev = [
        {"ph": "M", "pid": 1, "name": "process_name", "args": {"name": f"warpsim: {rep.get('gpu', 'GPU')}"}},
        {"ph": "M", "pid": 1, "tid": 1, "name": "thread_name", "args": {"name": "kernels"}},
        {"ph": "M", "pid": 1, "tid": 2, "name": "thread_name", "args": {"name": "copies"}},
    ]
    us = lambda ns: ns / 1000.0  # the trace format counts microseconds
    for k in rep.get("kernels", []):
        t = k.get("timing") or {}
        args = {"grid": k.get("grid"), "block": k.get("block"), "warp_instructions": k.get("warp_instructions")}
        for key in ("cycles", "ipc_per_sm", "achieved_occupancy"):
            if key in t:
                args[key] = t[key]
        if k.get("fault"):
            args["fault"] = k["fault"]
        ev.append({"ph": "X", "pid": 1, "tid": 1, "name": k.get("demangled") or k["name"], "ts": us(k["start_ns"]),
                   "dur": us(k["simulated_ns"]), "args": args})
    for c in rep.get("copies", []):
        ev.append({"ph": "X", "pid": 1, "tid": 2, "name": f"{c['kind']} {c['bytes']} B", "ts": us(c["start_ns"]),
                   "dur": us(c["simulated_ns"]), "args": {"bytes": c["bytes"]}})
    tl = rep.get("timeline")
    if tl:
        col = {n: i for i, n in enumerate(tl["columns"])}
        for s in tl["samples"]:
            ts = us(s[col["t_ns"]])
            ev.append({"ph": "C", "pid": 1, "name": "IPC (whole GPU)", "ts": ts, "args": {"ipc": s[col["ipc"]]}})
            ev.append({"ph": "C", "pid": 1, "name": "resident warps", "ts": ts, "args": {"warps": s[col["resident_warps"]]}})
            ev.append({"ph": "C", "pid": 1, "name": "bandwidth GB/s", "ts": ts,
                       "args": {"L1": s[col["l1_gbytes_per_s"]], "L2": s[col["l2_gbytes_per_s"]],
                                "DRAM read": s[col["dram_read_gbytes_per_s"]],
                                "DRAM write": s[col["dram_write_gbytes_per_s"]]}})
    return ev


def plot(rep, out):
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        sys.exit("timeline.py: --plot needs matplotlib (pip install -r scripts/requirements.txt)")
    tl = rep.get("timeline")
    if not tl or not tl["samples"]:
        sys.exit("timeline.py: the report has no timeline (run warpsim with --timeline CYCLES --report DIR)")
    col = {n: i for i, n in enumerate(tl["columns"])}
    s = tl["samples"]
    t = [x[col["t_ns"]] / 1000.0 for x in s]
    fig, ax = plt.subplots(3, 1, sharex=True, figsize=(10, 7))
    ax[0].step(t, [x[col["ipc"]] for x in s], where="pre")
    ax[0].set_ylabel("IPC (GPU)")
    ax[1].step(t, [x[col["resident_warps"]] for x in s], where="post")
    ax[1].set_ylabel("resident warps")
    for name, key in (("L1", "l1_gbytes_per_s"), ("L2", "l2_gbytes_per_s"), ("DRAM read", "dram_read_gbytes_per_s"),
                      ("DRAM write", "dram_write_gbytes_per_s")):
        ax[2].step(t, [x[col[key]] for x in s], where="pre", label=name)
    ax[2].set_ylabel("GB/s")
    ax[2].legend(loc="upper right", fontsize="small")
    ax[2].set_xlabel("simulated time (us)")
    for k in rep.get("kernels", []):
        for a in ax:
            a.axvspan(k["start_ns"] / 1000.0, (k["start_ns"] + k["simulated_ns"]) / 1000.0, color="0.92", zorder=0)
    fig.suptitle(f"warpsim timeline: {rep.get('gpu', '')}, every {tl['interval_cycles']} cycles (shaded: kernels)")
    fig.tight_layout()
    fig.savefig(out)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("report", help="DIR/report.json of warpsim run --report DIR")
    ap.add_argument("--trace", help="write a Chrome trace-event JSON file (Perfetto, chrome://tracing)")
    ap.add_argument("--plot", help="write a PNG/SVG/PDF plot of the timeline (matplotlib)")
    a = ap.parse_args()
    if not a.trace and not a.plot:
        ap.error("nothing to do: give --trace FILE and/or --plot FILE")
    try:
        rep = load(a.report)
    except (OSError, ValueError) as e:
        sys.exit(f"timeline.py: cannot read {a.report}: {e}")
    if a.trace:
        with open(a.trace, "w") as f:
            json.dump({"traceEvents": trace_events(rep), "displayTimeUnit": "ns"}, f)
    if a.plot:
        plot(rep, a.plot)
    return 0


if __name__ == "__main__":
    sys.exit(main())
