#!/usr/bin/env python3
"""Checks memory counters of a warpsim --report against values computed from the program's access
pattern (not from the simulator): check_memory.py REPORT.json KERNEL_SUBSTRING name=value|name<=value ...
A name may be a difference of metrics, a-b (e.g. dram__bytes_read.sum-warpsim__ifetch_dram_bytes_read.sum:
the data a kernel read, without its code).

Exit 0 when every expectation holds for the first kernel whose name contains KERNEL_SUBSTRING."""
import json
import sys


def main():
    if len(sys.argv) < 4:
        print(__doc__)
        return 2
    rep = json.load(open(sys.argv[1]))
    ks = [k for k in rep["kernels"] if sys.argv[2] in k["name"]]
    if not ks:
        print(f"no kernel matching {sys.argv[2]!r} in {sys.argv[1]}")
        return 1
    mem = (ks[0].get("timing") or {}).get("memory")
    if mem is None:
        print("the kernel has no memory statistics (not a timing-mode report?)")
        return 1
    def value(name):
        first, *rest = name.split("-")
        return mem.get(first, float("nan")) - sum(mem.get(r, float("nan")) for r in rest)

    bad = 0
    for e in sys.argv[3:]:
        if "<=" in e:
            name, v = e.split("<=")
            ok = value(name) <= float(v)
        elif ">=" in e:
            name, v = e.split(">=")
            ok = value(name) >= float(v)
        else:
            name, v = e.split("=")
            ok = value(name) == float(v)
        print(f"{'ok ' if ok else 'BAD'} {name} = {value(name)} (expected {e[len(name):]})")
        bad += not ok
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
