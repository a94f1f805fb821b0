#!/usr/bin/env python3
"""cuBLAS (through torch.matmul) on the shapes of bench/Sm90GemmBench.cpp.

Same method as the tilec benchmark: bf16 A (M x K) and B (N x K), C = A B^T,
operand copies rotated so the set exceeds the L2, warm-up, median over samples
of 10 back-to-back launches between two events, replayed from a CUDA graph
(torch_timing.py says why). One line per shape:
  cublas M N K median_us TFLOP/s floor_fraction
"""
import sys

import torch

from torch_timing import time_graph

SHAPES = [(4096, 4096, 4096), (8192, 8192, 8192),
          (64, 2112, 7168), (64, 24576, 1536), (64, 7168, 2048),
          (64, 4096, 7168), (128, 2112, 7168), (128, 24576, 1536),
          (128, 7168, 2048), (128, 4096, 7168)]


def main():
    iters = int(sys.argv[1]) if len(sys.argv) > 1 else 50
    for m, n, k in SHAPES:
        size = (m * k + n * k + m * n) * 2
        copies = min(8, max(1, (256 << 20) // size + 1))
        a = [torch.rand(m, k, device="cuda", dtype=torch.bfloat16) * 2 - 1
             for _ in range(copies)]
        b = [torch.rand(n, k, device="cuda", dtype=torch.bfloat16) * 2 - 1
             for _ in range(copies)]
        c = [torch.empty(m, n, device="cuda", dtype=torch.bfloat16)
             for _ in range(copies)]
        us = time_graph(
            lambda i: torch.matmul(a[i], b[i].t(), out=c[i]), copies, iters)
        floor_us = size / 4.8e12 * 1e6
        print(f"cublas {m:5d} {n:5d} {k:5d} {'torch.matmul_graph':26s} {us:9.2f} us "
              f"{2.0 * m * n * k / us * 1e-6:7.1f} TFLOP/s  "
              f"floor {100.0 * floor_us / us:4.0f}%", flush=True)
        del a, b, c
        torch.cuda.empty_cache()


if __name__ == "__main__":
    main()
