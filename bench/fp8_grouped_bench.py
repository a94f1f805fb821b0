"""Grouped block-scaled fp8 GEMM benchmark (issue 13, mixture-of-experts),
run on the H200 by scripts/gpu-python.sh (GROUPED_BENCH=1 after the other
steps, GROUPED_BENCH=only alone).

The issue's grouped cases, each at (N, K) = (4096, 7168) and (7168, 2048):
  contiguous  4 groups x 8192 rows and 8 x 4096 rows: A e4m3[G * rows, K]
              (every group's rows stacked; multiples of 128, so no
              padding), group_index int32[M], B e4m3[G, N, K], C bf16[M, N];
  masked      1 x 1024, 2 x 512, 4 x 256 rows: A e4m3[G, Mmax, K], C
              bf16[G, Mmax, N], group_rows int32[G] with every count = Mmax
              (all rows valid);
with DeepGEMM's scales, SFA f32 per row and 128 of K (masked: [G, Mmax,
ceil(K/128)]) and SFB f32[G, ceil(N/128), ceil(K/128)].
  tilec   examples/gemm_fp8_grouped_contiguous_sm90.tile and
          gemm_fp8_grouped_masked_sm90.tile (--contiguous-tile /
          --masked-tile for others with the same operands) through the
          Python package (group_index= / group_rows=, sfa=, sfb=): one
          launch for all groups;
  cuBLAS  the same work as one blockwise scaled_mm per group (the entry
          point bench/fp8_block_bench.py's probe picks: F.scaled_mm with
          BlockWise1x128 x BlockWise128x128, or torch._scaled_mm), all G
          launched in the same CUDA graph, on A's rows of that group (a
          contiguous slice of A) with that group's scales in torch's
          layouts, each writing its own output tensor; the group sizes are
          known on the host there (tilec's masked kernel reads them on the
          device). torch has no blockwise grouped entry point
          (torch._scaled_grouped_mm is row-wise only).
TFLOP/s count valid rows only: 2 * (valid rows) * N * K. Each row shows
DeepGEMM's published H800 figure for the case (from the issue).

Method (as bench/fp8_block_bench.py): before timing, both sides' outputs on
fresh random data (tilec's C poisoned with NaN) are checked element by
element, group by group, against an fp32 reference from the dequantized
operands (|c - ref| <= 2^-8 |ref| + 2^-11 (|A| |B|^T)); every side runs
from CUDA graphs of 10 launches (bench/torch_timing.py) over operand copies
rotated past the 50 MiB L2, the sides alternating round by round; figures
are medians of round medians. No new case starts past --budget-s seconds
(SKIP lines); the wall time is printed. --dry-run lists the cases and the
bytes they need, without torch or a GPU.
"""
import time

_START = time.perf_counter()

import argparse  # noqa: E402
import os  # noqa: E402
import sys  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.join(HERE, "..")
DEFAULT_TILES = {
    mode: os.path.join(ROOT, "examples", f"gemm_fp8_grouped_{mode}_sm90.tile")
    for mode in ("contiguous", "masked")}

NK = [(4096, 7168), (7168, 2048)]
# (mode, groups, rows per group) x (N, K).
CASES = [(mode, g, rows, n, k)
         for mode, g, rows in (("contiguous", 4, 8192),
                               ("contiguous", 8, 4096),
                               ("masked", 1, 1024), ("masked", 2, 512),
                               ("masked", 4, 256))
         for n, k in NK]
# DeepGEMM's published H800 TFLOP/s (issue 13), by (mode, groups, rows)
# and (N, K).
DEEPGEMM_H800 = {
    ("contiguous", 4, 8192): {(4096, 7168): 1346, (7168, 2048): 1214},
    ("contiguous", 8, 4096): {(4096, 7168): 1346, (7168, 2048): 1214},
    ("masked", 1, 1024): {(4096, 7168): 1233, (7168, 2048): 925},
    ("masked", 2, 512): {(4096, 7168): 1040, (7168, 2048): 916},
    ("masked", 4, 256): {(4096, 7168): 932, (7168, 2048): 815},
}

# The goal of issue 26: DeepGEMM 2.6.1's better run on one H100,
# 2026-11-27 (../shared/anchors/deepgemm-h100-2026-11-27.md), TFLOP/s.
DEEPGEMM_H100_GOAL = {
    ("contiguous", 4, 8192): {(4096, 7168): 1273, (7168, 2048): 1110},
    ("contiguous", 8, 4096): {(4096, 7168): 1265, (7168, 2048): 1189},
    ("masked", 1, 1024): {(4096, 7168): 1188, (7168, 2048): 828},
    ("masked", 2, 512): {(4096, 7168): 1182, (7168, 2048): 818},
    ("masked", 4, 256): {(4096, 7168): 907, (7168, 2048): 778},
}


def cdiv(a, b):
    return -(-a // b)


def case_bytes(g, rows, n, k):
    """Bytes one GEMM's operands take: A, B, SFA, SFB, C, group tensor."""
    m, kb, nb = g * rows, cdiv(k, 128), cdiv(n, 128)
    return m * k + g * n * k + 4 * (m * kb + g * nb * kb) + 2 * m * n + 4 * m


def parse_args(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--contiguous-tile", default=DEFAULT_TILES[
        "contiguous"])
    parser.add_argument("--masked-tile", default=DEFAULT_TILES["masked"])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--iters", type=int, default=20)
    parser.add_argument("--budget-s", type=float, default=180.0,
                        help="start no new case after this many seconds")
    parser.add_argument("--only", choices=("contiguous", "masked"),
                        help="run one mode's cases")
    parser.add_argument("--dry-run", action="store_true",
                        help="list the cases and exit (no torch, no GPU)")
    args = parser.parse_args(argv)
    if args.rounds < 1 or args.iters < 1:
        parser.error("--rounds and --iters must be at least 1")
    return args


def selected(args):
    return [c for c in CASES if args.only in (None, c[0])]


def dry_run(args):
    for path in (args.contiguous_tile, args.masked_tile):
        if not os.path.exists(path):
            print(f"missing: {path}")
            return 1
    print(f"tiles: {args.contiguous_tile}, {args.masked_tile}")
    print("| case | N x K | valid rows | GFLOP | operand MiB | DeepGEMM H800 |")
    print("|---|---|---:|---:|---:|---:|")
    for mode, g, rows, n, k in selected(args):
        flop = 2.0 * g * rows * n * k
        print(f"| {mode} {g} x {rows} | {n} x {k} | {g * rows} | "
              f"{flop * 1e-9:.0f} | {case_bytes(g, rows, n, k) / 2**20:.0f} "
              f"| {DEEPGEMM_H800[(mode, g, rows)][(n, k)]} |")
    return 0


def run(args):
    import torch
    sys.path.insert(0, HERE)
    import tilec
    import fp8_block_bench as fb
    from torch_timing import time_sides

    def operands(mode, g, rows, n, k, gen):
        """One copy of the case's operands: (a, b, c, sfa, sfb, group
        tensor, row slices [(start, stop)] of each group in A's rows)."""
        kb, nb = cdiv(k, 128), cdiv(n, 128)
        m = g * rows
        a = fb.quantized(m, k, gen)
        b = fb.quantized(g * n, k, gen).view(g, n, k)
        sfa = fb.scales((m, kb), gen)
        sfb = fb.scales((g * nb, kb), gen).view(g, nb, kb)
        c = torch.full((m, n), float("nan"), device="cuda",
                       dtype=torch.bfloat16)
        if mode == "masked":
            a, c, sfa = (a.view(g, rows, k), c.view(g, rows, n),
                         sfa.view(g, rows, kb))
            group = dict(group_rows=torch.full((g,), rows, device="cuda",
                                               dtype=torch.int32))
        else:
            group = dict(group_index=torch.arange(
                g, device="cuda", dtype=torch.int32).repeat_interleave(rows))
        return a, b, c, sfa, sfb, group, [(i * rows, (i + 1) * rows)
                                          for i in range(g)]

    def flat(x):
        return x.reshape(-1, x.shape[-1])

    def cublas_groups(cublas, a, b, sfa, sfb, slices):
        """fn() launching one scaled_mm per group, its outputs, and the
        scale tensors (made outside any capture)."""
        _, fn, torch_scales = cublas
        a2, s2 = flat(a), flat(sfa)
        args = [(a2[lo:hi], b[i], *torch_scales(s2[lo:hi], sfb[i]))
                for i, (lo, hi) in enumerate(slices)]
        return lambda: [fn(*x) for x in args]

    def check_case(kernel, cublas, mode, g, rows, n, k, gen):
        a, b, c, sfa, sfb, group, slices = operands(mode, g, rows, n, k, gen)
        kernel(a, b, c, sfa=sfa, sfb=sfb, **group)
        torch.cuda.synchronize()
        a32 = fb.dequantized(flat(a), flat(sfa), 1)
        outs = {"tilec": [flat(c)[lo:hi] for lo, hi in slices]}
        error = None
        if cublas is not None:
            try:
                outs["cublas"] = cublas_groups(cublas, a, b, sfa, sfb,
                                               slices)()
            except Exception as e:  # noqa: BLE001  (a shape it refuses)
                error = str(e).splitlines()[0][:200]
        checks = {}
        for side, parts in outs.items():
            wrong = nans = 0
            rel = 0.0
            for i, (lo, hi) in enumerate(slices):
                b32 = fb.dequantized(b[i], sfb[i], 128)
                w, nn, r = fb.check(parts[i], a32[lo:hi], b32)
                wrong, nans, rel = wrong + w, nans + nn, max(rel, r)
            checks[side] = (wrong, nans, rel)
        del a32, outs
        return checks, error

    def time_case(kernel, cublas, mode, g, rows, n, k, gen):
        copies = max(2, min(64, cdiv(fb.ROTATE_BYTES,
                                     case_bytes(g, rows, n, k))))
        sets = [operands(mode, g, rows, n, k, gen) for _ in range(copies)]

        def tilec_side(i):
            a, b, c, sfa, sfb, group, _ = sets[i]
            kernel(a, b, c, sfa=sfa, sfb=sfb, **group)
        sides = {"tilec": tilec_side}
        if cublas is not None:
            launches = [cublas_groups(cublas, s[0], s[1], s[3], s[4], s[6])
                        for s in sets]
            sides["cublas"] = lambda i: launches[i]()
        return time_sides(sides, copies, args.rounds, args.iters)

    props = torch.cuda.get_device_properties(0)
    print(f"device: {props.name}, {props.multi_processor_count} SMs; torch "
          f"{torch.__version__}, CUDA {torch.version.cuda}; tilec "
          f"{tilec.__version__}")
    print(f"times: us per grouped GEMM (all groups), median of {args.rounds}"
          f" round medians of {args.iters} graph replays (10 launches each),"
          " sides alternating")
    gen = torch.Generator(device="cuda").manual_seed(17)
    kernels = {}
    for mode, path in (("contiguous", args.contiguous_tile),
                       ("masked", args.masked_tile)):
        with open(path) as f:
            kernels[mode] = tilec.compile(f.read())
        kind = kernels[mode].operands.get("group_kind")
        if kind != (1 if mode == "contiguous" else 2):
            raise SystemExit(f"{path}: kernel {kernels[mode].entry_name} is "
                             f"not group {mode} (group_kind {kind})")
        print(f"tilec {mode}: {path}: {kernels[mode]!r}")
    cublas = fb.cublas_blockwise(gen)
    print(f"cuBLAS: one per group: "
          f"{cublas[0] if cublas else 'none usable: tilec alone'}")
    header = ("case", "N x K", "tilec us", "cuBLAS us", "tilec TFLOP/s",
              "cuBLAS TFLOP/s", "tilec/cuBLAS", "DeepGEMM H100 goal",
              "tilec/DeepGEMM", "check tilec", "check cuBLAS")
    print("| " + " | ".join(header) + " |")
    print("|" + "---|" * len(header))
    failures = 0
    for mode, g, rows, n, k in selected(args):
        name = f"{mode} {g} x {rows}"
        if time.perf_counter() - _START > args.budget_s:
            print(f"| {name} | {n} x {k} | SKIP: past the "
                  f"{args.budget_s:.0f} s budget |", flush=True)
            continue
        try:
            checks, error = check_case(kernels[mode], cublas, mode, g, rows,
                                       n, k, gen)
            torch.cuda.empty_cache()
            t = time_case(kernels[mode], cublas if error is None else None,
                          mode, g, rows, n, k, gen)
            torch.cuda.empty_cache()
        except Exception as e:  # noqa: BLE001  (a refused launch, OOM)
            failures += 1
            print(f"| {name} | {n} x {k} | ERROR: "
                  f"{str(e).splitlines()[0][:300]} |", flush=True)
            torch.cuda.empty_cache()
            continue
        flop = 2.0 * g * rows * n * k
        ours = flop / t["tilec"] * 1e-6
        theirs = flop / t["cublas"] * 1e-6 if "cublas" in t else None
        deep = DEEPGEMM_H100_GOAL[(mode, g, rows)][(n, k)]
        bad = [side for side, r in checks.items() if r[0] or r[1]]
        failures += bool(bad)
        print(f"| {name} | {n} x {k} | {t['tilec']:.1f} | "
              + (f"{t['cublas']:.1f}" if theirs else "-") + f" | {ours:.0f} | "
              + (f"{theirs:.0f}" if theirs else "-") + " | "
              + (f"{ours / theirs:.2f}x" if theirs else "-") + f" | {deep} | "
              + f"{ours / deep:.2f} | {fb.verdict(checks['tilec'])} | "
              + (fb.verdict(checks["cublas"]) if "cublas" in checks
                 else f"cuBLAS: {error or 'none'}") + " |", flush=True)
    print(f"\nfp8_grouped_bench: {time.perf_counter() - _START:.1f} s, "
          f"{failures} failures")
    return 1 if failures else 0


def main(argv=None):
    args = parse_args(argv)
    return dry_run(args) if args.dry_run else run(args)


if __name__ == "__main__":
    sys.exit(main())
