"""Python launch benchmark (scripts/gpu-python.sh runs it on the H200).

1. Host cost per launch from Python, eager: the wall time of issuing 200
   launches without waiting for the GPU (a queue of 200 never fills), median
   of 25 samples, for Kernel(a, b, c), tilec.gemm and torch.matmul(out=) on
   the decode shape M=64, N=2112, K=7168 bf16; and beside them, measured
   in the same run the same way, the C API's prepared launch alone
   (tilec_launch called from C by bench/capi_launch_bench.c, --capi-bench)
   on the same program and library.
2. Decode shapes end to end: GPU time per GEMM from CUDA events, eager (50
   launches a sample) and from CUDA graphs (20 launches captured, replayed),
   tilec and torch.matmul alternating sample by sample, medians of 15.
3. Compile time of every example from a fresh process: first (empty disk
   cache) and cached (a second fresh process, same cache), median of 3.
"""
import argparse
import glob
import os
import statistics
import subprocess
import sys
import tempfile
import time

import torch

import tilec
from tilec import _gemm

DECODE = [(64, 2112, 7168), (64, 7168, 2048), (128, 4096, 4096),
          (64, 24576, 1536)]


def host_cost(fn, calls=200, samples=25):
    per = []
    for _ in range(samples):
        torch.cuda.synchronize()
        t0 = time.perf_counter()
        for _ in range(calls):
            fn()
        per.append((time.perf_counter() - t0) / calls * 1e6)
        torch.cuda.synchronize()
    return statistics.median(per)


def gpu_time(fn, reps):
    start = torch.cuda.Event(enable_timing=True)
    end = torch.cuda.Event(enable_timing=True)
    start.record()
    for _ in range(reps):
        fn()
    end.record()
    end.synchronize()
    return start.elapsed_time(end) * 1e3 / reps


def graph_of(fn, launches=20):
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        fn()  # warm up outside capture (cuBLAS workspace, tilec module)
    torch.cuda.current_stream().wait_stream(side)
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        for _ in range(launches):
            fn()
    return graph, launches


def alternate(fns, reps, samples=15):
    times = {name: [] for name in fns}
    for _ in range(samples):
        for name, fn in fns.items():
            times[name].append(gpu_time(fn, reps))
    return {name: statistics.median(t) for name, t in times.items()}


def operands(m, n, k):
    a = torch.randn(m, k, device="cuda").bfloat16()
    w = torch.randn(n, k, device="cuda").bfloat16()
    return a, w, torch.empty(m, n, device="cuda", dtype=torch.bfloat16)


def launch_section(capi_bench):
    m, n, k = DECODE[0]
    a, w, c = operands(m, n, k)
    sms = torch.cuda.get_device_properties(0).multi_processor_count
    arch = _gemm.arch_of(torch.cuda.get_device_capability())
    kernel = _gemm.kernel_for(arch, "bf16", "bf16", "K", "K", m, n, k, sms)
    b = w.t()
    kernel(a, w, c)
    tilec.gemm(a, b, out=c)
    torch.matmul(a, b, out=c)
    rows = [("Kernel(a, w, c)", lambda: kernel(a, w, c)),
            ("tilec.gemm(a, w.t(), out=c)", lambda: tilec.gemm(a, b, out=c)),
            ("torch.matmul(a, w.t(), out=c)",
             lambda: torch.matmul(a, b, out=c))]
    print(f"## Host cost per launch, eager, M={m} N={n} K={k} bf16 "
          "(microseconds, median of 25 x 200 launches)")
    for name, fn in rows:
        print(f"  {name:34s} {host_cost(fn):7.2f} us")
    # Where a Kernel call's time goes: the checks of a first call (Python),
    # and the C API's launch with the arguments already built (C, driver).
    args, _, index = kernel._args(a, w, c, 1.0, 0.0, {})
    launcher = kernel._launcher(index)
    from tilec import _launch
    from tilec._lib import lib
    stream = _launch._current_stream(index)
    print(f"  {'  of which: checks (slow path)':34s} "
          f"{host_cost(lambda: kernel.check(a, w, c)):7.2f} us")
    print(f"  {'  of which: tilec_launch (C)':34s} "
          f"{host_cost(lambda: lib.tilec_launch(launcher, args, stream)):7.2f}"
          " us")
    print(f"  {'  of which: torch current stream':34s} "
          f"{host_cost(lambda: _launch._current_stream(index)):7.2f} us")
    print(f"  {'C: tilec_launch, prepared':34s} "
          f"{capi_launch_cost(capi_bench, arch, sms, m, n, k)}")
    print(f"  tilec kernel: {kernel!r}")


def capi_launch_cost(capi_bench, arch, sms, m, n, k):
    """bench/capi_launch_bench.c's median host time per tilec_launch of
    the program Kernel runs above, on the library Python loaded."""
    if not capi_bench:
        return "    (not run: no --capi-bench)"
    from tilec._lib import lib
    source, _ = _gemm.program_source(arch, "bf16", "bf16", "K", "K", m, n,
                                     k, sms)
    with tempfile.NamedTemporaryFile("w", suffix=".tile") as f:
        f.write(source)
        f.flush()
        run = subprocess.run([capi_bench, lib._name, f.name, str(m), str(n),
                              str(k)], capture_output=True, text=True)
    if run.returncode != 0:
        raise RuntimeError(f"{capi_bench} failed: {run.stderr}")
    us = float(run.stdout.split(": ")[-1].split()[0])
    return f"{us:7.2f} us   ({run.stdout.strip()})"


def decode_section():
    print("\n## Decode shapes end to end, bf16, GPU time per GEMM "
          "(microseconds; medians of 15 alternating samples)")
    print(f"  {'M x N x K':22s} {'tilec eager':>12s} {'torch eager':>12s} "
          f"{'tilec graph':>12s} {'torch graph':>12s}  program")
    for m, n, k in DECODE:
        a, w, c = operands(m, n, k)
        b = w.t()
        ref = torch.matmul(a.float(), b.float())
        c.fill_(float("nan"))
        tilec.gemm(a, b, out=c)
        torch.cuda.synchronize()
        err = ((c.float() - ref).abs() / (ref.abs() + 1)).max().item()
        assert err < 2.0 ** -6, f"tilec.gemm wrong at {m}x{n}x{k}: {err}"
        c2 = torch.empty_like(c)
        eager = alternate({"tilec": lambda: tilec.gemm(a, b, out=c),
                           "torch": lambda: torch.matmul(a, b, out=c2)}, 50)
        tg, tl = graph_of(lambda: tilec.gemm(a, b, out=c))
        pg, pl = graph_of(lambda: torch.matmul(a, b, out=c2))
        graphs = alternate({"tilec": lambda: tg.replay(),
                            "torch": lambda: pg.replay()}, 5)
        ch = _gemm.sm90_choice(m, n, k)
        print(f"  {m:5d} x {n:5d} x {k:5d} {eager['tilec']:12.2f} "
              f"{eager['torch']:12.2f} {graphs['tilec'] / tl:12.2f} "
              f"{graphs['torch'] / pl:12.2f}  BM {ch['bm']} BN {ch['bn']} "
              f"stages {ch['stages']} swap_ab {ch['swap_ab']} "
              f"split_k {ch['split_k']}")


_COMPILE = ("import time; t0 = time.perf_counter(); import tilec; "
            "t1 = time.perf_counter(); tilec.compile({path!r}); "
            "t2 = time.perf_counter(); print(t1 - t0, t2 - t1)")


def compile_section(examples):
    print("\n## Compile time from a fresh process (ms; median of 3; import "
          "tilec not included)")
    print(f"  {'example':34s} {'first':>9s} {'cached':>9s} {'import':>9s}")
    env = dict(os.environ)
    env.pop("TILEC_NO_DISK_CACHE", None)
    for path in sorted(glob.glob(os.path.join(examples, "*.tile"))):
        first, cached, imports = [], [], []
        for _ in range(3):
            with tempfile.TemporaryDirectory() as cache:
                env["TILEC_CACHE_DIR"] = cache
                for out in (first, cached):
                    run = subprocess.run(
                        [sys.executable, "-c", _COMPILE.format(path=path)],
                        env=env, capture_output=True, text=True, check=True)
                    imp, comp = map(float, run.stdout.split())
                    out.append(comp * 1e3)
                    imports.append(imp * 1e3)
        print(f"  {os.path.basename(path):34s} "
              f"{statistics.median(first):9.1f} "
              f"{statistics.median(cached):9.2f} "
              f"{statistics.median(imports):9.1f}")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--examples", default=os.path.join(
        os.path.dirname(__file__), "..", "examples"))
    parser.add_argument("--capi-bench", help="bench/capi_launch_bench.c, "
                        "built (scripts/gpu-build.sh python)")
    args = parser.parse_args()
    print(torch.cuda.get_device_name(), "torch", torch.__version__,
          "tilec from", os.path.dirname(tilec.__file__))
    launch_section(args.capi_bench)
    decode_section()
    compile_section(args.examples)


if __name__ == "__main__":
    main()
