#!/usr/bin/env python3
"""cuBLAS (through torch.matmul) on the shapes of bench/Sm90GemmBench.cpp.

Same method as the tilec benchmark: bf16 A (M x K) and B (N x K), C = A B^T,
operand copies rotated so the set exceeds the L2, warm-up, median over samples
of 10 back-to-back launches between two events. The 10 launches are one
captured CUDA graph, replayed: issuing torch.matmul from Python takes longer
than a decode-shaped GEMM runs, so launches issued one by one would time the
host (run 4 of bench/Sm90GemmResults.md saw 18.1 us for M = 64, N = 2112,
where cublasGemmEx in the tilec process ran 14.6). One line per shape:
  cublas M N K median_us TFLOP/s floor_fraction
"""
import sys
import time
import torch

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
        # Warm-up: at least 20 launches and 50 ms busy (clocks ramp up).
        begin = time.perf_counter()
        i = 0
        while i < 20 or time.perf_counter() - begin < 0.05:
            torch.matmul(a[i % copies], b[i % copies].t())
            i += 1
            if i % 16 == 0:
                torch.cuda.synchronize()
        torch.cuda.synchronize()
        batch = 10
        c = [torch.empty(m, n, device="cuda", dtype=torch.bfloat16)
             for _ in range(copies)]
        graph = torch.cuda.CUDAGraph()
        stream = torch.cuda.Stream()
        stream.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(stream):
            for j in range(batch):  # cuBLAS picks and allocates outside capture
                torch.matmul(a[j % copies], b[j % copies].t(), out=c[j % copies])
            with torch.cuda.graph(graph, stream=stream):
                for j in range(batch):
                    torch.matmul(a[j % copies], b[j % copies].t(),
                                 out=c[j % copies])
        torch.cuda.current_stream().wait_stream(stream)
        for _ in range(3):
            graph.replay()
        torch.cuda.synchronize()
        times = []
        for i in range(iters):
            start = torch.cuda.Event(enable_timing=True)
            stop = torch.cuda.Event(enable_timing=True)
            graph.replay()  # untimed: keeps the GPU ahead
            start.record()
            graph.replay()
            stop.record()
            stop.synchronize()
            times.append(start.elapsed_time(stop) / batch)
        times.sort()
        us = times[len(times) // 2] * 1e3
        floor_us = size / 4.8e12 * 1e6
        print(f"cublas {m:5d} {n:5d} {k:5d} {'torch.matmul_graph':26s} {us:9.2f} us "
              f"{2.0 * m * n * k / us * 1e-6:7.1f} TFLOP/s  "
              f"floor {100.0 * floor_us / us:4.0f}%", flush=True)
        del a, b, c, graph
        torch.cuda.empty_cache()


if __name__ == "__main__":
    main()
