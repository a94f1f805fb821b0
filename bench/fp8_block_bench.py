"""Block-scaled fp8 GEMM benchmark (issue 13), run on the H200 by
scripts/gpu-python.sh (FP8_BENCH=1 after the other steps, FP8_BENCH=only
alone).

Each shape: e4m3 A (M x K) and W (N x K), both row-major (K-major), bf16
C = A W^T, with DeepGEMM's scales: SFA f32[M, ceil(K/128)] (one per row of A
and 128 of K) and SFB f32[ceil(N/128), ceil(K/128)] (one per 128 x 128 block
of W):
  tilec   the program tilec.gemm(a, b, sfa=, sfb=) runs for the shape
          (tilec._gemm.block_scaled_source: codegen's
          sm90ChooseBlockScaledConfig, measured on the H100 in issue 26:
          at M <= 128 A and B as written, BM 64 or 128 and BN the
          narrowest multiple of 16 whose tiles fit one wave, M, N, K fixed;
          above, 128 x 192 in 4 stages), or --tile FILE (a program with the
          same operands, used at every M); each program's tile, stages and
          schedule printed before the table, launched through the Python
          package with sfa= and sfb=;
  cuBLAS  torch.nn.functional.scaled_mm with the BlockWise1x128 /
          BlockWise128x128 recipes (torch's scale layouts: SFA as an M-major
          M x ceil(K/128) tensor, SFB as its K-block-major transpose), or
          where this torch has no F.scaled_mm, torch._scaled_mm with the
          same tensors (it infers the recipes from their shapes); the run
          prints which.
Shapes: 4096^3 and 8192^3, and DeepSeek-V3's (N, K) pairs at M = 64, 128 and
4096 (the issue's table; 4096 x 2112 x 7168 and 4096 x 7168 x 2048 are among
them). Besides TFLOP/s and the ratio to cuBLAS each row shows DeepGEMM's
goal on the H100 (DeepGEMM 2.6.1's better run, ../shared/anchors/
deepgemm-h100-2026-11-27.md, issue 26) and, for M <= 128, the fraction of
the memory floor: the bytes a GEMM must move (A + B + SFA + SFB + C) over a
device-to-device copy bandwidth measured in this run on buffers of the same
size (rotated like the operands), i.e. floor time = copy time of those
bytes (which reads and writes them) / 2.

Also the unscaled e4m3 4096^3: the program tilec.gemm picks, against cuBLAS
row-wise torch._scaled_mm (scales of 1.0; with and without use_fast_accum).

Method (as bench/epilogue_bench.py): before timing, each side's output on
fresh random data (C poisoned with NaN for tilec) is checked element by
element against an fp32 reference computed from the dequantized operands:
|c - ref| <= 2^-8 |ref| + 2^-11 (|A| |B|^T) (bf16 output rounding, the fp8
tensor core's ~14-bit sums inside one 128-deep block). Every side runs from
CUDA graphs of 10 launches (bench/torch_timing.py) over operand copies
rotated past the 50 MiB L2 (at least 256 MiB of them), the sides
alternating round by round; figures are medians of round medians. The run
stops starting new shapes past --budget-s seconds (printing SKIP lines) and
prints its wall time.
"""
import time

_START = time.perf_counter()

import argparse  # noqa: E402
import os  # noqa: E402
import re  # noqa: E402
import statistics  # noqa: E402
import sys  # noqa: E402

import torch  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import tilec  # noqa: E402
from tilec import _gemm  # noqa: E402
import torch_timing  # noqa: E402
from torch_timing import time_graph  # noqa: E402

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
DEFAULT_TILE = os.path.join(ROOT, "examples", "gemm_fp8_block_sm90.tile")

# DeepGEMM's published H800 TFLOP/s (issue 13), by (N, K) and M: the
# shapes.
DEEPGEMM_H800 = {
    (2112, 7168): {64: 206, 128: 352, 4096: 1127},
    (24576, 1536): {64: 289, 128: 535, 4096: 1212},
    (32768, 512): {64: 219, 128: 358, 4096: 775},
    (7168, 16384): {64: 336, 128: 645, 4096: 1520},
    (4096, 7168): {64: 287, 128: 533, 4096: 1410},
    (7168, 2048): {64: 295, 128: 510, 4096: 1168},
}
# The goal of issue 26: DeepGEMM 2.6.1's better run (programmatic dependent
# launch off or on) on one H100 on 2026-11-27, TFLOP/s, by (M, N, K)
# (../shared/anchors/deepgemm-h100-2026-11-27.md).
DEEPGEMM_H100_GOAL = {
    (64, 2112, 7168): 204, (64, 24576, 1536): 280, (64, 32768, 512): 214,
    (64, 7168, 16384): 334, (64, 4096, 7168): 274, (64, 7168, 2048): 223,
    (128, 2112, 7168): 366, (128, 24576, 1536): 503,
    (128, 32768, 512): 351, (128, 7168, 16384): 653,
    (128, 4096, 7168): 528, (128, 7168, 2048): 402,
    (4096, 2112, 7168): 1299, (4096, 24576, 1536): 1147,
    (4096, 32768, 512): 987, (4096, 7168, 16384): 1345,
    (4096, 4096, 7168): 1339, (4096, 7168, 2048): 1213,
    (4096, 4096, 4096): 1330, (8192, 8192, 8192): 1211}
# cuBLAS blockwise on this H200 from CUDA graphs, 2026-11-23 (issue 13).
CUBLAS_ANCHOR = {(4096, 4096, 4096): 1130, (8192, 8192, 8192): 1078,
                 (4096, 2112, 7168): 996, (4096, 7168, 2048): 986}
SHAPES = [(4096, 4096, 4096), (8192, 8192, 8192)] + [
    (m, n, k) for m in (64, 128, 4096) for n, k in DEEPGEMM_H800]
E4M3_MAX = 448.0
ROTATE_BYTES = 256 << 20
SMS = 132  # the H100's and H200's; the rules' measurements were on 132


def cdiv(a, b):
    return -(-a // b)


def _enum(owner, *names):
    """owner.NAME for the first of names it has, spelled with or without
    underscores and in any case (torch's enum members were renamed between
    releases: Blockwise_1x128, BlockWise1x128)."""
    want = {n.lower().replace("_", "") for n in names}
    for attr in dir(owner):
        if attr.lower().replace("_", "") in want:
            return getattr(owner, attr)
    raise AttributeError(f"{owner.__name__} has none of {names}")


def cublas_candidates():
    """[(name, fn(a, w, scale_a, scale_b) -> C, torch_scales(sfa, sfb) ->
    (scale_a, scale_b))]: F.scaled_mm with the BlockWise recipes where
    torch has it, then torch._scaled_mm."""
    F = torch.nn.functional
    out = []
    scaled_mm = getattr(F, "scaled_mm", None)
    scaling = getattr(F, "ScalingType", None)
    if scaled_mm is not None and scaling is None:
        scaling = scaled_mm.__globals__.get("ScalingType")
    if scaled_mm is not None and scaling is not None:
        one = _enum(scaling, "BlockWise1x128", "Blockwise_1x128")
        block = _enum(scaling, "BlockWise128x128", "Blockwise_128x128")

        def v2_scales(sfa, sfb):
            # SFA: M x KB with strides (1, M). SFB: KB4 x NB with strides
            # (1, KB4), KB4 = KB rounded up to 4 (zeros past KB).
            nb, kb = sfb.shape
            kb4 = cdiv(kb, 4) * 4
            padded = torch.zeros(nb, kb4, dtype=sfb.dtype, device=sfb.device)
            padded[:, :kb] = sfb
            return sfa.t().contiguous().t(), padded.t()

        def v2(a, w, scale_a, scale_b):
            return scaled_mm(a, w.t(), scale_a=scale_a, scale_recipe_a=one,
                             scale_b=scale_b, scale_recipe_b=block,
                             output_dtype=torch.bfloat16)
        out.append((f"torch.nn.functional.scaled_mm, {one} x {block}", v2,
                    v2_scales))

    def legacy_scales(sfa, sfb):
        # SFA: M x KB with strides (1, M); SFB: its transpose view KB x NB.
        return sfa.t().contiguous().t(), sfb.t()

    def legacy(a, w, scale_a, scale_b):
        return torch._scaled_mm(a, w.t(), scale_a, scale_b,
                                out_dtype=torch.bfloat16)
    out.append(("torch._scaled_mm, blockwise 1x128 x 128x128 (recipes from "
                "the scale shapes)", legacy, legacy_scales))
    return out


def cublas_blockwise(gen):
    """The first of cublas_candidates() that runs and passes the check on a
    256 x 384 x 512 probe; prints why the others were passed over."""
    m, n, k = 256, 384, 512
    a, w = quantized(m, k, gen), quantized(n, k, gen)
    sfa = scales((m, cdiv(k, 128)), gen)
    sfb = scales((cdiv(n, 128), cdiv(k, 128)), gen)
    a32, w32 = dequantized(a, sfa, 1), dequantized(w, sfb, 128)
    for name, fn, torch_scales in cublas_candidates():
        try:
            result = check(fn(a, w, *torch_scales(sfa, sfb)), a32, w32)
        except Exception as e:  # noqa: BLE001  (not in this torch build)
            print(f"cuBLAS: {name}: unusable: "
                  f"{str(e).splitlines()[0][:300]}")
            continue
        if result[0] or result[1]:
            print(f"cuBLAS: {name}: wrong on the probe: {verdict(result)}")
            continue
        return name, fn, torch_scales
    return None


def quantized(rows, k, gen):
    """e4m3 rows x K with values spread over e4m3's range."""
    x = torch.randn(rows, k, device="cuda", generator=gen) * 64
    return x.clamp(-E4M3_MAX, E4M3_MAX).to(torch.float8_e4m3fn)


SFA_M_MAJOR = False  # --sfa-m-major: SFA given M-major (strides (1, M))


def scales(shape, gen):
    """Random powers of two in [2^-8, 2^-4]: positive, like real scales."""
    e = torch.randint(-8, -3, shape, device="cuda", generator=gen)
    return torch.pow(2.0, e.float())


def sfa_scales(m, kb, gen):
    """SFA M x ceil(K/128): row-major, or with --sfa-m-major the M-major
    view (strides (1, M), torch's scaled_mm layout), for which
    tilec.gemm runs the `scale a ... major(M)` program."""
    if SFA_M_MAJOR:
        return scales((kb, m), gen).t()
    return scales((m, kb), gen)


def dequantized(q, sf, rows_per_scale):
    """The f32 value of e4m3 q (rows x K) with one scale per rows_per_scale
    rows and 128 of K."""
    s = sf.repeat_interleave(rows_per_scale, 0)[:q.shape[0]]
    s = s.repeat_interleave(128, 1)[:, :q.shape[1]]
    return q.float() * s


def check(c, a32, b32):
    """(wrong elements, NaNs, max |err| / max |ref|) of c against a32 b32^T."""
    prev = torch.backends.cuda.matmul.allow_tf32
    torch.backends.cuda.matmul.allow_tf32 = False
    try:
        ref = a32 @ b32.t()
        mag = a32.abs() @ b32.abs().t()
    finally:
        torch.backends.cuda.matmul.allow_tf32 = prev
    got = c.float()
    err = (got - ref).abs()
    wrong = int((~(err <= 2.0 ** -8 * ref.abs() + 2.0 ** -11 * mag)).sum())
    nans = int(got.isnan().sum())
    rel = float(err.nan_to_num(float("inf")).max()) / max(
        float(ref.abs().max()), 1e-30)
    del ref, mag, got, err
    return wrong, nans, rel


def verdict(result):
    wrong, nans, rel = result
    return (f"{'PASS' if wrong == 0 and nans == 0 else 'FAIL'} "
            f"{wrong} wrong, rel {rel:.1e}")


def copy_floor_us(nbytes, rounds, iters):
    """Median time of a device-to-device copy of nbytes over rotated
    buffers, halved: the time to move nbytes once (a copy reads and writes
    them); and the copy bandwidth in GB/s."""
    copies = max(2, min(64, cdiv(ROTATE_BYTES, 2 * nbytes)))
    src = [torch.empty(nbytes, dtype=torch.uint8, device="cuda")
           for _ in range(copies)]
    dst = [torch.empty_like(s) for s in src]
    samples = [time_graph(lambda i: dst[i].copy_(src[i]), copies, iters)
               for _ in range(rounds)]
    us = statistics.median(samples)
    return us / 2, 2 * nbytes / us * 1e-3


def check_block(kernel, cublas, m, n, k, gen):
    """Both sides on fresh data against the reference: ({side: check},
    why cuBLAS did not run or None)."""
    kb, nb = cdiv(k, 128), cdiv(n, 128)
    a, w = quantized(m, k, gen), quantized(n, k, gen)
    sfa, sfb = sfa_scales(m, kb, gen), scales((nb, kb), gen)
    a32, w32 = dequantized(a, sfa, 1), dequantized(w, sfb, 128)
    c = torch.full((m, n), float("nan"), device="cuda", dtype=torch.bfloat16)
    kernel(a, w, c, sfa=sfa, sfb=sfb)
    torch.cuda.synchronize()
    checks = {"tilec": check(c, a32, w32)}
    if cublas is None:
        return checks, "no usable entry point"
    _, cublas_fn, torch_scales = cublas
    try:
        checks["cublas"] = check(cublas_fn(a, w, *torch_scales(sfa, sfb)),
                                 a32, w32)
    except Exception as e:  # noqa: BLE001  (a shape it refuses)
        return checks, str(e).splitlines()[0][:200]
    return checks, None


def rotated_operands(m, n, k, nbytes, gen):
    """(copies, a, w, sfa, sfb, c): lists of fresh operand copies (C
    uninitialised bf16) whose count rotates nbytes a copy past
    ROTATE_BYTES."""
    kb, nb = cdiv(k, 128), cdiv(n, 128)
    copies = max(2, min(64, cdiv(ROTATE_BYTES, nbytes)))
    a = [quantized(m, k, gen) for _ in range(copies)]
    w = [quantized(n, k, gen) for _ in range(copies)]
    sfa = [sfa_scales(m, kb, gen) for _ in range(copies)]
    sfb = [scales((nb, kb), gen) for _ in range(copies)]
    c = [torch.empty(m, n, device="cuda", dtype=torch.bfloat16)
         for _ in range(copies)]
    return copies, a, w, sfa, sfb, c


def time_block(kernel, cublas, m, n, k, nbytes, args, gen):
    """{side: us} over rotated operand copies, sides alternating."""
    copies, a, w, sfa, sfb, c = rotated_operands(m, n, k, nbytes, gen)
    sides = {"tilec": lambda i: kernel(a[i], w[i], c[i], sfa=sfa[i],
                                       sfb=sfb[i])}
    if cublas is not None:
        _, cublas_fn, torch_scales = cublas
        ts = [torch_scales(sfa[i], sfb[i]) for i in range(copies)]
        sides["cublas"] = lambda i: cublas_fn(a[i], w[i], *ts[i])
    return time_sides(sides, copies, args)


def time_sides(sides, copies, args):
    return torch_timing.time_sides(sides, copies, args.rounds, args.iters)


def bench_block(kernel, cublas, m, n, k, args, gen):
    """One shape: ({side: check}, why cuBLAS did not run, {side: us},
    (floor us, copy GB/s) for M <= 128 else None)."""
    kb, nb = cdiv(k, 128), cdiv(n, 128)
    nbytes = m * k + n * k + 4 * (m * kb + nb * kb) + 2 * m * n
    checks, cublas_error = check_block(kernel, cublas, m, n, k, gen)
    times = time_block(kernel, cublas if cublas_error is None else None, m,
                       n, k, nbytes, args, gen)
    torch.cuda.empty_cache()
    floor = None
    if m <= 128:
        floor = copy_floor_us(nbytes, args.rounds, args.iters)
        torch.cuda.empty_cache()
    return checks, cublas_error, times, floor


def tflops(m, n, k, us):
    return 2.0 * m * n * k / us * 1e-6


def variant(source, bn, stages, schedule=""):
    """examples/gemm_fp8_block_sm90.tile's text (source) with another tile
    N, stage count and schedule line."""
    source = source.replace("BN = 128", f"BN = {bn}").replace(
        "stages   5", f"stages   {stages}")
    if schedule:
        source = source.replace("stages   ", f"{schedule}\n  stages   ", 1)
    return source


def chosen_kernels():
    """{(m, n, k): Kernel}: the program tilec.gemm(a, b, sfa=, sfb=) runs
    for each shape (tilec._gemm.block_scaled_source: codegen's
    sm90ChooseBlockScaledConfig on 132 SMs); prints each one's tile, stages
    and the schedule auto's why."""
    kernels = {}
    for m, n, k in SHAPES:
        source, _ = _gemm.block_scaled_source(m, n, k, SMS,
                                              sfa_m_major=SFA_M_MAJOR)
        kernel = tilec.compile(source)
        tile = re.search(r"tile\s+\((.*?)\)", source).group(1)
        stages = re.search(r"stages\s+(\d+)", source).group(1)
        found = _schedule(kernel)
        kernels[(m, n, k)] = kernel
        print(f"program {m} x {n} x {k}: {tile}, {stages} stages; "
              + (f"schedule {found.group(1)} ({found.group(2)})" if found
                 else "schedule: not in the lowered IR"))
    return kernels


def _schedule(kernel):
    return re.search(r'tile\.schedule \{(.*?), why = "(.*?)"\}',
                     kernel.lowered)


def block_rows(args, gen, begin):
    if args.tile == DEFAULT_TILE:
        chosen = chosen_kernels()
        print("tilec: the programs tilec.gemm(a, b, sfa=, sfb=) picks (above)")
    else:
        with open(args.tile) as f:
            written = tilec.compile(f.read())
        chosen = {shape: written for shape in SHAPES}
        print(f"tilec: {args.tile} at every shape: {written!r}")
    for kernel in chosen.values():
        if not kernel.operands.get("block_scaled"):
            raise SystemExit(f"{args.tile}: kernel {kernel.entry_name} has "
                             "no block scales")
    cublas = cublas_blockwise(gen)
    print(f"cuBLAS: {cublas[0] if cublas else 'none usable: tilec alone'}")
    header = ("M x N x K", "tilec us", "cuBLAS us", "tilec TFLOP/s",
              "cuBLAS TFLOP/s", "tilec/cuBLAS", "DeepGEMM H100 goal",
              "tilec/DeepGEMM", "memory floor", "goal", "check tilec",
              "check cuBLAS")
    print("| " + " | ".join(header) + " |")
    print("|" + "---|" * len(header))
    failures = 0
    for m, n, k in SHAPES:
        if m > args.max_m or m < args.min_m:
            continue
        if time.perf_counter() - begin > args.budget_s:
            print(f"| {m} x {n} x {k} | SKIP: past the {args.budget_s:.0f} s "
                  "budget |", flush=True)
            continue
        try:
            kernel = chosen[(m, n, k)]
            checks, cublas_error, t, floor = bench_block(kernel, cublas, m, n,
                                                         k, args, gen)
        except Exception as e:  # noqa: BLE001  (a refused launch, OOM)
            failures += 1
            print(f"| {m} x {n} x {k} | ERROR: "
                  f"{str(e).splitlines()[0][:300]} |", flush=True)
            torch.cuda.empty_cache()
            continue
        ours = tflops(m, n, k, t["tilec"])
        theirs = tflops(m, n, k, t["cublas"]) if "cublas" in t else None
        deep = DEEPGEMM_H100_GOAL.get((m, n, k))
        anchor = CUBLAS_ANCHOR.get((m, n, k))
        ratio = theirs and ours / theirs
        goals = []
        if m >= 4096 and ratio is not None:
            goals.append(">=1.15x cuBLAS " + ("met" if ratio >= 1.15
                                               else "not met"))
        if deep:
            goals.append(">=DeepGEMM " + ("met" if ours >= deep
                                          else "not met"))
        floor_text = "-"
        if floor is not None:
            floor_us, gbps = floor
            floor_text = (f"tilec {100 * floor_us / t['tilec']:.0f}%"
                          + (f", cuBLAS {100 * floor_us / t['cublas']:.0f}%"
                             if "cublas" in t else "")
                          + f" ({floor_us:.2f} us at {gbps:.0f} GB/s)")
        bad = [side for side, r in checks.items() if r[0] or r[1]]
        failures += bool(bad)
        cublas_text = (f"{t['cublas']:.2f}" if "cublas" in t else "-")
        print(f"| {m} x {n} x {k} | {t['tilec']:.2f} | {cublas_text} | "
              f"{ours:.0f} | "
              + (f"{theirs:.0f}" if theirs else "-")
              + (f" (issue: {anchor})" if anchor else "") + " | "
              + (f"{ratio:.2f}x" if ratio else "-") + " | "
              + (f"{deep}" if deep else "-") + " | "
              + (f"{ours / deep:.2f}" if deep else "-") + " | "
              + f"{floor_text} | {'; '.join(goals) or '-'} | "
              + f"{verdict(checks['tilec'])} | "
              + (verdict(checks["cublas"]) if "cublas" in checks
                 else f"cuBLAS refused: {cublas_error}") + " |", flush=True)
    return failures


def unscaled_row(args, gen, sms):
    """The unscaled e4m3 4096^3: tilec.gemm's program vs row-wise cuBLAS."""
    m = n = k = 4096
    source, _ = _gemm.program_source("sm_90a", "e4m3", "e4m3", "K", "K", m,
                                     n, k, sms)
    kernel = tilec.compile(source)
    print(f"\nunscaled e4m3 {m} x {n} x {k}, bf16 C: tilec.gemm's program "
          f"({' '.join(line.strip() for line in source.splitlines()[6:-1])})"
          " against torch._scaled_mm row-wise (scales of 1.0)")
    rows = torch.ones(m, 1, device="cuda")
    cols = torch.ones(1, n, device="cuda")

    def cublas(fast):
        return lambda a, w, c: torch._scaled_mm(
            a, w.t(), rows, cols, out_dtype=torch.bfloat16,
            use_fast_accum=fast)
    fns = {"tilec": lambda a, w, c: kernel(a, w, c),
           "rowwise": cublas(False), "rowwise fast_accum": cublas(True)}
    a, w = quantized(m, k, gen), quantized(n, k, gen)
    checks = {}
    for side, fn in fns.items():
        c = torch.full((m, n), float("nan"), device="cuda",
                       dtype=torch.bfloat16)
        out = fn(a, w, c)
        checks[side] = check(c if side == "tilec" else out, a.float(),
                             w.float())
    copies = max(2, cdiv(ROTATE_BYTES, m * k + n * k + 2 * m * n))
    a = [quantized(m, k, gen) for _ in range(copies)]
    w = [quantized(n, k, gen) for _ in range(copies)]
    c = [torch.empty(m, n, device="cuda", dtype=torch.bfloat16)
         for _ in range(copies)]
    t = time_sides({side: (lambda fn: lambda i: fn(a[i], w[i], c[i]))(fn)
                    for side, fn in fns.items()}, copies, args)
    print("| side | us | TFLOP/s | time / tilec's | check |")
    print("|---|---:|---:|---:|---|")
    for side in fns:
        print(f"| {side} | {t[side]:.2f} | {tflops(m, n, k, t[side]):.0f} | "
              f"{t[side] / t['tilec']:.3f} | {verdict(checks[side])} |")
    return sum(1 for r in checks.values() if r[0] or r[1])


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--tile", default=DEFAULT_TILE)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--iters", type=int, default=20)
    parser.add_argument("--budget-s", type=float, default=200.0,
                        help="start no new shape after this many seconds")
    parser.add_argument("--no-unscaled", action="store_true")
    parser.add_argument("--max-m", type=int, default=1 << 30,
                        help="only the shapes with M at most this")
    parser.add_argument("--min-m", type=int, default=0,
                        help="only the shapes with M at least this")
    parser.add_argument("--sfa-m-major", action="store_true",
                        help="SFA M-major (strides (1, M)): tilec.gemm "
                        "runs the major(M) programs")
    args = parser.parse_args()
    global SFA_M_MAJOR
    SFA_M_MAJOR = args.sfa_m_major
    begin = _START
    props = torch.cuda.get_device_properties(0)
    sms = props.multi_processor_count
    print(f"device: {props.name}, {sms} SMs; torch {torch.__version__}, "
          f"CUDA {torch.version.cuda}; tilec {tilec.__version__}")
    print(f"times: us per GEMM, median of {args.rounds} round medians of "
          f"{args.iters} graph replays (10 launches each), sides alternating")
    gen = torch.Generator(device="cuda").manual_seed(13)
    failures = block_rows(args, gen, begin)
    if not args.no_unscaled:
        if time.perf_counter() - begin > args.budget_s:
            print("unscaled e4m3 4096^3: SKIP: past the budget")
        else:
            failures += unscaled_row(args, gen, sms)
    print(f"\nfp8_block_bench: {time.perf_counter() - begin:.1f} s, "
          f"{failures} failures")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
