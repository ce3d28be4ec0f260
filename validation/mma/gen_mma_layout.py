#!/usr/bin/env python3
"""Writes mma_layout.cu: one kernel per mma form (sparse mma.sp forms of sm_80 and the Volta-shape
mma.m8n8k4 .f16 forms), each reading its operand registers per lane from global memory, running
the one instruction and writing D per lane. The host builds the operands from dense matrices with
the fragment and metadata layouts warpsim implements (PTX ISA 9.7.14.5.x, 9.7.14.6.x), runs every
form on the device and compares D bit for bit with a dense CPU product. A mismatch means the
layout model (not just rounding: all sums are exact) is wrong. Usage: python3 gen_mma_layout.py >
mma_layout.cu; nvcc -arch=sm_80 -o mma_layout mma_layout.cu; ./mma_layout [dump.bin]"""

# name, instruction, A kind, K, ctype, dtype, selectors, na, nb, nc, nd
SPARSE = []
def sp(kind, k, ct, dt, nsel, extra="", ordered=False):
    ab = {"f16": 16, "bf16": 16, "tf32": 32, "s8": 8, "u8": 8, "s4": 4, "u4": 4}[kind]
    na = 16 * (k // 2) * ab // 1024
    nb = k * 8 * ab // 1024
    nc = 2 if ct == "f16" else 4
    nd = 2 if dt == "f16" else 4
    op = "mma.sp::ordered_metadata" if ordered else "mma.sp"
    instr = f"{op}.sync.aligned.m16n8k{k}.row.col{extra}.{dt}.{kind}.{kind}.{ct}"
    name = f"sp_{kind}_k{k}_{dt}_{ct}" + ("_ord" if ordered else "") + ("_sat" if extra else "")
    SPARSE.append((name, instr, kind, k, ct, dt, nsel, na, nb, nc, nd))

sp("f16", 16, "f32", "f32", 4); sp("f16", 16, "f16", "f16", 4)
sp("f16", 32, "f32", "f32", 2); sp("f16", 32, "f16", "f16", 2); sp("f16", 32, "f32", "f32", 2, ordered=True)
sp("bf16", 16, "f32", "f32", 4); sp("bf16", 32, "f32", "f32", 2)
sp("tf32", 8, "f32", "f32", 4); sp("tf32", 16, "f32", "f32", 2)
sp("s8", 32, "s32", "s32", 2, ".satfinite"); sp("u8", 32, "s32", "s32", 2); sp("s8", 64, "s32", "s32", 1, ".satfinite")
sp("u8", 64, "s32", "s32", 1, ".satfinite")
sp("s4", 64, "s32", "s32", 2, ".satfinite"); sp("u4", 64, "s32", "s32", 2); sp("s4", 128, "s32", "s32", 1, ".satfinite")
sp("u4", 128, "s32", "s32", 1)

QP = []  # m8n8k4 .f16: name, instr, alayout, blayout, ct, dt
for al in ("row", "col"):
    for bl in ("row", "col"):
        QP.append((f"qp_{al}_{bl}_f32_f32", f"mma.sync.aligned.m8n8k4.{al}.{bl}.f32.f16.f16.f32", al, bl, "f32", "f32"))
QP.append(("qp_row_col_f16_f16", "mma.sync.aligned.m8n8k4.row.col.f16.f16.f16.f16", "row", "col", "f16", "f16"))
QP.append(("qp_col_row_f32_f16", "mma.sync.aligned.m8n8k4.col.row.f32.f16.f16.f16", "col", "row", "f16", "f32"))
QP.append(("qp_col_col_f16_f16", "mma.sync.aligned.m8n8k4.col.col.f16.f16.f16.f16", "col", "col", "f16", "f16"))

def kernel(name, instr, na, nb, nc, nd, cfloat, dfloat, sparse, nsel=1):
    s = f"template <int SEL> __global__ void {name}(const uint32_t* in, uint32_t* out) {{\n"
    s += "  const uint32_t* p = in + threadIdx.x * 20; uint32_t* o = out + threadIdx.x * 8;\n"
    s += "".join(f"  uint32_t a{i} = p[{i}];\n" for i in range(na))
    s += "".join(f"  uint32_t b{i} = p[{4 + i}];\n" for i in range(nb))
    for i in range(nc):
        s += f"  float c{i} = __uint_as_float(p[{8 + i}]);\n" if cfloat else f"  uint32_t c{i} = p[{8 + i}];\n"
    s += "  uint32_t e = p[16]; (void)e;\n"
    s += "".join((f"  float d{i};\n" if dfloat else f"  uint32_t d{i};\n") for i in range(nd))
    n = 0
    def grp(cnt):
        nonlocal n
        g = "{" + ", ".join(f"%{n + i}" for i in range(cnt)) + "}"
        n += cnt
        return g
    ops = f"{grp(nd)}, {grp(na)}, {grp(nb)}, {grp(nc)}"
    if sparse:
        ops += f", %{n}, %{n + 1}"
    s += f'  asm volatile("{instr} {ops};\\n"\n'
    s += "    : " + ", ".join((f'"=f"(d{i})' if dfloat else f'"=r"(d{i})') for i in range(nd)) + "\n"
    ins = [f'"r"(a{i})' for i in range(na)] + [f'"r"(b{i})' for i in range(nb)]
    ins += [(f'"f"(c{i})' if cfloat else f'"r"(c{i})') for i in range(nc)]
    if sparse:
        ins += ['"r"(e)', '"n"(SEL)']
    s += "    : " + ", ".join(ins) + ");\n"
    s += "".join((f"  o[{i}] = __float_as_uint(d{i});\n" if dfloat else f"  o[{i}] = d{i};\n") for i in range(nd))
    s += "}\n"
    s += f"static void launch_{name}(int sel, const uint32_t* in, uint32_t* out) {{\n  switch (sel) {{\n"
    for k in range(nsel):
        s += f"    case {k}: {name}<{k}><<<1, 32>>>(in, out); break;\n"
    s += "  }\n}\n"
    return s

out = [open(__file__.replace("gen_mma_layout.py", "mma_layout_head.cuh")).read()]
for (name, instr, kind, k, ct, dt, nsel, na, nb, nc, nd) in SPARSE:
    out.append(kernel(name, instr, na, nb, nc, nd, ct == "f32", dt == "f32", True, nsel))
for (name, instr, al, bl, ct, dt) in QP:
    out.append(kernel(name, instr, 2, 2, 8 if ct == "f32" else 4, 8 if dt == "f32" else 4, ct == "f32", dt == "f32", False))
out.append("static const SparseForm kSparse[] = {\n")
for (name, instr, kind, k, ct, dt, nsel, na, nb, nc, nd) in SPARSE:
    out.append(f'  {{"{instr}", launch_{name}, K_{kind.upper()}, {k}, {int(ct == "f16")}, {int(dt == "f16")}, {nsel}, {na}, {nb}, {int(".satfinite" in instr)}}},\n')
out.append("};\nstatic const QpForm kQp[] = {\n")
for (name, instr, al, bl, ct, dt) in QP:
    out.append(f'  {{"{instr}", launch_{name}, {int(al == "col")}, {int(bl == "col")}, {int(ct == "f16")}, {int(dt == "f16")}}},\n')
out.append("};\n")
out.append(open(__file__.replace("gen_mma_layout.py", "mma_layout_main.cuh")).read())
print("".join(out))
