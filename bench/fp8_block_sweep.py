"""Which block-scaled fp8 program is fastest (issues 13 and 26): variants
of examples/gemm_fp8_block_sm90.tile (tile, stages, schedule) on the 20
shapes of bench/fp8_block_bench.py, side by side with cuBLAS blockwise in
one process, by the method and helpers of fp8_block_bench.py (every
variant's output checked on fresh data first; CUDA graphs on every side;
sides alternating; medians), each row also against issue 26's DeepGEMM goal
on the H100. Run by scripts/gpu-python.sh with FP8_SWEEP=only (about a
minute on the H100).

Each variant takes the most stages that compile; one that does not compile
(shared memory, registers) prints why and is skipped; one whose check
fails is reported and not timed.
"""
import time

_START = time.perf_counter()

import argparse  # noqa: E402
import os  # noqa: E402
import sys  # noqa: E402

import torch  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import fp8_block_bench as fb  # noqa: E402
import tilec  # noqa: E402
from tilec import _gemm  # noqa: E402

SHAPES = fb.SHAPES
SMS = 132


def fixed(source, m, n, k):
    """The example's text with M, N and K fixed (the decode programs)."""
    for old, new in (("e4m3[M, K]", f"e4m3[{m}, {k}]"),
                     ("e4m3[N, K]", f"e4m3[{n}, {k}]"),
                     ("bf16[M, N]", f"bf16[{m}, {n}]")):
        if source.count(old) != 1:
            raise SystemExit(f"{fb.DEFAULT_TILE}: expected '{old}' once; "
                             "the decode program cannot be derived from it")
        source = source.replace(old, new)
    return source


def program(m, n, k, bm, bn, stages, schedule):
    """The example with tile (bm, bn, 128), the stage count and a schedule
    line; M, N, K fixed for M <= 128 (so `schedule auto` sees them)."""
    with open(fb.DEFAULT_TILE) as f:
        source = f.read()
    source = fb.variant(source, bn, stages, schedule)
    if fb.SFA_M_MAJOR:
        source = source.replace("scale a  f32 block(1, 128)",
                                "scale a  f32 block(1, 128) major(M)")
    if bm != 128:
        source = source.replace("BM = 128", f"BM = {bm}")
    return fixed(source, m, n, k) if m <= 128 else source


def waves(tiles):
    """The fraction of the last wave's SMs busy, 1.0 for whole waves."""
    return tiles / (fb.cdiv(tiles, SMS) * SMS)


def candidates(m, n, k):
    """[(name, bm, bn, schedule)] for one shape: the tiles and schedules
    issue 26 asks about."""
    if m > 128 and fb.SFA_M_MAJOR:
        # An M-major SFA: the staged 256 x 128 tile (tilec.gemm's above M =
        # 128 unless its waves are emptier) alone, with 1x2 clusters sharing
        # A (cluster_n), and BN 192 with and without a cluster.
        return [("BM 256 BN 128", 256, 128, ""),
                ("BM 256 BN 128 cluster_n(2)", 256, 128,
                 "schedule cluster_n(2)"),
                ("BM 256 BN 128 persistent", 256, 128, "schedule persistent"),
                ("BM 256 BN 128 persistent cluster_n(2)", 256, 128,
                 "schedule persistent cluster_n(2)"),
                # Direct stores free the 64 KB staging tile: a 4th stage.
                ("BM 256 BN 128 persistent cluster_n(2) direct store", 256,
                 128, "schedule persistent cluster_n(2)\n  epilogue store"),
                ("BN 192", 128, 192, "")]
    if m > 128:
        # BN 192 is fp8_block_bench's program (its promotion waits for its
        # own wgmmas); at BN <= 128 the consumers overlap each block's
        # promotion with the next block's wgmmas (sm90OverlapsPromotion).
        # Runs 1-6 of issue 26 (bench/Fp8BlockResults.md) also timed BM 192
        # and BM 256 tiles and BN 256 in halves: slower than BN 192.
        return [("BN 192", 128, 192, ""),
                ("BN 192 persistent", 128, 192, "schedule persistent"),
                ("BN 128", 128, 128, ""),
                ("BN 128 persistent", 128, 128, "schedule persistent"),
                ("BN 128 persistent cluster(2)", 128, 128,
                 "schedule persistent cluster(2)")]
    # schedule auto on the swap-AB decode tile (BM 64, BN = M), tilec.gemm's
    # program (codegen's sm90ChooseBlockScaledConfig), then A and B as
    # written with one or two 64-row consumer warpgroups and BN the
    # narrowest multiple of 16 whose tiles fit one wave or two, and that
    # tile twice as wide with K split over 2 CTAs (the same CTAs, half the
    # K blocks each).
    out = [("auto, BM 64 BN M", 64, max(16, fb.cdiv(m, 16) * 16), ""),
           ("swap_ab, BM 64 BN M", 64, max(16, fb.cdiv(m, 16) * 16),
            "schedule swap_ab")]
    chosen = _gemm.sm90_block_scaled_choice(m, n, k, SMS)
    split = chosen["split_k"]
    out.append((f"BM {chosen['bm']} BN {chosen['bn']} split_k({split}) "
                "(tilec.gemm's)", chosen["bm"], chosen["bn"],
                f"schedule split_k({split})"))
    # Few K blocks (K <= 2048): the prologue and the epilogue are much of
    # a tile's time, so the chosen tile and one half as wide (two waves)
    # persistent, the next tile's loads under this one's stores.
    if fb.cdiv(k, 128) <= 16:
        for bn in (chosen["bn"], chosen["bn"] // 2):
            if bn >= 16 and bn % 16 == 0:
                out.append((f"BM {chosen['bm']} BN {bn} persistent",
                            chosen["bm"], bn, "schedule persistent"))
    for bm in ((64,) if m <= 64 else (64, 128)):
        rows = fb.cdiv(m, bm)
        for wave in (1, 2):
            bn = next((bn for bn in range(16, 257, 16)
                       if rows * fb.cdiv(n, bn) <= wave * SMS), 256)
            tiles = [(bn, 1)] + ([(2 * bn, 2)] if wave == 1 and bn <= 128
                                 else [])
            for width, ways in tiles:
                if (bm, width, ways) == (chosen["bm"], chosen["bn"], split):
                    continue
                name = f"BM {bm} BN {width} split_k({ways})"
                if all(c[0] != name for c in out):
                    out.append((name, bm, width, f"schedule split_k({ways})"))
    return out


def most_stages(m, n, k, bm, bn, schedule):
    """(Kernel, stages) with the most stages that compile."""
    error = None
    for stages in range(16, 1, -1):
        try:
            return tilec.compile(program(m, n, k, bm, bn, stages,
                                         schedule)), stages
        except tilec.CompileError as e:
            error = e
    raise error


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--iters", type=int, default=10)
    parser.add_argument("--budget-s", type=float, default=500.0)
    parser.add_argument("--min-m", type=int, default=0,
                        help="only the shapes with M at least this")
    parser.add_argument("--max-m", type=int, default=1 << 30,
                        help="only the shapes with M at most this")
    parser.add_argument("--sfa-m-major", action="store_true",
                        help="SFA M-major (strides (1, M)) and the "
                        "`scale a ... major(M)` programs")
    args = parser.parse_args()
    fb.SFA_M_MAJOR = args.sfa_m_major
    gen = torch.Generator(device="cuda").manual_seed(17)
    cublas = fb.cublas_blockwise(gen)
    print(f"cuBLAS: {cublas[0] if cublas else 'none usable'}")
    failures = 0
    print("| M x N x K | variant | us | TFLOP/s | cuBLAS TFLOP/s | ratio |"
          " DeepGEMM goal | / goal | check |")
    print("|---|---|---:|---:|---:|---:|---:|---:|---|")
    for m, n, k in SHAPES:
        if m < args.min_m or m > args.max_m:
            continue
        if time.perf_counter() - _START > args.budget_s:
            print(f"| {m} x {n} x {k} | SKIP: past the budget |")
            continue
        kernels = {}
        for name, bm, bn, schedule in candidates(m, n, k):
            try:
                kernel, stages = most_stages(m, n, k, bm, bn, schedule)
                kernels[f"{name} s{stages}"] = kernel
            except Exception as e:  # noqa: BLE001  (a diagnostic: skip it)
                print(f"{m} x {n} x {k} {name}: does not compile: "
                      f"{str(e).splitlines()[0]}")
        kb, nb = fb.cdiv(k, 128), fb.cdiv(n, 128)
        nbytes = m * k + n * k + 4 * (m * kb + nb * kb) + 2 * m * n
        copies, a, w, sfa, sfb, c = fb.rotated_operands(m, n, k, nbytes, gen)
        a32, w32 = fb.dequantized(a[0], sfa[0], 1), fb.dequantized(
            w[0], sfb[0], 128)
        sides, checks = {}, {}
        for name, kernel in kernels.items():
            c[0].fill_(float("nan"))
            kernel(a[0], w[0], c[0], sfa=sfa[0], sfb=sfb[0])
            torch.cuda.synchronize()
            checks[name] = fb.check(c[0], a32, w32)
            if checks[name][0] or checks[name][1]:
                failures += 1
                continue
            sides[name] = (lambda kern: lambda i: kern(
                a[i], w[i], c[i], sfa=sfa[i], sfb=sfb[i]))(kernel)
        del a32, w32
        if cublas is not None:
            _, fn, torch_scales = cublas
            ts = [torch_scales(sfa[i], sfb[i]) for i in range(copies)]
            sides["cuBLAS"] = lambda i: fn(a[i], w[i], *ts[i])
        times = fb.time_sides(sides, copies, args)
        ref = fb.tflops(m, n, k, times["cuBLAS"]) if "cuBLAS" in times \
            else float("nan")
        for name in kernels:
            if name not in times:
                print(f"| {m} x {n} x {k} | {name} | - | - | {ref:.0f} | - |"
                      f" {fb.verdict(checks[name])} |")
                continue
            t = fb.tflops(m, n, k, times[name])
            goal = fb.DEEPGEMM_H100_GOAL.get((m, n, k))
            print(f"| {m} x {n} x {k} | {name} | {times[name]:.2f} | {t:.0f}"
                  f" | {ref:.0f} | {t / ref:.2f}x | {goal or '-'} | "
                  + (f"{t / goal:.2f}" if goal else "-") +
                  f" | {fb.verdict(checks[name])} |", flush=True)
        del a, w, sfa, sfb, c, sides
        torch.cuda.empty_cache()
    print(f"\nfp8_block_sweep: {time.perf_counter() - _START:.1f} s, "
          f"{failures} failures")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
