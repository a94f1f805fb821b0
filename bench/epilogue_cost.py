"""What each fused epilogue op costs over the bare GEMM (issue 15), on the
H200, for a compute-bound shape (4096^3 by default) where the epilogue runs
once per output tile between two mainloops.

The program is tilec.gemm's for the shape (bench/epilogue_bench.py's
program()), bare and with each op chain of CHAINS: the math alone (relu,
gelu_tanh), a column operand (bias(col), scale(col): one value per column,
loaded by each consumer thread for its columns), a row operand (bias(row):
two values per thread, loaded when the tile starts), and the chains of the
benchmark. Each fused kernel's output is checked first against an fp32
reference on fresh data with C poisoned; then all sides are timed in one
process (bench/torch_timing.py: CUDA graphs of 10 launches, operand copies
rotated past the L2, sides alternating round by round, medians of the
rounds' medians). Printed: us per GEMM and the cost over bare in us and %.
Run by scripts/gpu-python.sh with EPILOGUE_COST=1|only.
"""
import argparse
import math
import os
import sys
import time

_START = time.perf_counter()
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

def gelu_tanh(y):
    import torch
    return torch.nn.functional.gelu(y, approximate="tanh")


# op chain -> the same ops in torch on y = A W^T (bias: [N] or [M] vector,
# scale: f32 [N]).
CHAINS = {
    "relu": lambda y, col, row, scale: y.relu(),
    "gelu_tanh": lambda y, col, row, scale: gelu_tanh(y),
    "bias(col)": lambda y, col, row, scale: y + col,
    "scale(col)": lambda y, col, row, scale: y * scale,
    "bias(row)": lambda y, col, row, scale: y + row[:, None],
    "bias(col) relu": lambda y, col, row, scale: (y + col).relu(),
    "bias(row) relu": lambda y, col, row, scale: (y + row[:, None]).relu(),
    "bias(col) gelu_tanh": lambda y, col, row, scale: gelu_tanh(y + col),
}


def launch(kernel, ops, a, w, c, col, row, scale):
    kwargs = {}
    if "bias(col)" in ops:
        kwargs["bias"] = col
    if "bias(row)" in ops:
        kwargs["bias"] = row
    if "scale(col)" in ops:
        kwargs["scale"] = scale
    return kernel(a, w, c, **kwargs)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--shape", default="4096x4096x4096")
    parser.add_argument("--rounds", type=int, default=15)
    parser.add_argument("--iters", type=int, default=30)
    parser.add_argument("--budget-s", type=float, default=300.0)
    args = parser.parse_args()
    import torch
    import tilec
    import epilogue_bench as eb
    from torch_timing import time_sides
    m, n, k = (int(x) for x in args.shape.split("x"))
    sms = torch.cuda.get_device_properties(0).multi_processor_count
    per_copy = (m * k + n * k + m * n) * 2
    copies = max(2, min(64, math.ceil((256 << 20) / per_copy)))
    a, w, _, c = eb.operands(m, n, k, copies)
    col = [torch.randn(n, device="cuda").to(torch.bfloat16)
           for _ in range(copies)]
    row = [torch.randn(m, device="cuda").to(torch.bfloat16)
           for _ in range(copies)]
    scale = [torch.rand(n, device="cuda") + 0.5 for _ in range(copies)]
    bare = tilec.compile(eb.program(m, n, k, "", sms))
    sides = {"bare": lambda i: bare(a[i], w[i], c[i])}
    failures = 0
    checks = {}
    for ops, ref in CHAINS.items():
        kernel = tilec.compile(eb.program(m, n, k, ops, sms))
        ta = torch.randn(m, k, device="cuda").to(torch.bfloat16)
        tw = (torch.randn(n, k, device="cuda") / math.sqrt(k)).to(
            torch.bfloat16)
        tc = torch.full((m, n), float("nan"), device="cuda",
                        dtype=torch.bfloat16)
        launch(kernel, ops, ta, tw, tc, col[0], row[0], scale[0])
        torch.cuda.synchronize()
        want = ref(ta.float() @ tw.float().t(), col[0].float(),
                   row[0].float(), scale[0])
        rel = ((tc.float() - want).abs().max() /
               want.abs().max().clamp_min(1e-30)).item()
        nans = int(tc.isnan().sum())
        ok = rel < 1e-2 and nans == 0
        checks[ops] = f"{'PASS' if ok else 'FAIL'}: rel err {rel:.1e}, NaN {nans}"
        if not ok:
            failures += 1
            continue
        sides[ops] = (lambda kern, o: lambda i: launch(
            kern, o, a[i], w[i], c[i], col[i], row[i], scale[i]))(kernel, ops)
    t = time_sides(sides, copies, args.rounds, args.iters)
    print(f"{m} x {n} x {k}, bf16, {sms} SMs; us per GEMM, median of round "
          "medians, CUDA graphs, sides alternating")
    print("| ops | us | over bare us | over bare % | check |")
    print("|---|---:|---:|---:|---|")
    print(f"| (bare) | {t['bare']:.2f} | - | - | - |")
    for ops in CHAINS:
        if ops not in t:
            print(f"| {ops} | - | - | - | {checks[ops]} |")
            continue
        over = t[ops] - t["bare"]
        print(f"| {ops} | {t[ops]:.2f} | {over:+.2f} | "
              f"{100 * over / t['bare']:+.1f}% | {checks[ops]} |")
    print(f"\nepilogue_cost: {time.perf_counter() - _START:.1f} s, "
          f"{failures} failures")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
