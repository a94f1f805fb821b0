"""Quantized-weight GEMM (W4A16, W8A16) benchmark (issue 28), run on the
GPU by scripts/gpu-python.sh (W4A16_BENCH=1 after the other steps,
W4A16_BENCH=only alone, BENCH_ARGS appended).

Each shape: bf16 activations A (M x K, row-major) times a quantized weight
W (N x K): by default u4 codes with a bf16 scale and a u8 zero point per
output channel and group of 128 k (W = (q - z) s); --fmt i4, u8 (with zero
points), i8, e4m3 or e5m2 (W = value(q) s) instead; random codes, zero
points and scales packed by tilec.pack_weights; C = A W^T in bf16. Sides,
in one process:
  tilec    the sm_80 program tilec.gemm(a, w) runs on GPUs before Hopper
           (compiler/GemmProgram's, through tilec._gemm.w4a16_tile and
           w4a16_source), launched as
           Kernel(a, w.weight, c, sb=w.scales, zb=w.zeros); with --tiles
           one side per tile BMxBNxBKxSTAGES instead (the rule's tile is
           then not added unless listed);
  cuBLAS   torch.mm on the dequantized bf16 weight W (N x K, as w.t());
  int4     (u4 only) torch._weight_int4pack_mm (torch's int4 kernel) on
           the same codes, packed by torch._convert_weight_to_int4pack, with
           (scale, (8 - z) s) as its scale-and-zero (its W = (q - 8) s +
           zero); 'n/a' where this torch lacks it or refuses the shape;
  copy     a device-to-device copy of the packed weight's bytes (codes,
           scales, zero points): the memory floor. The floor of the GEMM
           is the bytes it must move (packed weight + scales + zero points
           + A + C) at the bandwidth that copy reaches (it reads and writes
           its bytes: 2 x bytes / time).
Shapes: M in {1, 4, 16, 64} x the issue's (N, K) in {(4096, 4096),
(14336, 4096), (4096, 14336), (28672, 8192), (8192, 28672), (2112, 7168)}
(the sessions before 21 ran (6144, 4096), (28672, 4096) and (8192, 8192)
in place of the second, fourth and sixth), or --shapes MxNxK,...

Method (DESIGN.md, performance): before timing, tilec's output (C poisoned
with NaN) is checked element by element against an fp32 reference computed
from the dequantized weight: |c - ref| <= 2^-8 (|A| |W|^T) + 2^-8 |ref|
(bf16 rounding of the dequantized weight and of C); torch's int4 side is
checked the same way (reported, not fatal). Every side runs from CUDA
graphs that each hold one whole cycle of operand copies (at least 10
launches), the copies of the weight together more than twice the L2, so
that no launch finds its weight in L2; the sides alternate round by round
and each figure is the median of the rounds' medians
(bench/torch_timing.py). The run starts no new shape past --budget-s
seconds (SKIP lines) and prints its wall time.

Columns: times in microseconds; x cuBLAS and x int4 are the other side's
time over tilec's (best tile); floor % is the floor's time over tilec's.
"""
import time

_START = time.perf_counter()

import argparse  # noqa: E402
import json  # noqa: E402
import math  # noqa: E402
import os  # noqa: E402
import sys  # noqa: E402

import torch  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import tilec  # noqa: E402
from tilec import _gemm  # noqa: E402
from torch_timing import BATCH, time_graph  # noqa: E402

# The (N, K) (Llama-3-8B/70B and DeepSeek-V3 projections).
NK = [(4096, 4096), (14336, 4096), (4096, 14336), (28672, 8192),
      (8192, 28672), (2112, 7168)]
SHAPES = [(m, n, k) for n, k in NK for m in (1, 4, 16, 64)]
GROUP = 128


def parse_shapes(text):
    out = []
    for item in text.split(","):
        m, n, k = (int(x) for x in item.lower().split("x"))
        out.append((m, n, k))
    return out


def parse_tiles(text):
    """[(arch, tile)]: BMxBNxBKxSTAGES[xSPLIT_K] for the sm_80 program, the
    same with an h in front (h64x16x64x16x2) for the sm_90a one."""
    out = []
    for item in text.split(","):
        item = item.strip().lower()
        arch = "sm_90a" if item.startswith("h") else "sm_80"
        parts = tuple(int(x) for x in item.lstrip("h").split("x"))
        if len(parts) not in (4, 5):
            raise SystemExit(f"--tiles: {item!r} (legal: [h]BMxBNxBKxSTAGES "
                             "or [h]BMxBNxBKxSTAGESxSPLIT_K)")
        out.append((arch, parts))
    return out


def tile_name(arch, tile):
    return ("tilec h" if arch == "sm_90a" else "tilec ") + "x".join(
        map(str, tile))


def l2_bytes():
    props = torch.cuda.get_device_properties(0)
    return getattr(props, "L2_cache_size", 0) or (50 << 20)


def copies_for(nbytes, l2):
    """Copies of an operand of nbytes whose total exceeds twice the L2."""
    return max(2, math.ceil(2 * l2 / max(nbytes, 1)) + 1)


# --fmt: (values dtype, lowest q, highest q, zero points) of each format;
# fp8 values are random finite bit patterns.
FORMATS = {"u4": (torch.uint8, 0, 15, True), "i4": (torch.int8, -8, 7, False),
           "u8": (torch.uint8, 0, 255, True),
           "i8": (torch.int8, -128, 127, False),
           "e4m3": (torch.float8_e4m3fn, None, None, False),
           "e5m2": (torch.float8_e5m2, None, None, False)}


def quantized_weight(n, k, gen, fmt="u4"):
    """Random codes of `fmt` (zero points for u4/u8) and bf16 scales that
    keep |W| near 2^-2 on the GPU, packed by tilec: (PackedWeights on the
    GPU, q [N, K] as float32 on the GPU: the value before the scale)."""
    rows = k // GROUP
    dtype, lo, hi, zeros = FORMATS[fmt]
    if lo is None:  # fp8: any finite pattern
        bits = torch.randint(0, 256, (n, k), dtype=torch.uint8, generator=gen)
        q = bits.view(dtype)
        finite = torch.isfinite(q.float())
        q = torch.where(finite, q.float(), 0.0).to(dtype)
        top = 448.0 if fmt == "e4m3" else 57344.0
    else:
        q = torch.randint(lo, hi + 1, (n, k), generator=gen).to(dtype)
        top = float(hi - lo)
    z = torch.randint(0, hi + 1, (rows, n), dtype=torch.uint8,
                      generator=gen) if zeros else None
    s = (torch.rand((rows, n), generator=gen) * 0.5 + 0.5) * 2.0 ** -2 / top
    s = s.to(torch.bfloat16)
    packed = tilec.pack_weights(q, s, z, fmt=fmt, group=GROUP)
    return packed.to("cuda"), q.float().to("cuda")


def dequantized(q, w):
    """(q - z) s as bf16 [N, K] (the weight cuBLAS multiplies) and f32,
    computed here by torch from the values (not by tilec)."""
    s = w.scales.t().float().repeat_interleave(GROUP, dim=1)
    w32 = q * s
    if w.zeros is not None:
        w32 = (q - w.zeros.t().float().repeat_interleave(GROUP, dim=1)) * s
    return w32.to(torch.bfloat16), w32


def int4_side(q, w, m):
    """(fn(a, packed, sz) -> C, packed, scale_and_zero) for
    torch._weight_int4pack_mm, or (None, reason)."""
    if w.fmt != "u4":
        return None, f"not a u4 weight ({w.fmt})"
    q = q.to(torch.uint8)
    convert = getattr(torch, "_convert_weight_to_int4pack", None)
    mm = getattr(torch, "_weight_int4pack_mm", None)
    if convert is None or mm is None:
        return None, "this torch has no _weight_int4pack_mm"
    s = w.scales.float()
    zero = (8.0 - w.zeros.float()) * s
    sz = torch.stack([s, zero], dim=2).to(torch.bfloat16).contiguous()
    errors = []
    # torch >= 2.5 takes uint8 [N, K/2] (two codes a byte, the even k in
    # the high nibble); older releases int32 [N, K].
    for make in (lambda: (q[:, ::2] << 4 | q[:, 1::2]).contiguous(),
                 lambda: q.to(torch.int32).contiguous()):
        try:
            packed = convert(make(), 8)
            a = torch.zeros((m, q.shape[1]), dtype=torch.bfloat16,
                            device="cuda")
            mm(a, packed, GROUP, sz)
            return (lambda x, p, t: mm(x, p, GROUP, t)), (packed, sz)
        except Exception as e:  # noqa: BLE001  (not in this torch build)
            errors.append(str(e).splitlines()[0][:200])
    return None, "; ".join(errors)


def check(c, a, w32):
    """(wrong elements, max |c - ref| / max |ref|) against the bound."""
    ref = a.float() @ w32.t()
    mag = a.float().abs() @ w32.abs().t()
    err = (c.float() - ref).abs()
    bound = 2.0 ** -8 * mag + 2.0 ** -8 * ref.abs()
    wrong = int((~(err <= bound)).sum())
    return wrong, float(err.max() / ref.abs().max().clamp_min(1e-30))


def cycle(copies):
    """Launches per graph: whole cycles of the copies, at least BATCH."""
    return copies * math.ceil(BATCH / copies)


def bench_nk(n, k, ms, tiles, args, l2, gen, results, begin):
    w0, q = quantized_weight(n, k, gen, args.fmt)
    zeros = w0.zeros is not None
    wd16, w32 = dequantized(q, w0)
    sms = torch.cuda.get_device_properties(0).multi_processor_count
    packed_bytes = (w0.weight.numel() * 4 + w0.scales.numel() * 2 +
                    (w0.zeros.numel() if zeros else 0))
    nq = copies_for(packed_bytes, l2)
    # Distinct copies of the same weight: other addresses, so L2 cannot
    # serve one launch from the previous launch's reads.
    ws = [w0] + [tilec.PackedWeights(w0.weight.clone(), w0.scales.clone(),
                                     w0.zeros.clone() if zeros else None,
                                     args.fmt, GROUP)
                 for _ in range(nq - 1)]
    nb = copies_for(wd16.numel() * 2, l2)
    wds = [wd16] + [wd16.clone() for _ in range(nb - 1)]
    src = [torch.empty(packed_bytes, dtype=torch.uint8, device="cuda")
           for _ in range(nq)]
    dst = [torch.empty(packed_bytes, dtype=torch.uint8, device="cuda")
           for _ in range(nq)]
    for m in ms:
        if time.perf_counter() - begin > args.budget_s:
            print(f"| {m} x {n} x {k} | SKIP: past the {args.budget_s:.0f} s "
                  "budget |", flush=True)
            continue
        a = (torch.randn((m, k), generator=gen) * 0.5).to(
            torch.bfloat16).cuda()
        c = torch.empty((m, n), dtype=torch.bfloat16, device="cuda")
        bits = w0.bits
        row_tiles = tiles or [("sm_80", _gemm.w4a16_tile(m, n, k, GROUP,
                                                         sms, bits))]
        if args.hopper and not tiles:
            row_tiles.append(
                ("sm_90a", _gemm.w4a16_tile_sm90(m, n, k, GROUP, sms, bits)))
        sides, notes = {}, []
        for arch, tile in row_tiles:
            name = tile_name(arch, tile)
            try:
                kernel = _gemm.w4a16_kernel("bf16", args.fmt, GROUP, zeros,
                                            tile, arch)
            except (tilec.CompileError, ValueError) as e:
                print(f"SKIP {name}: {str(e).splitlines()[0]}", flush=True)
                continue
            c.fill_(math.nan)
            if args.verbose:  # a hang names its kernel
                print(f"    check {name} {m}x{n}x{k}", flush=True)
            kernel(a, w0.weight, c, sb=w0.scales, zb=w0.zeros)
            torch.cuda.synchronize()
            wrong, rel = check(c, a, w32)
            for _ in range(args.repeat_check - 1):  # a race shows sometimes
                if wrong:
                    break
                c.fill_(math.nan)
                kernel(a, w0.weight, c, sb=w0.scales, zb=w0.zeros)
                torch.cuda.synchronize()
                wrong, rel = check(c, a, w32)
            if wrong:
                print(f"FAIL {name} {m}x{n}x{k}: {wrong}/{m * n} wrong "
                      f"(max rel {rel:.2e})", flush=True)
                results.append(dict(m=m, n=n, k=k, tile=tile, arch=arch,
                                    fail=wrong))
                continue
            notes.append(f"{name}: max rel {rel:.1e}")
            sides[name] = (lambda i, kk=kernel: kk(
                a, ws[i % nq].weight, c, sb=ws[i % nq].scales,
                zb=ws[i % nq].zeros), nq)
        if not sides:
            continue
        tilec_names = list(sides)
        sides["cuBLAS"] = (lambda i: torch.mm(a, wds[i % nb].t(), out=c),
                           nb)
        int4 = int4_side(q, w0, m)
        if int4[0] is not None:
            fn, (p4, sz4) = int4
            wrong, rel = check(fn(a, p4, sz4), a, w32)
            notes.append(f"int4: {wrong} wrong, max rel {rel:.1e}")
            p4s = [p4] + [p4.clone() for _ in range(nq - 1)]
            sides["int4"] = (lambda i, f=fn: f(a, p4s[i % nq], sz4), nq)
        else:
            notes.append(f"int4: n/a ({int4[1]})")
        sides["copy"] = (lambda i: dst[i % nq].copy_(src[i % nq]), nq)
        samples = {name: [] for name in sides}
        for _ in range(args.rounds):
            for name, (side, copies) in sides.items():
                samples[name].append(time_graph(side, copies, args.iters,
                                                batch=cycle(copies)))
        t = {name: sorted(v)[len(v) // 2] for name, v in samples.items()}
        best = min(tilec_names, key=lambda x: t[x])
        gemm_bytes = packed_bytes + m * k * 2 + m * n * 2
        bandwidth = 2 * packed_bytes / (t["copy"] * 1e-6)  # bytes / s
        floor = gemm_bytes / bandwidth * 1e6
        row = dict(m=m, n=n, k=k, us={x: round(v, 2) for x, v in t.items()},
                   best=best, floor_us=round(floor, 2),
                   floor_pct=round(100 * floor / t[best], 1),
                   x_cublas=round(t["cuBLAS"] / t[best], 2),
                   x_int4=(round(t["int4"] / t[best], 2) if "int4" in t
                           else None),
                   copy_gbs=round(bandwidth / 1e9, 1))
        results.append(row)
        shown = row_tiles if tiles else row_tiles[:2 if args.hopper else 1]
        cells = [f"{t[x]:8.1f}" if x in t else "     n/a" for x in
                 (tile_name(arch, tile) for arch, tile in shown)]
        int4_us = f"{t['int4']:8.1f}" if "int4" in t else "     n/a"
        x_int4 = f"{row['x_int4']:5.2f}" if row["x_int4"] else "  n/a"
        print(f"| {m:3d} x {n:5d} x {k:5d} | " + " | ".join(cells) +
              f" | {t['cuBLAS']:8.1f} | {int4_us} | {t['copy']:7.1f} | "
              f"{floor:7.1f} | {row['x_cublas']:5.2f} | {x_int4} | "
              f"{row['floor_pct']:5.1f} | {best[6:]} |", flush=True)
        print("    " + "; ".join(notes), flush=True)
        print("    times: " + ", ".join(f"{x} {t[x]:.1f}" for x in
                                        tilec_names), flush=True)
    del ws, wds, src, dst
    torch.cuda.empty_cache()


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--shapes", type=parse_shapes, default=SHAPES,
                        help="MxNxK,... (default: the issue's 24)")
    parser.add_argument("--tiles", type=parse_tiles, default=None,
                        help="BMxBNxBKxSTAGES,...: one tilec side per tile "
                        "(default: tilec.gemm's rule)")
    parser.add_argument("--hopper", action="store_true",
                        help="also the sm_90a program (RS wgmma) with "
                        "w4a16_tile_sm90's tile")
    parser.add_argument("--fmt", choices=sorted(FORMATS), default="u4",
                        help="the weight format (u4, u8 with zero points; "
                        "default u4)")
    parser.add_argument("--repeat-check", type=int, default=1,
                        help="check each kernel this many launches")
    parser.add_argument("--verbose", action="store_true",
                        help="print each kernel before its check launch")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--iters", type=int, default=30)
    parser.add_argument("--budget-s", type=float, default=400.0)
    parser.add_argument("--json", default=None,
                        help="write the rows as JSON to this file ('-': "
                        "stdout)")
    args = parser.parse_args()
    props = torch.cuda.get_device_properties(0)
    l2 = l2_bytes()
    print(f"{props.name}, {props.multi_processor_count} SMs, L2 "
          f"{l2 >> 20} MiB; torch {torch.__version__}; tilec "
          f"{tilec.__version__}; {args.fmt}"
          f"{' zero(u8)' if FORMATS[args.fmt][3] else ''} group({GROUP}), "
          "bf16")
    names = ([tile_name(arch, t) for arch, t in args.tiles]
             if args.tiles else ["tilec (rule)"] +
             (["tilec h(rule)"] if args.hopper else []))
    print("| M x N x K | " + " | ".join(names) + " | cuBLAS | int4 | copy | "
          "floor | x cuBLAS | x int4 | floor % | best tile |")
    print("|---" * (len(names) + 9) + "|")
    gen = torch.Generator().manual_seed(28)
    results = []
    begin = time.perf_counter()
    by_nk = {}
    for m, n, k in args.shapes:
        by_nk.setdefault((n, k), []).append(m)
    for (n, k), ms in by_nk.items():
        if time.perf_counter() - begin > args.budget_s:
            for m in ms:
                print(f"| {m} x {n} x {k} | SKIP: past the "
                      f"{args.budget_s:.0f} s budget |", flush=True)
            continue
        bench_nk(n, k, ms, args.tiles, args, l2, gen, results, begin)
    if args.json:
        text = json.dumps(dict(device=props.name, group=GROUP, fmt=args.fmt,
                               rows=results),
                          indent=1)
        if args.json == "-":
            print(text)
        else:
            with open(args.json, "w") as f:
                f.write(text + "\n")
    print(f"wall {time.perf_counter() - _START:.0f} s")
    return 1 if any("fail" in r for r in results) else 0


if __name__ == "__main__":
    sys.exit(main())
