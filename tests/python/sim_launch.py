"""Kernel(...) with the epilogue's operands and block scales, launched in the
PTX simulator (TILEC_DEVICE=sim, chosen before the runtime's first call, so
test_sim_launch.py runs this in its own process): every element of C
against a reference computed here in plain Python.

  1. sm_80 f16 with `epilogue bias(col, f32) swiglu scale(col) residual`:
     C = (silu(x_g) x_u) scale[o] + R[i][o], x = A B^T + bias, pairing the
     halves of each 128-column tile; the residual with a padded ldr.
  2. sm_90a block-scaled fp8 (examples/gemm_fp8_block_sm90.tile) with sfa
     and sfb: integers and power-of-two scales keep every sum exact, so C is
     the reference rounded once to bf16.
  3. sm_90a grouped block-scaled fp8 (examples/gemm_fp8_grouped_*_sm90.tile
     at BM = 64), contiguous (B [3, N, K], group_index int32[M]: group 1
     empty, padding rows and a whole padding block) and masked (A [3, 64,
     K], C [3, 64, N], group_rows [30, 0, 64]): valid rows against the
     reference, every other row of C keeping its NaN poison.
  4. sm_80 W4A16 (the program tilec._gemm.w4a16_source generates, u4 with
     zero points, group 64, BM = 16 over M = 20 rows) launched with
     Kernel(a, packed, c, sb=, zb=) on codes packed by the C API: small
     integer activations, codes and zero points and power-of-two scales
     keep every product exact, so C is the reference rounded once to bf16.
Each case also checks that a reference missing the operand's effect (no
residual; SFB's two rows swapped; groups 0 and 2 of B swapped; no zero
points) disagrees, so a kernel that ignored it would fail. Prints one
PASS/FAIL line per case; exit 1 on a failure.
"""
import ctypes
import math
import os
import random
import struct
import sys

import tilec
from tilec import _launch, _lib
from tilec._operands import Operand

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
lib = _lib.lib


class Buffer:
    """Simulator memory holding `data` (bytes)."""

    def __init__(self, data):
        self.size = len(data)
        ptr = ctypes.c_uint64()
        assert lib.tilec_device_alloc(self.size, ctypes.byref(ptr)) == 0, \
            _lib.last_error()
        self.ptr = ptr.value
        assert lib.tilec_copy_to_device(self.ptr, data, self.size) == 0, \
            _lib.last_error()

    def read(self):
        out = ctypes.create_string_buffer(self.size)
        assert lib.tilec_copy_to_host(out, self.ptr, self.size) == 0, \
            _lib.last_error()
        return out.raw


def operand(values, dtype, shape, fmt, ld=None):
    """An Operand over a fresh buffer: a row-major rows x cols matrix (or a
    vector) of `values` packed with struct format `fmt`, rows ld apart."""
    rows, cols = shape if len(shape) == 2 else (1, shape[0])
    ld = ld or cols
    flat = []
    for r in range(rows):
        flat += values[r * cols:(r + 1) * cols] + [0] * (ld - cols)
    data = struct.pack(f"<{len(flat)}{fmt}", *flat)
    buf = Buffer(data)
    strides = (ld, 1) if len(shape) == 2 else (1,)
    return Operand(buf.ptr, dtype, shape, strides, ("cuda", None), buf)


def from_bf16(bits):
    return struct.unpack("<f", struct.pack("<I", bits << 16))[0]


def e4m3(x):
    """The e4m3 byte of a small integer -2..2."""
    return {-2: 0xc0, -1: 0xb8, 0: 0x00, 1: 0x38, 2: 0x40}[x]


def synchronize():
    assert lib.tilec_context_synchronize(_launch._context(0)) == 0, \
        _lib.last_error()


def count_wrong(got, want, rel, abs_tol=0.0):
    return sum(1 for g, w in zip(got, want)
               if not abs(g - w) <= rel * abs(w) + abs_tol)


def swiglu_case(rng):
    m, n, k, bn = 40, 256, 64, 128
    half = n // 2
    with open(os.path.join(ROOT, "examples", "gemm_sm80.tile")) as f:
        source = f.read().replace("bf16", "f16").replace(
            "epilogue store",
            "epilogue bias(col, f32) swiglu scale(col) residual -> store")
    kernel = tilec.compile(source)
    a = [rng.randint(-2, 2) for _ in range(m * k)]
    b = [rng.randint(-2, 2) for _ in range(n * k)]
    bias = [rng.randint(-4, 4) for _ in range(n)]
    scale = [rng.choice((0.5, 1.0, 2.0)) for _ in range(half)]
    res = [rng.randint(-8, 8) for _ in range(m * half)]
    ldr = half + 8
    c = operand([math.nan] * (m * half), "f16", (m, half), "e")
    kernel(operand(a, "f16", (m, k), "e"), operand(b, "f16", (n, k), "e"), c,
           bias=operand(bias, "f32", (n,), "f"),
           scale=operand(scale, "f32", (half,), "f"),
           residual=operand(res, "f16", (m, half), "e", ld=ldr))
    synchronize()
    got = struct.unpack(f"<{m * half}e", c.obj.read())
    want, bare = [], []
    for i in range(m):
        row = a[i * k:(i + 1) * k]
        x = [sum(p * q for p, q in zip(row, b[j * k:(j + 1) * k])) + bias[j]
             for j in range(n)]
        for o in range(half):
            t, r = divmod(o, bn // 2)
            g = t * bn + r
            u = g + bn // 2
            y = x[g] / (1 + math.exp(-x[g])) * x[u] * scale[o]
            bare.append(y)
            want.append(y + res[i * half + o])
    # f16 output: 2^-11 relative rounding, and the activation's few ulps.
    wrong = count_wrong(got, want, 2.0 ** -10, 1e-3)
    control = count_wrong(got, bare, 2.0 ** -10, 1e-3)
    ok = wrong == 0 and control > 0
    print(f"{'PASS' if ok else 'FAIL'} sim sm_80 {m}x{n}x{k} bias(col, f32) "
          f"swiglu scale(col) residual: {wrong}/{len(want)} wrong, "
          f"{control} differ from the reference without the residual")
    return ok


def block_scaled_case(rng):
    m, n, k = 40, 256, 256
    kb, nb = k // 128, n // 128
    with open(os.path.join(ROOT, "examples", "gemm_fp8_block_sm90.tile")) as f:
        kernel = tilec.compile(f.read())
    a = [rng.randint(-2, 2) for _ in range(m * k)]
    b = [rng.randint(-2, 2) for _ in range(n * k)]
    sfa = [rng.choice((0.5, 1.0, 2.0, 4.0)) for _ in range(m * kb)]
    sfb = [rng.choice((0.25, 0.5, 1.0, 2.0)) for _ in range(nb * kb)]
    sfb[0:kb], sfb[kb:2 * kb] = [0.25] * kb, [2.0] * kb  # rows differ
    c = operand([0xffff] * (m * n), "bf16", (m, n), "H")  # NaN
    kernel(operand([e4m3(x) for x in a], "e4m3", (m, k), "B"),
           operand([e4m3(x) for x in b], "e4m3", (n, k), "B"), c,
           sfa=operand(sfa, "f32", (m, kb), "f"),
           sfb=operand(sfb, "f32", (nb, kb), "f"))
    synchronize()
    got = [from_bf16(h) for h in struct.unpack(f"<{m * n}H", c.obj.read())]

    def reference(sfb_rows):
        out = []
        for i in range(m):
            for j in range(n):
                total = 0.0
                for q in range(kb):
                    part = sum(x * y for x, y in zip(
                        a[i * k + q * 128:i * k + (q + 1) * 128],
                        b[j * k + q * 128:j * k + (q + 1) * 128]))
                    total += sfa[i * kb + q] * sfb_rows[j // 128][q] * part
                out.append(total)
        return out
    rows = [sfb[r * kb:(r + 1) * kb] for r in range(nb)]
    wrong = count_wrong(got, reference(rows), 2.0 ** -8)
    control = count_wrong(got, reference(rows[::-1]), 2.0 ** -8)
    ok = wrong == 0 and control > 0
    print(f"{'PASS' if ok else 'FAIL'} sim sm_90a {m}x{n}x{k} block-scaled "
          f"fp8 (sfa, sfb): {wrong}/{m * n} wrong, {control} differ with "
          "SFB's rows swapped")
    return ok


def tensor3(values, dtype, shape, fmt):
    """An Operand over a fresh buffer: a row-major 3-D tensor."""
    g, rows, cols = shape
    buf = Buffer(struct.pack(f"<{len(values)}{fmt}", *values))
    return Operand(buf.ptr, dtype, shape, (rows * cols, cols, 1),
                   ("cuda", None), buf)


def grouped_case(rng, masked):
    g, n, k = 3, 256, 256
    kb, nb = k // 128, n // 128
    mode = "masked" if masked else "contiguous"
    with open(os.path.join(ROOT, "examples",
                           f"gemm_fp8_grouped_{mode}_sm90.tile")) as f:
        kernel = tilec.compile(f.read().replace("BM = 128", "BM = 64"))
    if masked:
        mmax, counts = 64, [30, 0, 64]
        rows = g * mmax
        group = [r // mmax if r % mmax < counts[r // mmax] else -1
                 for r in range(rows)]
    else:
        rows = 192  # blocks of 64: group 0 (40 rows), padding, group 2
        group = [0 if r < 40 else 2 if 128 <= r < 182 else -1
                 for r in range(rows)]
    a = [rng.randint(-2, 2) for _ in range(rows * k)]
    b = [rng.randint(-2, 2) for _ in range(g * n * k)]
    sfa = [rng.choice((0.5, 1.0, 2.0, 4.0)) for _ in range(rows * kb)]
    sfb = [rng.choice((0.25, 0.5, 1.0, 2.0)) for _ in range(g * nb * kb)]
    a8 = [e4m3(x) for x in a]
    b_op = tensor3([e4m3(x) for x in b], "e4m3", (g, n, k), "B")
    sfb_op = tensor3(sfb, "f32", (g, nb, kb), "f")
    if masked:
        a_op = tensor3(a8, "e4m3", (g, mmax, k), "B")
        c_op = tensor3([0xffff] * (rows * n), "bf16", (g, mmax, n), "H")
        sfa_op = tensor3(sfa, "f32", (g, mmax, kb), "f")
        extra = dict(group_rows=operand(counts, "i32", (g,), "i"))
    else:
        a_op = operand(a8, "e4m3", (rows, k), "B")
        c_op = operand([0xffff] * (rows * n), "bf16", (rows, n), "H")
        sfa_op = operand(sfa, "f32", (rows, kb), "f")
        extra = dict(group_index=operand(group, "i32", (rows,), "i"))
    kernel(a_op, b_op, c_op, sfa=sfa_op, sfb=sfb_op, **extra)
    synchronize()
    raw = struct.unpack(f"<{rows * n}H", c_op.obj.read())

    def reference(order):
        out = []
        for r in range(rows):
            gr = group[r]
            if gr < 0:
                out.extend([None] * n)
                continue
            gb = order[gr]
            for j in range(n):
                total = 0.0
                for q in range(kb):
                    lo, hi = q * 128, (q + 1) * 128
                    bj = (gb * n + j) * k
                    part = sum(x * y for x, y in zip(
                        a[r * k + lo:r * k + hi], b[bj + lo:bj + hi]))
                    total += (sfa[r * kb + q] *
                              sfb[(gb * nb + j // 128) * kb + q] * part)
                out.append(total)
        return out

    def wrong(want):
        bad = 0
        for h, w in zip(raw, want):
            if w is None:
                bad += h != 0xffff  # outside every group: the poison stays
            else:
                bad += not abs(from_bf16(h) - w) <= 2.0 ** -8 * abs(w)
        return bad
    bad = wrong(reference([0, 1, 2]))
    control = wrong(reference([2, 1, 0]))
    valid = sum(1 for x in group if x >= 0)
    ok = bad == 0 and control > 0
    print(f"{'PASS' if ok else 'FAIL'} sim sm_90a grouped {mode} fp8 {g} "
          f"groups {rows}x{n}x{k} ({valid} valid rows): {bad}/{rows * n} "
          f"wrong, {control} differ with B's groups 0 and 2 swapped")
    return ok


def w4a16_case(rng):
    from tilec import _gemm, _pack
    m, n, k, group = 20, 64, 256, 64
    rows = k // group
    kernel = tilec.compile(_gemm.w4a16_source("bf16", "u4", group, True,
                                              (16, 32, 128, 3))[0])
    a = [rng.randint(-2, 2) for _ in range(m * k)]
    q = [rng.randint(0, 15) for _ in range(n * k)]
    zeros = [rng.randint(0, 15) for _ in range(rows * n)]
    scales = [rng.choice((0.25, 0.5, 1.0, 2.0)) for _ in range(rows * n)]
    packed = _pack.pack_buffer(bytes(q), n, k, "u4")
    bits = [struct.unpack("<I", struct.pack("<f", x))[0] >> 16
            for x in scales]
    buf = Buffer(bytes(packed))
    b_op = Operand(buf.ptr, "i32", (n, k // 8), (k // 8, 1), ("cuda", None),
                   buf)
    c = operand([0xffff] * (m * n), "bf16", (m, n), "H")  # NaN
    kernel(operand([struct.unpack("<I", struct.pack("<f", x))[0] >> 16
                    for x in a], "bf16", (m, k), "H"), b_op, c,
           sb=operand(bits, "bf16", (rows, n), "H"),
           zb=operand(zeros, "u8", (rows, n), "B"))
    synchronize()
    got = [from_bf16(h) for h in struct.unpack(f"<{m * n}H", c.obj.read())]

    def reference(with_zeros):
        out = []
        for i in range(m):
            for j in range(n):
                out.append(sum(
                    a[i * k + x] * (q[j * k + x] - (
                        zeros[x // group * n + j] if with_zeros else 0)) *
                    scales[x // group * n + j] for x in range(k)))
        return out
    wrong = count_wrong(got, reference(True), 2.0 ** -8)
    control = count_wrong(got, reference(False), 2.0 ** -8)
    ok = wrong == 0 and control > 0
    print(f"{'PASS' if ok else 'FAIL'} sim sm_80 W4A16 u4 zero(u8) group("
          f"{group}) {m}x{n}x{k} (sb, zb): {wrong}/{m * n} wrong, {control} "
          "differ without the zero points")
    return ok


def main():
    if os.environ.get("TILEC_DEVICE") != "sim":
        print("sim_launch.py: set TILEC_DEVICE=sim", file=sys.stderr)
        return 2
    _launch._context(0)  # the simulator's context, before any allocation
    rng = random.Random(5)
    results = [swiglu_case(rng), block_scaled_case(rng),
               grouped_case(rng, False), grouped_case(rng, True),
               w4a16_case(rng)]
    return 0 if all(results) else 1


if __name__ == "__main__":
    sys.exit(main())
