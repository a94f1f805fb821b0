#!/usr/bin/env python3
"""cuBLAS (through torch.matmul) bf16 GEMM rates, timed as GemmBench times.

C = A @ B^T with A (M, K) and B (N, K) row-major bf16 (the TN GEMM that
GemmBench runs), random inputs, 10 warm-up launches, then the median of 50
launches each between two CUDA events. Prints one RESULT line per shape.

  cublas_bench.py [M N K ...]
"""
import sys

import torch


def main():
    args = [int(x) for x in sys.argv[1:]]
    shapes = [tuple(args[i:i + 3]) for i in range(0, len(args) - 2, 3)]
    if not shapes:
        shapes = [(4096, 4096, 4096), (8192, 8192, 8192), (64, 2112, 7168)]
    print(f"device: {torch.cuda.get_device_name()} torch {torch.__version__}")
    for m, n, k in shapes:
        a = torch.randn(m, k, device="cuda", dtype=torch.bfloat16)
        b = torch.randn(n, k, device="cuda", dtype=torch.bfloat16)
        for _ in range(10):
            torch.matmul(a, b.t())
        times = []
        for _ in range(50):
            start = torch.cuda.Event(enable_timing=True)
            end = torch.cuda.Event(enable_timing=True)
            start.record()
            torch.matmul(a, b.t())
            end.record()
            end.synchronize()
            times.append(start.elapsed_time(end))
        times.sort()
        ms = times[len(times) // 2]
        print(f"RESULT cublas {m}x{n}x{k} torch.matmul {ms:.4f} ms "
              f"{2.0 * m * n * k / (ms * 1e9):.1f} TFLOP/s", flush=True)


if __name__ == "__main__":
    main()
