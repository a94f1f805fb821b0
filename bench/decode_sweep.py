"""Which bf16 sm_90a program is fastest on the decode shapes (issue 15):
tile, schedule (swap-AB or not, K splits, persistence, 2x1 clusters) and
ring depth, bare and with `epilogue bias(col) gelu_tanh`, against cuBLAS
(torch.matmul) and cuBLAS + the ops as separate torch kernels, in one
process on the H200 by epilogue_bench.py's method (every variant's fused
output checked on fresh data with C poisoned first; CUDA graphs of 10
launches on every side over operand copies rotated past the L2; sides
alternating round by round; medians of the rounds' medians, us per GEMM).
Run by scripts/gpu-python.sh with DECODE_SWEEP=only.

The variants (variants()):
  swap  BM x BN = W rows x M (the heuristic's orientation): BM 64 or 128,
        K split 1, 2, 3, 4, 6, 8 (at least 4 K tiles a split; up to 8 the
        splits of a tile reduce in one cluster), persistent where the tiles
        outnumber the SMs, and unsplit 2x1 clusters multicasting A's rows
        (split_k does not combine with cluster(2));
  rows  BM x BN = M x W rows (no swap): BN 64 .. 256, K splits while the
        tiles leave SMs idle;
and BK 32 (twice the ring slots) for the one-wave swap 64-row and rows
64- and 192-column tiles.
Each takes the deepest ring that compiles (16 stages down). A variant that
does not compile prints why and is skipped; one whose check fails is
reported and not timed. `--list` prints the programs without a GPU.
"""
import time

_START = time.perf_counter()

import argparse  # noqa: E402
import os  # noqa: E402
import re  # noqa: E402
import sys  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

DECODE_NK = [(2112, 7168), (24576, 1536), (7168, 2048), (4096, 7168)]
SHAPES = [(m, n, k) for m in (64, 128) for n, k in DECODE_NK]
OPS = "bias(col) gelu_tanh"
SMS = 132


def cdiv(a, b):
    return (a + b - 1) // b


def source(name, m, bm, bn, stages, schedule, ops="", bk=64):
    """A bf16 C = A W^T program: BM x BN the kernel's tile (under swap_ab
    BM tiles W's rows)."""
    lines = ["  arch     sm_90a",
             "  a        : bf16[M, K] major(K)",
             "  b        : bf16[N, K] major(K)",
             "  c        : bf16[M, N] major(N)",
             "  acc      f32",
             f"  tile     (BM = {bm}, BN = {bn}, BK = {bk})",
             f"  stages   {stages}",
             f"  mma      wgmma.m64n{bn}k16 warpgroups({bm // 64})"]
    if schedule:
        lines.append(f"  schedule {schedule}")
    if ops:
        lines.append(f"  epilogue {ops}")
    return "kernel %s {\n%s\n}\n" % (name, "\n".join(lines))


def variants(m, n, k, sms=SMS):
    """(label, bm, bn, schedule, bk) candidates for one decode shape."""
    k_tiles = cdiv(k, 64)
    out = []
    bn_x = cdiv(m, 16) * 16
    for bm in (64, 128):
        tiles = cdiv(n, bm)
        for splits in (1, 2, 3, 4, 6, 8):
            if k_tiles // splits < 4 or tiles * splits > 3 * sms:
                continue
            words = ["swap_ab"] + ([f"split_k({splits})"] if splits > 1
                                   else [])
            out.append((f"swap {bm}x{bn_x} k{splits}", bm, bn_x,
                        " ".join(words), 64))
            if splits == 1:
                out.append((f"swap {bm}x{bn_x} k{splits} cl2", bm, bn_x,
                            " ".join(words + ["cluster(2)"]), 64))
            if bm == 64 and splits <= 3 and tiles * splits <= sms:
                # BK 32: twice the ring slots in the same bytes, so more
                # of them stay in flight while the consumer holds two.
                out.append((f"swap {bm}x{bn_x} k{splits} bk32", bm, bn_x,
                            " ".join(words), 32))
        if tiles > sms:
            out.append((f"swap {bm}x{bn_x} pers", bm, bn_x,
                        "swap_ab persistent", 64))
            out.append((f"swap {bm}x{bn_x} pers cl2", bm, bn_x,
                        "swap_ab persistent cluster(2)", 64))
    bm_rows = 64 if m <= 64 else 128
    for bn in (64, 96, 128, 192, 256):
        tiles = cdiv(n, bn)
        for splits in (1, 2, 3, 4):
            if k_tiles // splits < 4 or (splits > 1 and
                                         tiles * splits > 1.5 * sms):
                continue
            words = [f"split_k({splits})"] if splits > 1 else []
            out.append((f"rows {bm_rows}x{bn} k{splits}", bm_rows, bn,
                        " ".join(words), 64))
            if bn in (64, 192) and tiles * splits <= sms:
                out.append((f"rows {bm_rows}x{bn} k{splits} bk32", bm_rows,
                            bn, " ".join(words), 32))
        if tiles > sms:
            out.append((f"rows {bm_rows}x{bn} pers", bm_rows, bn,
                        "persistent", 64))
    return out


def picked(m, n, k, match, sms=SMS):
    """variants(m, n, k) whose 'M x N x K | label' matches `match`."""
    return [v for v in variants(m, n, k, sms)
            if re.search(match, f"{m} x {n} x {k} | {v[0]}")]


def deepest(compile_fn, name, m, bm, bn, schedule, ops, bk=64):
    """(kernel, stages) of the deepest ring that compiles, or (None, why)."""
    why = "no stage count compiles"
    for stages in range(16, 1, -1):
        try:
            return compile_fn(source(name, m, bm, bn, stages, schedule,
                                     ops, bk)), stages
        except Exception as e:  # noqa: BLE001  (a diagnostic: try fewer)
            why = str(e).splitlines()[0]
    return None, why


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--iters", type=int, default=20)
    parser.add_argument("--budget-s", type=float, default=500.0)
    parser.add_argument("--match", default=os.environ.get(
        "DECODE_SWEEP_MATCH", ""), help="only the variants whose 'M x N x K"
        " | label' matches this regular expression (default: all; also "
        "$DECODE_SWEEP_MATCH)")
    parser.add_argument("--list", action="store_true",
                        help="print the variants and compile them; no GPU")
    args = parser.parse_args()
    import tilec
    if args.list:
        for m, n, k in SHAPES:
            for label, bm, bn, schedule, bk in picked(m, n, k, args.match):
                _, stages = deepest(tilec.compile, "v", m, bm, bn, schedule,
                                    OPS, bk)
                print(f"{m} x {n} x {k} | {label} | {schedule} | {stages}")
        return 0
    import math
    import torch
    import epilogue_bench as eb
    from torch_timing import time_sides
    sms = torch.cuda.get_device_properties(0).multi_processor_count
    gelu = eb.CHAINS[OPS][0]
    failures = 0
    print("| M x N x K | variant | schedule | stages | bare us | fused us |"
          " cuBLAS us | sep us | sep / fused | check |")
    print("|---|---|---|---:|---:|---:|---:|---:|---:|---|")
    for m, n, k in SHAPES:
        chosen = picked(m, n, k, args.match, sms)
        if not chosen:
            continue
        if time.perf_counter() - _START > args.budget_s:
            print(f"| {m} x {n} x {k} | SKIP: past the budget |")
            continue
        per_copy = (m * k + n * k + m * n) * 2
        copies = max(2, min(64, math.ceil((256 << 20) / per_copy)))
        a, w, bias, c = eb.operands(m, n, k, copies)
        sides, rows = {
            "cuBLAS": lambda i: torch.matmul(a[i], w[i].t()),
            "sep": lambda i: gelu(torch.matmul(a[i], w[i].t()), bias[i]),
        }, []
        for label, bm, bn, schedule, bk in chosen:
            fused, stages = deepest(tilec.compile, "v", m, bm, bn, schedule,
                                    OPS, bk)
            if fused is None:
                print(f"| {m} x {n} x {k} | {label} | {schedule} | - |"
                      f" does not compile: {stages} |")
                continue
            bare = tilec.compile(source("v", m, bm, bn, stages, schedule,
                                        bk=bk))
            rel, nans = eb.check(fused, OPS, m, n, k)
            ok = rel < 1e-2 and nans == 0
            rows.append((label, schedule, stages, ok, rel, nans))
            if not ok:
                failures += 1
                continue
            sides[label + " bare"] = (lambda kern: lambda i: kern(
                a[i], w[i], c[i]))(bare)
            sides[label + " fused"] = (lambda kern: lambda i: kern(
                a[i], w[i], c[i], bias=bias[i]))(fused)
        t = time_sides(sides, copies, args.rounds, args.iters)
        for label, schedule, stages, ok, rel, nans in rows:
            check = f"{'PASS' if ok else 'FAIL'}: rel err {rel:.1e}, NaN {nans}"
            if not ok:
                print(f"| {m} x {n} x {k} | {label} | {schedule} | {stages} |"
                      f" - | - | - | - | - | {check} |")
                continue
            fused_us = t[label + " fused"]
            print(f"| {m} x {n} x {k} | {label} | {schedule} | {stages} |"
                  f" {t[label + ' bare']:.2f} | {fused_us:.2f} |"
                  f" {t['cuBLAS']:.2f} | {t['sep']:.2f} |"
                  f" {t['sep'] / fused_us:.2f}x | {check} |", flush=True)
        del a, w, bias, c, sides
        torch.cuda.empty_cache()
    print(f"\ndecode_sweep: {time.perf_counter() - _START:.1f} s, "
          f"{failures} failures")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
