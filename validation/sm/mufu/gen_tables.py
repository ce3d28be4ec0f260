#!/usr/bin/env python3
"""Builds src/func/mufu_tables.inc from the H100 measurements written by run_h100.sh (mufu_measure.cu).

f32 rcp / rsqrt / ex2: the unit's result is RN(f(x) + e(k)) in units of the result's last place, where
k is the input's significand (rcp), exponent parity and significand (rsqrt) or the 23-bit fraction of
the fixed-point input (ex2), and e(k) is the error of the unit's piecewise polynomial before its final
rounding: a smooth function of k with small steps between table segments. e is estimated on windows
of W inputs as the middle of the band (hardware - exact) +- 1/2 ulp, stored every W inputs as int8 in
1/100 ulp, and interpolated linearly (numpy.interp: constant beyond the first and last centres).
The unit's own truncated intermediate terms make its e slightly noisy, which is what is left over.

half ex2/tanh (f16, bf16): every input was measured; the table lists the runs of inputs where the
hardware differs from RN(f(x)) (computed in double), as (first input, count, difference in ulps).
Prints per instruction the fraction of measured inputs that the emulation reproduces bit for bit.
Also writes SAMPLES (tests/func/mufu_h100_samples.txt): per instruction a few thousand
(input, H100 result) pairs drawn at random from the measured sets, and every half-form input whose
H100 result differs from RN(f(x)) among every 64th input (and every 1024th).
Usage: gen_tables.py MEASUREMENT_DIR OUT.inc SAMPLES
"""
import sys
import numpy as np

W_SHIFT = 9
W = 1 << W_SHIFT
M = 1 << 23
src, dst, samples_path = sys.argv[1], sys.argv[2], sys.argv[3]
rng = np.random.default_rng(2026)
samples = []  # (instruction, input bits, output bits)


def sample(op, x, hw, n):
    idx = rng.choice(len(x), size=min(n, len(x)), replace=False)
    xb = x.astype(np.float32).view(np.uint32)
    hb = hw.view(np.uint32)
    samples.extend((op, int(xb[i]), int(hb[i])) for i in np.sort(idx))


def load(name, lo, n, step, fn):
    d = np.fromfile(f"{src}/{name}.diff", dtype=np.int32)
    xb = (lo + np.arange(n // step, dtype=np.int64) * step).astype(np.uint32)
    x = xb.view(np.float32).astype(np.float64)
    with np.errstate(all="ignore"):
        rn = fn(x).astype(np.float32)
    hw = (rn.view(np.int32) + d).view(np.float32)
    return x, hw


def knots(err):
    e = err.reshape(-1, W)
    mid = (e.max(1) + e.min(1)) / 2
    q = np.round(mid * 100).astype(np.int64)
    assert q.min() >= -127 and q.max() <= 127
    return q


def interp(k, q):
    c = np.arange(len(q)) * W + (W - 1) / 2
    return np.interp(k, c, q / 100.0)


out = []
report = []

# ---- rcp: key = significand; 1/1.m in (0.5, 1], last place 2^-24
x, hw = load("rcp_1_2", 0x3F800000, M, 1, lambda v: 1 / v)
y = 1 / x
err = (hw - y) * 2.0**24
q_rcp = knots(err)


def rcp_pred(m):  # m: significand bits, returns hardware value of 1/1.m
    y = 1 / (1 + m / 2.0**23)
    r = np.floor(y * 2.0**24 + interp(m, q_rcp) + 0.5) / 2.0**24
    return np.where(m == 0, 1.0, r)


k = np.arange(M)
sample("rcp.approx.ftz.f32", x, hw, 600)
report.append(("rcp.approx.ftz.f32, x in [1,2)", (rcp_pred(k) == hw).mean(), (y.astype(np.float32) == hw).mean()))
x, hw = load("rcp_wide", 0x00800000, 0x7E800000, 509, lambda v: 1 / v)
xb = x.astype(np.float32).view(np.uint32).astype(np.int64)
e = (xb >> 23) - 127
p = (rcp_pred(xb & (M - 1)) * 2.0 ** (-e)).astype(np.float32)
p = np.where(np.abs(p) < 2.0**-126, 0, p)
sample("rcp.approx.ftz.f32", x, hw, 600)
report.append(("rcp.approx.ftz.f32, every 509th positive normal", (p == hw).mean(), ((1 / x).astype(np.float32) == hw).mean()))

# ---- rsqrt: key = (exponent parity, significand); 1/sqrt in (0.5, 1], last place 2^-24
x, hw = load("rsq_1_4", 0x3F800000, 2 * M, 1, lambda v: 1 / np.sqrt(v))
y = 1 / np.sqrt(x)
err = (hw - y) * 2.0**24
q_rsq = knots(err)


def rsq_pred(k):
    xx = (1 + (k & (M - 1)) / 2.0**23) * np.where(k >= M, 2.0, 1.0)
    y = 1 / np.sqrt(xx)
    r = np.floor(y * 2.0**24 + interp(k, q_rsq) + 0.5) / 2.0**24
    return np.where(k == 0, 1.0, r)


sample("rsqrt.approx.ftz.f32", x, hw, 600)
report.append(("rsqrt.approx.ftz.f32, x in [1,4)", (rsq_pred(np.arange(2 * M)) == hw).mean(), (y.astype(np.float32) == hw).mean()))
x, hw = load("rsq_wide", 0x00800000, 0x7E800000, 509, lambda v: 1 / np.sqrt(v))
xb = x.astype(np.float32).view(np.uint32).astype(np.int64)
e = (xb >> 23) - 127
kk = ((e & 1) << 23) | (xb & (M - 1))
p = (rsq_pred(kk) * 2.0 ** (-((e - (e & 1)) // 2))).astype(np.float32)
sample("rsqrt.approx.ftz.f32", x, hw, 600)
report.append(("rsqrt.approx.ftz.f32, every 509th positive normal", (p == hw).mean(), ((1 / np.sqrt(x)).astype(np.float32) == hw).mean()))

# ---- ex2: the input becomes fixed point with 23 fraction bits, |x| truncated, negative values with a
# fraction one below (one's complement of the fraction; negative integers stay exact); the fraction
# picks the table entry, the integer part the exponent.
x, hw = load("ex2_1_2", 0x3F800000, M, 1, np.exp2)
y = np.exp2(x)
err = (hw - y) * 2.0**22
q_ex2 = knots(err)


def ex2_pred(x):
    X = np.trunc(x * 2.0**23)
    X = X - ((x < 0) & (np.mod(X, 2.0**23) != 0))
    n = np.floor(X / 2.0**23)
    f = X - n * 2.0**23
    t = np.exp2(f / 2.0**23)
    m = np.floor(t * 2.0**23 + interp(f, q_ex2) + 0.5)
    r = m * 2.0 ** (n - 23)
    return np.where(r < 2.0**-126, 0, r).astype(np.float32)


for nm, lo, n, st, what in (("ex2_1_2", 0x3F800000, M, 1, "x in [1,2)"), ("ex2_05_1", 0x3F000000, M, 1, "x in [0.5,1)"),
                            ("ex2_025_05", 0x3E800000, M, 1, "x in [0.25,0.5)"), ("ex2_m1_m05", 0xBF000000, M, 1, "x in [-1,-0.5)"),
                            ("ex2_tiny", 0x33000000, 24 * M, 16, "every 16th x in [2^-25,0.5)"), ("ex2_big", 0x40000000, 5 * M, 8, "every 8th x in [2,128)")):
    x, hw = load(nm, lo, n, st, np.exp2)
    sample("ex2.approx.ftz.f32", x, hw, 200)
    report.append((f"ex2.approx.ftz.f32, {what}", (ex2_pred(x) == hw).mean(), (np.exp2(x).astype(np.float32) == hw).mean()))

# ---- half forms: runs of differences to RN(f(x))
raw = np.fromfile(f"{src}/half.raw", dtype=np.uint16).reshape(12, 65536)
a = np.arange(65536, dtype=np.uint32)
with np.errstate(all="ignore"):
    xf16 = a.astype(np.uint16).view(np.float16).astype(np.float64)
    xbf = (a << 16).astype(np.uint32).view(np.float32).astype(np.float64)


def bf16_rn(v):
    """double -> bf16, rounded once to nearest even (subnormals, overflow to infinity)."""
    m, e = np.frexp(np.where(np.isfinite(v), v, 0.0))
    q = np.exp2(np.maximum(e, -125).astype(np.float64) - 8)
    r = np.rint(v / q) * q
    r = np.where(np.isfinite(v), r, v)
    with np.errstate(over="ignore"):
        return (r.astype(np.float32).view(np.uint32) >> 16).astype(np.uint16)


half_runs = {}
for k, (nm, xx, fn, isbf) in enumerate((("kEx2F16", xf16, np.exp2, False), ("kEx2Bf16", xbf, np.exp2, True),
                                        ("kTanhF16", xf16, np.tanh, False), ("kTanhBf16", xbf, np.tanh, True))):
    with np.errstate(all="ignore"):
        v = fn(xx)
        if isbf:
            ref = bf16_rn(v)
        else:
            ref = v.astype(np.float16).view(np.uint16)
    hw = raw[k]
    nan = np.isnan(xx)
    delta = hw.astype(np.int64) - ref.astype(np.int64)
    delta[nan] = 0
    runs = []
    i = 0
    while i < 65536:
        if delta[i] == 0:
            i += 1
            continue
        j = i
        while j + 1 < 65536 and delta[j + 1] == delta[i]:
            j += 1
        runs.append((i, j - i + 1, int(delta[i])))
        i = j + 1
    assert all(-32768 <= r[2] < 32768 for r in runs)
    half_runs[nm] = runs
    for i in range(0, 65536, 64):
        if delta[i] != 0 or i % 1024 == 0:
            samples.append(({"kEx2F16": "ex2.approx.f16", "kEx2Bf16": "ex2.approx.ftz.bf16", "kTanhF16": "tanh.approx.f16",
                             "kTanhBf16": "tanh.approx.bf16"}[nm], i, int(hw[i])))
    report.append((f"{nm} (all 65536 inputs; NaN inputs give 0x7fff)", 1.0, ((delta == 0) | nan).mean()))

with open(dst, "w") as f:
    f.write("// Generated by validation/sm/mufu/gen_tables.py from our H100's MUFU results (run_h100.sh);\n")
    f.write("// do not edit. See src/func/mufu.hpp for how the tables are used.\n")
    f.write(f"constexpr int kKnotShiftData = {W_SHIFT};  // one knot every 2^{W_SHIFT} inputs, value in 1/100 ulp\n")
    for nm, q in (("kRcpKnots", q_rcp), ("kRsqKnots", q_rsq), ("kEx2Knots", q_ex2)):
        f.write(f"constexpr int8_t {nm}[{len(q)}] = {{\n")
        vals = [str(int(v)) for v in q]
        for i in range(0, len(vals), 32):
            f.write(",".join(vals[i:i + 32]) + ",\n")
        f.write("};\n")
    for nm, runs in half_runs.items():
        f.write(f"constexpr HalfRun {nm}[{len(runs)}] = {{\n")
        for i in range(0, len(runs), 8):
            f.write(" ".join(f"{{0x{r[0]:04x},{r[1]},{r[2]}}}," for r in runs[i:i + 8]) + "\n")
        f.write("};\n")

# the non-ftz forms (ptxas's scaling around the unit), sampled
for nm, op, fn in (("rcp_noftz_wide", "rcp.approx.f32", lambda v: 1 / v), ("rsq_noftz_wide", "rsqrt.approx.f32", lambda v: 1 / np.sqrt(v))):
    x, hw = load(nm, 0x00000001, 0x7F000000, 509, fn)
    sample(op, x, hw, 500)
x, hw = load("ex2_noftz_neg", 0xC2F00000, 0x00400000, 1, np.exp2)
sample("ex2.approx.f32", x, hw, 500)
with open(samples_path, "w") as f:
    f.write("# Our H100's results (validation/sm/mufu): instruction, input bits, result bits (hex)\n")
    for op, a, r in samples:
        f.write(f"{op} {a:x} {r:x}\n")

print("instruction, inputs: bit-exact after / before (RN of the exact function)")
for what, new, old in report:
    print(f"  {what}: {100 * new:.3f}% / {100 * old:.3f}%")
