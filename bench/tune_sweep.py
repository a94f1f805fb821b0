"""Issue 29's sweep: how the bf16 program tilec.gemm's rules pick compares
with the one `tilec tune` measures best, and both with cuBLAS
(torch.matmul), on the projections of Llama-3 8B and DeepSeek-V3 at decode
and prefill M, in one process.

Per shape: the rules' program (tilec._gemm.program_source, what tilec.gemm
runs untuned) is compiled; tilec.tune_gemm tunes the same program with
every item open (budget --tune-s seconds, CUDA graphs of rotated operands,
the winner checked against the CPU reference by the tuner); the tuned
program is what tilec.gemm then runs (tilec._gemm.tuned_source). The two
tilec sides and cuBLAS are checked against an fp32 product on fresh data
(C poisoned first), then timed by torch_timing's method (CUDA graphs of 10
launches over operand copies rotated past the L2, sides alternating round
by round, medians of the rounds' medians). Prints one row per shape and a
summary: tuned >= cuBLAS on how many shapes, rules within 5% of tuned on
how many. Run by scripts/gpu-python.sh with TUNE_SWEEP=only.
"""
import time

_START = time.perf_counter()

import argparse  # noqa: E402
import os  # noqa: E402
import sys  # noqa: E402

import torch  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import tilec  # noqa: E402
from tilec import _gemm  # noqa: E402
from torch_timing import bf16_operands, check_bf16, time_sides  # noqa: E402,E501

# (N, K) of the projections: Llama-3 8B qkv, o, gate+up, down; DeepSeek-V3
# q_a + kv_a, q_b, kv_b, o.
PROJECTIONS = [(6144, 4096), (4096, 4096), (28672, 4096), (4096, 14336),
               (2112, 7168), (24576, 1536), (32768, 512), (7168, 16384)]
MS = (1, 16, 64, 128, 512, 4096)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--iters", type=int, default=10)
    parser.add_argument("--tune-s", type=float, default=6.0,
                        help="tilec.tune_gemm's budget per shape")
    parser.add_argument("--budget-s", type=float, default=450.0,
                        help="no new shape after this many seconds")
    parser.add_argument("--ms", default=",".join(map(str, MS)))
    parser.add_argument("--projections", type=int, default=len(PROJECTIONS),
                        help="the first this many (N, K) pairs")
    args = parser.parse_args()
    ms = [int(x) for x in args.ms.split(",")]
    props = torch.cuda.get_device_properties(0)
    sms = props.multi_processor_count
    print(f"{props.name}, {sms} SMs; tune budget {args.tune_s} s a shape")
    print("| M x N x K | rules program | tuned program (tune time) | rules us"
          " | tuned us"
          " | cuBLAS us | tuned / cuBLAS | rules / tuned | check |")
    print("|---|---|---|---:|---:|---:|---:|---:|---|")
    rows, failures = [], 0
    gen = torch.Generator(device="cuda").manual_seed(29)
    for n, k in PROJECTIONS[:args.projections]:
        for m in ms:
            if time.perf_counter() - _START > args.budget_s:
                print(f"| {m} x {n} x {k} | SKIP: past the budget |")
                continue
            source, _ = _gemm.program_source("sm_90a", "bf16", "bf16", "K",
                                             "K", m, n, k, sms)
            rules = tilec.compile(source)
            report = tilec.tune_gemm(m, n, k, budget_s=args.tune_s)
            result = report["results"][0]
            best = f"{result.get('best', '?')} ({result.get('seconds', 0):.1f} s)"

            tuned_text, _ = _gemm.tuned_source(source, m, n, k)
            tuned = tilec.compile(tuned_text) if tuned_text else rules
            copies, a, w, c, ref = bf16_operands(m, n, k, gen)
            verdicts = []
            for name, kern in (("rules", rules), ("tuned", tuned)):
                c[0].fill_(float("nan"))
                kern(a[0], w[0], c[0])
                torch.cuda.synchronize()
                wrong, err = check_bf16(c[0], ref)
                verdicts.append(f"{name} {'PASS' if not wrong else 'FAIL'}"
                                f" {err:.1e}")
                failures += 1 if wrong else 0
            wrong, err = check_bf16(a[0] @ w[0].t(), ref)
            verdicts.append(f"cuBLAS {'PASS' if not wrong else 'FAIL'}")
            sides = {
                "rules": lambda i: rules(a[i], w[i], c[i]),
                "tuned": lambda i: tuned(a[i], w[i], c[i]),
                "cuBLAS": lambda i: torch.matmul(a[i], w[i].t(), out=c[i]),
            }
            t = time_sides(sides, copies, args.rounds, args.iters)
            rows.append((m, n, k, t))
            rule_words = " ".join(
                line.strip() for line in source.splitlines()
                if line.strip().startswith(("tile", "stages", "schedule")))
            print(f"| {m} x {n} x {k} | {rule_words} | {best} | "
                  f"{t['rules']:.2f} | {t['tuned']:.2f} | {t['cuBLAS']:.2f} |"
                  f" {t['cuBLAS'] / t['tuned']:.2f}x |"
                  f" {t['tuned'] / t['rules']:.2f} | {'; '.join(verdicts)} |",
                  flush=True)
            del a, w, c, ref, sides
            torch.cuda.empty_cache()
    if rows:
        ahead = sum(1 for *_, t in rows if t["tuned"] <= t["cuBLAS"])
        close = sum(1 for *_, t in rows if t["rules"] <= 1.05 * t["tuned"])
        print(f"\ntuned >= cuBLAS on {ahead} of {len(rows)} shapes; rules "
              f"within 5% of tuned on {close} of {len(rows)}")
    print(f"tune_sweep: {time.perf_counter() - _START:.1f} s, {failures} "
          "failures")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
