"""Timing of torch GPU work for the cuBLAS side of the benchmarks.

time_graph(fn, copies, iters): fn(i) enqueues one launch on operand copy i.
Warm-up of at least 20 launches and 50 ms (the clocks ramp up), then batches
of 10 launches (copies rotated) are captured once as a CUDA graph; the result
is the median over `iters` replays of the graph between two events, divided
by 10, in microseconds, each replay behind one untimed replay. batch=B
captures B launches per graph instead (e.g. one whole cycle of the copies,
so that every copy is used: bench/w4a16_bench.py).

time_sides(sides, copies, rounds, iters): {name: fn} timed side by side,
time_graph of each in turn, `rounds` times over (so drifting clocks touch
every side alike); {name: median of its rounds' medians}. Issuing the
launches one by one from Python takes longer than a decode-shaped GEMM runs,
and would time the host instead (bench/Sm90GemmResults.md, session 3).
"""
import math
import statistics
import time

import torch

BATCH = 10
ROTATE_BYTES = 256 << 20


def bf16_operands(m, n, k, gen):
    """(copies, a, w, c, ref) for a bf16 M x N x K product: enough copies of
    a (M x K), w (N x K) and c (M x N) to rotate past 256 MiB, random
    normal a and w, and the fp32 product of copy 0."""
    copies = max(2, min(64, math.ceil(
        ROTATE_BYTES / (2 * (m * k + n * k + m * n)))))
    a = [torch.randn(m, k, device="cuda", generator=gen,
                     dtype=torch.bfloat16) for _ in range(copies)]
    w = [torch.randn(n, k, device="cuda", generator=gen,
                     dtype=torch.bfloat16) for _ in range(copies)]
    c = [torch.empty(m, n, device="cuda", dtype=torch.bfloat16)
         for _ in range(copies)]
    return copies, a, w, c, a[0].float() @ w[0].float().t()


def check_bf16(c, ref):
    """(wrong, max relative error) of c against the fp32 product ref: wrong
    counts non-finite elements, plus 1 if the error is above 1e-2."""
    c = c.float()
    bad = int((~torch.isfinite(c)).sum())
    err = float(((c - ref).abs().max() / ref.abs().max().clamp_min(1e-30)))
    return bad + (1 if err > 1e-2 else 0), err


def time_graph(fn, copies, iters, batch=BATCH):
    begin = time.perf_counter()
    i = 0
    while i < 20 or time.perf_counter() - begin < 0.05:
        fn(i % copies)
        i += 1
        if i % 16 == 0:
            torch.cuda.synchronize()
    torch.cuda.synchronize()
    graph = torch.cuda.CUDAGraph()
    stream = torch.cuda.Stream()
    stream.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(stream):
        for j in range(batch):  # library handles and workspaces exist first
            fn(j % copies)
        with torch.cuda.graph(graph, stream=stream):
            for j in range(batch):
                fn(j % copies)
    torch.cuda.current_stream().wait_stream(stream)
    for _ in range(3):
        graph.replay()
    torch.cuda.synchronize()
    times = []
    for _ in range(iters):
        start = torch.cuda.Event(enable_timing=True)
        stop = torch.cuda.Event(enable_timing=True)
        graph.replay()  # untimed: keeps the GPU ahead
        start.record()
        graph.replay()
        stop.record()
        stop.synchronize()
        times.append(start.elapsed_time(stop) / batch)
    times.sort()
    del graph
    return times[len(times) // 2] * 1e3


def time_sides(sides, copies, rounds, iters):
    samples = {name: [] for name in sides}
    for _ in range(rounds):
        for name, fn in sides.items():
            samples[name].append(time_graph(fn, copies, iters))
    return {name: statistics.median(v) for name, v in samples.items()}
