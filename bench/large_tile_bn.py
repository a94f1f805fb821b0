"""The large-M bf16 tile width (codegen's largeTileN): tilec.gemm's program
for each shape, the same program with BN 256 (the rule before it), and
cuBLAS (torch.matmul), side by side in one process by torch_timing's
method (each side checked against the fp32 product first; CUDA graphs of
10 launches over operand copies rotated past the L2; sides alternating;
medians). Run on the device machine after installing the wheel:
    python3 bench/large_tile_bn.py --shapes 4096x2112x7168,8192x2112x7168
"""
import argparse
import os
import re
import sys

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import tilec  # noqa: E402
from tilec import _gemm  # noqa: E402
from torch_timing import bf16_operands, check_bf16, time_sides  # noqa: E402,E501


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--shapes", default="4096x2112x7168,8192x2112x7168,"
                        "2048x2112x7168,4096x2112x4096,4096x4096x4096")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--iters", type=int, default=10)
    parser.add_argument("--budget-s", type=float, default=0,
                        help="ignored (scripts/gpu-python.sh passes it)")
    args = parser.parse_args()
    sms = torch.cuda.get_device_properties(0).multi_processor_count
    gen = torch.Generator(device="cuda").manual_seed(5)
    print("| M x N x K | rule's BN | rule us | BN 256 us | cuBLAS us |"
          " rule / BN 256 | rule vs cuBLAS | check |")
    print("|---|---:|---:|---:|---:|---:|---:|---|")
    failures = 0
    for text in args.shapes.split(","):
        m, n, k = (int(x) for x in text.split("x"))
        source, _ = _gemm.program_source("sm_90a", "bf16", "bf16", "K", "K",
                                         m, n, k, sms)
        bn = int(re.search(r"BN = (\d+)", source).group(1))
        wide = re.sub(r"BN = \d+", "BN = 256", source)
        wide = re.sub(r"wgmma\.m64n\d+k16", "wgmma.m64n256k16", wide)
        kernels = {"rule": tilec.compile(source), "bn256": tilec.compile(wide)}
        copies, a, w, c, ref = bf16_operands(m, n, k, gen)
        verdict = []
        for name, kern in kernels.items():
            c[0].fill_(float("nan"))
            kern(a[0], w[0], c[0])
            torch.cuda.synchronize()
            wrong, err = check_bf16(c[0], ref)
            failures += 1 if wrong else 0
            verdict.append(f"{name} {'PASS' if not wrong else 'FAIL'} "
                           f"{err:.1e}")
        sides = {name: (lambda kern: lambda i: kern(a[i], w[i], c[i]))(kern)
                 for name, kern in kernels.items()}
        sides["cuBLAS"] = lambda i: torch.matmul(a[i], w[i].t(), out=c[i])
        t = time_sides(sides, copies, args.rounds, args.iters)
        print(f"| {m} x {n} x {k} | {bn} | {t['rule']:.1f} | {t['bn256']:.1f}"
              f" | {t['cuBLAS']:.1f} | {t['rule'] / t['bn256']:.2f} |"
              f" {t['cuBLAS'] / t['rule']:.2f}x | {'; '.join(verdict)} |",
              flush=True)
        del a, w, c, ref, sides
        torch.cuda.empty_cache()
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
