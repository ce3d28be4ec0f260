#!/usr/bin/env python3
"""Compares mufu_results' output under warpsim with our H100's (mufu_results.expected).

Every input line must be there with the same inputs. Per column, the rule says how close warpsim's
result must be to the H100's, from what warpsim models of the MUFU instructions behind it
(src/func/mufu.hpp):
  exact  tanh.approx.f16 (htanh): tabulated for every input;
  1 ulp  functions built on ex2/rcp/rsqrt.approx (modelled: about 99% of results bit for bit);
         2 ulp for sigmoid, 1/(1 + __expf(-x)), whose sum rounds __expf's 1-ulp difference up;
  rel    functions that go through lg2/sin/cos.approx (not modelled bit for bit: within 2^-18
         relative, or 2^-20 absolute for __sinf/__cosf, whose argument reduction ptxas's FMUL.RZ
         is modelled), and the two that multiply a lg2 error (powf, __powf: 2^-12 relative).
Prints the number of bit-exact results per column; exits 1 on a violation.
Usage: mufu_results_check.py EXPECTED ACTUAL
"""
import struct
import sys

COLS = ["expf", "exp2f", "tanhf", "powf", "__expf", "__exp10f", "__sinf", "__cosf", "__logf", "__log2f",
        "rsqrtf", "__fdividef", "__powf", "sigmoid"]
RULE = {"expf": "ulp", "exp2f": "ulp", "tanhf": "ulp4", "powf": "pow", "__expf": "ulp", "__exp10f": "ulp",
        "__sinf": "abs", "__cosf": "abs", "__logf": "rel", "__log2f": "rel", "rsqrtf": "ulp", "__fdividef": "ulp",
        "__powf": "pow", "sigmoid": "ulp2"}
HCOLS = ["h2exp.lo", "h2exp.hi", "h2exp2", "hexp2", "bf16exp2", "htanh"]


def f32(h):
    return struct.unpack("<f", struct.pack("<I", int(h, 16)))[0]


def parse(path):
    rows = {}
    for line in open(path):
        if ":" not in line or not line[:3].strip().isdigit():
            continue
        head, rest = line.split(":", 1)
        fpart, hpart = rest.split("|")
        hin, hvals = hpart.split(":")
        rows[head.strip()] = (fpart.split(), hin.strip(), hvals.split())
    return rows


exp, act = parse(sys.argv[1]), parse(sys.argv[2])
bad = 0
if set(exp) != set(act) or len(exp) < 300:
    print(f"FAIL: {len(act)} result lines, expected {len(exp)} with the same inputs")
    sys.exit(1)
exact = {c: 0 for c in COLS + HCOLS}
for key in sorted(exp):
    ef, eh, ev = exp[key]
    af, ah, av = act[key]
    for c, e, a in zip(COLS, ef, af):
        if e == a:
            exact[c] += 1
            continue
        ulps = abs(int(e, 16) - int(a, 16)) if (int(e, 16) >> 31) == (int(a, 16) >> 31) else 1 << 31
        x, y = f32(e), f32(a)
        rule = RULE[c]
        ok = (rule == "ulp" and ulps <= 1) or (rule == "ulp2" and ulps <= 2) or (rule == "ulp4" and ulps <= 4) or \
             (rule == "rel" and abs(x - y) <= 2**-18 * max(abs(x), 2**-126)) or \
             (rule == "abs" and abs(x - y) <= 2**-20) or (rule == "pow" and abs(x - y) <= 2**-12 * abs(x))
        if not ok:
            bad += 1
            print(f"FAIL: line {key} {c}: warpsim {a}, H100 {e}")
    for c, e, a in zip(HCOLS, ev, av):
        if e == a:
            exact[c] += 1
        elif c == "htanh" or abs(int(e, 16) - int(a, 16)) > 1:
            bad += 1
            print(f"FAIL: line {key} {c}: warpsim {a}, H100 {e}")
n = len(exp)
print("bit-exact with the H100 per column (of %d):" % n)
print(" ".join(f"{c} {exact[c]}" for c in COLS + HCOLS))
print("PASS" if bad == 0 else f"FAIL: {bad} results too far from the H100's")
sys.exit(1 if bad else 0)
