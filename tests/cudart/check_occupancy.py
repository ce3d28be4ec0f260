#!/usr/bin/env python3
"""Checks a `warpsim run --report` of a program built with `nvcc -Xptxas -v` for sm_80:
register counts equal ptxas's, and the CTAs per SM the timing model dispatched with equal the CUDA
occupancy calculator's rules for compute capability 8.0, computed here from ptxas's registers and
shared memory (not from the simulator's code).

    check_occupancy.py REPORT.json PTXAS_OUTPUT [--no-faults]

--no-faults: every kernel must have run without a fault (otherwise faulting kernels, as in the
expected-fault workloads, are skipped).
"""
import json
import os
import re
import sys


def ptxas_usage(path):
    regs, smem, k = {}, {}, None
    for line in open(path):
        m = re.search(r"Compiling entry function '([^']+)'", line)
        if m:
            k = m.group(1)
        m = re.search(r"Used (\d+) registers", line)
        if m and k:
            regs[k] = int(m.group(1))
        m = re.search(r"(\d+) bytes smem", line)
        if m and k:
            smem[k] = int(m.group(1))
    return regs, smem


def a100_ctas_per_sm(regs, static_smem, dynamic_smem, threads, smem_kb=164):
    """cuda_occupancy.h for cc 8.0: 64 warps, 32 blocks, 64K registers allocated per warp in units of
    256 over 4 sub-partitions, shared memory in 128-byte units plus 1 KB reserved per block, against
    the largest carve-out (164 KB). cc 9.0 (WARPSIM_RUN_GPU=h100) differs only in the carve-out:
    228 KB."""
    warps = -(-threads // 32)
    per_warp = -(-regs * 32 // 256) * 256
    by_regs = ((65536 // 4) // per_warp) * 4 // warps if per_warp else 32
    alloc = -(-(static_smem + dynamic_smem + 1024) // 128) * 128
    by_smem = (smem_kb * 1024) // alloc
    return min(64 // warps, 32, by_regs, by_smem)


def main():
    r = json.load(open(sys.argv[1]))
    regs, smem = ptxas_usage(sys.argv[2])
    assert r["totals"]["kernels"] == len(r["kernels"]) > 0
    assert r["totals"]["warp_instructions"] == sum(x["warp_instructions"] for x in r["kernels"])
    checked = library = 0
    for x in r["kernels"]:
        for f in ("name", "demangled", "grid", "block", "dynamic_smem", "registers", "registers_estimated",
                  "warp_instructions", "thread_instructions", "simulated_ns"):
            assert f in x, f
        if x["fault"] is not None:
            assert "--no-faults" not in sys.argv, (x["name"], x["fault"])
            continue  # a faulting kernel (the expected-fault workloads) has no full timing
        if x["name"] not in regs:
            # A library's kernel (cuFFT, cuRAND): not compiled from the program, so ptxas -v has
            # no registers for it; it must still have run on the timing model.
            t = x["timing"]
            assert t is not None and t["cycles"] > 0 and 0 < t["achieved_occupancy"] <= 1, (x["name"], t)
            assert x["registers"] > 0 and 1 <= t["ctas_per_sm"] <= 32, (x["name"], x["registers"], t["ctas_per_sm"])
            library += 1
            continue
        assert x["registers"] == regs[x["name"]], (x["name"], x["registers"], regs[x["name"]])
        assert not x["registers_estimated"]
        t = x["timing"]
        assert t is not None, "no timing statistics (the default mode is timing)"
        threads = x["block"][0] * x["block"][1] * x["block"][2]
        smem_kb = 228 if os.environ.get("WARPSIM_RUN_GPU") == "h100" else 164
        want = a100_ctas_per_sm(regs[x["name"]], smem.get(x["name"], 0), x["dynamic_smem"], threads, smem_kb)
        assert t["ctas_per_sm"] == want, (x["name"], t["ctas_per_sm"], want)
        assert t["cycles"] > 0 and 0 < t["achieved_occupancy"] <= 1, t
        checked += 1
    assert checked + library > 0
    print(f"report ok: {checked} of {len(r['kernels'])} kernels, registers match ptxas -v, "
          f"CTAs per SM match the occupancy rules; {library} library kernels ran on the timing model")


if __name__ == "__main__":
    main()
