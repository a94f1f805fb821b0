"""Fused-epilogue benchmark (issue 15), run on the H200 by
scripts/gpu-epilogue-bench.sh.

For each shape (bf16, A M x K row-major, W N x K row-major, C = A W^T):
  tilec      the program tilec.gemm picks for the shape (codegen's sm_90a
             heuristic: swap-AB/split-K for decode, persistent 2x1 clusters
             for large shapes), bare;
  tilec+ops  the same program with `epilogue OPS` fused;
  torch      cuBLAS (torch.matmul) followed by the same ops as separate
             torch kernels (y + bias, then the activation);
  cublasLt   torch._addmm_activation: cuBLASLt's own fused bias + GELU
             (tanh approximation) or bias + ReLU epilogue.
Every side runs from CUDA graphs of 10 launches (bench/torch_timing.py), on
rotated copies of the operands (at least 256 MiB of them, so the weights do
not sit in the 50 MiB L2), the sides alternating round by round; the figure
is the median of the rounds' medians, in microseconds.

Before timing, each fused kernel's output is checked against an fp32
reference on fresh random inputs (C poisoned with NaN first).

Goals (issue 15): the fused epilogue costs under 3% over the bare GEMM at
4096^3, and the fused decode layer is at least 1.3x faster than cuBLAS +
separate ops.
"""
import argparse
import math
import os
import sys

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import tilec  # noqa: E402
from tilec import _gemm  # noqa: E402
from torch_timing import time_sides  # noqa: E402

DECODE_NK = [(2112, 7168), (24576, 1536), (7168, 2048), (4096, 7168)]
SHAPES = [(m, n, k) for m in (64, 128) for n, k in DECODE_NK] + [
    (4096, 4096, 4096)]
# (tilec ops, torch ops on y = A W^T, cuBLASLt use_gelu)
CHAINS = {
    "bias(col) gelu_tanh": (
        lambda y, bias: torch.nn.functional.gelu(y + bias, approximate="tanh"),
        True),
    "bias(col) relu": (lambda y, bias: torch.relu(y + bias), False),
}


def program(m, n, k, ops, sms):
    """tilec.gemm's program for the shape, with `epilogue ops` added."""
    source, _ = _gemm.program_source("sm_90a", "bf16", "bf16", "K", "K", m,
                                     n, k, sms)
    if ops:
        source = source.rstrip().rstrip("}") + f"  epilogue {ops}\n}}\n"
    return source


def check(kernel, ops, m, n, k):
    """Max |error| / max |reference| of the fused kernel on fresh data."""
    a = torch.randn(m, k, device="cuda").to(torch.bfloat16)
    w = torch.randn(n, k, device="cuda").to(torch.bfloat16) / math.sqrt(k)
    bias = torch.randn(n, device="cuda").to(torch.bfloat16)
    c = torch.full((m, n), float("nan"), device="cuda", dtype=torch.bfloat16)
    kernel(a, w, c, bias=bias)
    torch.cuda.synchronize()
    y = a.float() @ w.float().t()
    ref = CHAINS[ops][0](y, bias.float())
    err = (c.float() - ref).abs().max().item()
    return err / max(ref.abs().max().item(), 1e-30), int(c.isnan().sum())


def operands(m, n, k, copies):
    a = [torch.randn(m, k, device="cuda").to(torch.bfloat16)
         for _ in range(copies)]
    w = [(torch.randn(n, k, device="cuda") / math.sqrt(k)).to(torch.bfloat16)
         for _ in range(copies)]
    bias = [torch.randn(n, device="cuda").to(torch.bfloat16)
            for _ in range(copies)]
    c = [torch.empty(m, n, device="cuda", dtype=torch.bfloat16)
         for _ in range(copies)]
    return a, w, bias, c


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--iters", type=int, default=30)
    args = parser.parse_args()
    props = torch.cuda.get_device_properties(0)
    sms = props.multi_processor_count
    print(f"device: {props.name}, {sms} SMs; torch {torch.__version__}")
    print("times: us per GEMM (+ ops), median of round medians, CUDA graphs "
          "on every side, sides alternating")
    failures = 0
    header = ("M x N x K", "ops", "tilec", "tilec+ops", "torch sep",
              "cublasLt", "fused/bare", "sep/fused", "Lt/fused", "check")
    print("| " + " | ".join(header) + " |")
    print("|" + "---|" * len(header))
    for m, n, k in SHAPES:
        bare = tilec.compile(program(m, n, k, "", sms))
        per_copy = (m * k + n * k + m * n) * 2
        copies = max(2, min(64, math.ceil((256 << 20) / per_copy)))
        a, w, bias, c = operands(m, n, k, copies)
        for ops, (torch_ops, use_gelu) in CHAINS.items():
            fused = tilec.compile(program(m, n, k, ops, sms))
            rel, nans = check(fused, ops, m, n, k)
            # bf16 output: 8 significant bits, so 2^-8 of the largest value
            # and a few ulps of the math; no NaN of the poison may remain.
            ok = rel < 1e-2 and nans == 0
            failures += not ok
            sides = {
                "tilec": lambda i: bare(a[i], w[i], c[i]),
                "tilec+ops": lambda i: fused(a[i], w[i], c[i], bias=bias[i]),
                "torch sep": lambda i: torch_ops(
                    torch.matmul(a[i], w[i].t()), bias[i]),
                "cublasLt": lambda i: torch._addmm_activation(
                    bias[i], a[i], w[i].t(), use_gelu=use_gelu),
            }
            t = time_sides(sides, copies, args.rounds, args.iters)
            print(f"| {m} x {n} x {k} | {ops} | {t['tilec']:.2f} | "
                  f"{t['tilec+ops']:.2f} | {t['torch sep']:.2f} | "
                  f"{t['cublasLt']:.2f} | {t['tilec+ops'] / t['tilec']:.3f} "
                  f"| {t['torch sep'] / t['tilec+ops']:.2f}x | "
                  f"{t['cublasLt'] / t['tilec+ops']:.2f}x | "
                  f"{'PASS' if ok else 'FAIL'}: rel err {rel:.1e}, NaN {nans} |",
                  flush=True)
        del a, w, bias, c
        torch.cuda.empty_cache()
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
