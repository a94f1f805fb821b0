"""Which block-scaled fp8 program is fastest (issue 13): variants of
examples/gemm_fp8_block_sm90.tile (tile N, stages, schedule) against
cuBLAS blockwise on a few shapes, in one process on the H200, by the method
and helpers of bench/fp8_block_bench.py (every variant's output checked on
fresh data first; CUDA graphs on every side; sides alternating; medians).
Run by scripts/gpu-python.sh with FP8_SWEEP=only.

A variant that does not compile (shared memory, registers) prints why and
is skipped; one whose check fails is reported and not timed.
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

SHAPES = [(4096, 4096, 4096), (4096, 7168, 16384), (4096, 2112, 7168),
          (4096, 7168, 2048), (128, 7168, 16384), (64, 2112, 7168)]
# (BN, stages, schedule line); stages: the most that fit 227 KiB with a
# 128 x BN bf16 staging tile. BN = 256 is left out: its two 128-register
# accumulators spill (760 bytes at 168 registers a thread).
VARIANTS = [(128, 5, ""), (128, 5, "schedule persistent"),
            (128, 5, "schedule persistent cluster(2)"),
            (160, 4, ""), (160, 4, "schedule persistent"),
            (192, 4, ""), (192, 4, "schedule persistent"),
            (192, 4, "schedule persistent cluster(2)")]


def program(bn, stages, schedule):
    with open(fb.DEFAULT_TILE) as f:
        return fb.variant(f.read(), bn, stages, schedule)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--iters", type=int, default=10)
    parser.add_argument("--budget-s", type=float, default=230.0)
    args = parser.parse_args()
    gen = torch.Generator(device="cuda").manual_seed(17)
    cublas = fb.cublas_blockwise(gen)
    print(f"cuBLAS: {cublas[0] if cublas else 'none usable'}")
    kernels = {}
    for bn, stages, schedule in VARIANTS:
        name = f"BN {bn} s{stages} {schedule or 'grid'}"
        try:
            kernels[name] = tilec.compile(program(bn, stages, schedule))
        except Exception as e:  # noqa: BLE001  (a diagnostic: skip it)
            print(f"{name}: does not compile: {str(e).splitlines()[0]}")
    failures = 0
    print("| M x N x K | variant | us | TFLOP/s | cuBLAS TFLOP/s | ratio |"
          " check |")
    print("|---|---|---:|---:|---:|---:|---|")
    for m, n, k in SHAPES:
        if time.perf_counter() - _START > args.budget_s:
            print(f"| {m} x {n} x {k} | SKIP: past the budget |")
            continue
        kb, nb = fb.cdiv(k, 128), fb.cdiv(n, 128)
        nbytes = m * k + n * k + 4 * (m * kb + nb * kb) + 2 * m * n
        copies = max(2, min(64, fb.cdiv(fb.ROTATE_BYTES, nbytes)))
        a = [fb.quantized(m, k, gen) for _ in range(copies)]
        w = [fb.quantized(n, k, gen) for _ in range(copies)]
        sfa = [fb.scales((m, kb), gen) for _ in range(copies)]
        sfb = [fb.scales((nb, kb), gen) for _ in range(copies)]
        c = [torch.empty(m, n, device="cuda", dtype=torch.bfloat16)
             for _ in range(copies)]
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
            print(f"| {m} x {n} x {k} | {name} | {times[name]:.2f} | {t:.0f}"
                  f" | {ref:.0f} | {t / ref:.2f}x |"
                  f" {fb.verdict(checks[name])} |")
        del a, w, sfa, sfb, c, sides
        torch.cuda.empty_cache()
    print(f"\nfp8_block_sweep: {time.perf_counter() - _START:.1f} s, "
          f"{failures} failures")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
