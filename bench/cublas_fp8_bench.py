#!/usr/bin/env python3
"""cuBLAS fp8 (through torch._scaled_mm) on the shapes of bench/Sm90FP8Bench.cpp.

Same method as the tilec benchmark: e4m3 A (M x K) and B (N x K), bf16
C = A B^T, operand copies rotated so the set exceeds the L2, warm-up of at
least 20 launches and 50 ms, median over samples of 10 back-to-back launches
between two events, replayed from a CUDA graph (torch_timing.py). Scales: per-tensor (scalar
1.0 for A and B; also with use_fast_accum, which accumulates in the tensor
core's own precision as tilec's kernel does) and, where this PyTorch
supports it, row-wise (M x 1 and 1 x N tensors of 1.0). One line per (shape, scaling):
  cublas M N K scaling median_us TFLOP/s floor_fraction
"""
import sys

import torch

from torch_timing import time_graph

SHAPES = [(4096, 4096, 4096), (8192, 8192, 8192)]


def main():
    iters = int(sys.argv[1]) if len(sys.argv) > 1 else 50
    print(f"# torch {torch.__version__}, {torch.cuda.get_device_name()}")
    for m, n, k in SHAPES:
        size = m * k + n * k + m * n * 2
        copies = min(8, max(1, (256 << 20) // size + 1))
        a = [(torch.rand(m, k, device="cuda") * 2 - 1).to(torch.float8_e4m3fn)
             for _ in range(copies)]
        b = [(torch.rand(n, k, device="cuda") * 2 - 1).to(torch.float8_e4m3fn)
             for _ in range(copies)]
        one = torch.tensor(1.0, device="cuda")
        rows = torch.ones(m, 1, device="cuda")
        cols = torch.ones(1, n, device="cuda")
        variants = [
            ("scaled_mm_tensorwise",
             lambda i: torch._scaled_mm(a[i], b[i].t(), one, one,
                                        out_dtype=torch.bfloat16)),
            ("scaled_mm_tensorwise_fastacc",
             lambda i: torch._scaled_mm(a[i], b[i].t(), one, one,
                                        out_dtype=torch.bfloat16,
                                        use_fast_accum=True)),
            ("scaled_mm_rowwise",
             lambda i: torch._scaled_mm(a[i], b[i].t(), rows, cols,
                                        out_dtype=torch.bfloat16)),
        ]
        for name, fn in variants:
            try:
                fn(0)
                torch.cuda.synchronize()
            except Exception as e:  # not supported by this build
                print(f"# {name} {m}x{n}x{k} unsupported: {e}".splitlines()[0])
                continue
            us = time_graph(fn, copies, iters)
            floor_us = size / 4.8e12 * 1e6
            print(f"cublas {m:5d} {n:5d} {k:5d} {name:26s} {us:9.2f} us "
                  f"{2.0 * m * n * k / us * 1e-6:7.1f} TFLOP/s  "
                  f"floor {100.0 * floor_us / us:4.0f}%", flush=True)
        del a, b
        torch.cuda.empty_cache()


if __name__ == "__main__":
    main()
