"""Issue 29's sweep: how the bf16 program tilec.gemm's rules pick compares
with the one `tilec tune` measures best, and both with cuBLAS
(torch.matmul), on the projections of Llama-3 8B and DeepSeek-V3 at decode
and prefill M, in one process; with --fp8 the same for the block-scaled
fp8 program (tilec.gemm(a, b, sfa=, sfb=)) against cuBLAS blockwise
scaled_mm on DeepSeek-V3's projections; with --w4a16 the same for the
4-bit weight program (tilec.gemm(a, packed_weights), tilec.tune_w4a16)
against cuBLAS on the dequantized weight.

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
from tilec import _gemm, _tune  # noqa: E402
from torch_timing import bf16_operands, check_bf16, time_sides  # noqa: E402,E501

# (N, K) of the projections: Llama-3 8B qkv, o, gate+up, down; DeepSeek-V3
# q_a + kv_a, q_b, kv_b, o.
PROJECTIONS = [(6144, 4096), (4096, 4096), (28672, 4096), (4096, 14336),
               (2112, 7168), (24576, 1536), (32768, 512), (7168, 16384)]
MS = (1, 16, 64, 128, 512, 4096)


# DeepSeek-V3's (N, K) pairs for the block-scaled fp8 sweep (the anchor's
# table, bench/fp8_block_bench.py) and its M.
FP8_PROJECTIONS = [(2112, 7168), (24576, 1536), (32768, 512), (7168, 16384),
                   (4096, 7168), (7168, 2048)]
FP8_MS = (64, 128, 512, 4096)


def rule_words(source):
    """The tile, stages and schedule lines of a program, on one line."""
    return " ".join(line.strip() for line in source.splitlines()
                    if line.strip().startswith(("tile", "stages", "schedule")))


def print_row(m, n, k, rules, best, t, verdicts):
    """One table row: the rules' program, the tuned one, the three times
    ({side: us}), tuned over cuBLAS and over the rules, the checks."""
    print(f"| {m} x {n} x {k} | {rules} | {best} | {t['rules']:.2f} | "
          f"{t['tuned']:.2f} | {t['cuBLAS']:.2f} |"
          f" {t['cuBLAS'] / t['tuned']:.2f}x |"
          f" {t['tuned'] / t['rules']:.2f} | {'; '.join(verdicts)} |",
          flush=True)


def sweep_fp8(args, ms, sms, gen):
    """The block-scaled fp8 sweep: tilec.gemm's program (rules), the one
    tilec.tune_gemm(block_scales=True) remembers (tuned) and cuBLAS
    blockwise scaled_mm, each checked (fp8_block_bench.check) and timed
    side by side. Returns (rows, failures)."""
    import fp8_block_bench as fb
    fb.SFA_M_MAJOR = args.sfa_m_major
    cublas = fb.cublas_blockwise(gen)
    rows, failures = [], 0
    for n, k in FP8_PROJECTIONS[:args.projections]:
        for m in ms:
            if time.perf_counter() - _START > args.budget_s:
                print(f"| {m} x {n} x {k} | SKIP: past the budget |")
                continue
            source, _ = _gemm.block_scaled_source(m, n, k, sms,
                                                  args.sfa_m_major)
            major = "major(M)" in source
            rules = tilec.compile(source)
            report = tilec.tune_gemm(m, n, k, dtype="e4m3",
                                     block_scales=True, sfa_m_major=major,
                                     budget_s=args.tune_s)
            result = report["results"][0]
            best = (f"{result.get('best', '?')} "
                    f"({result.get('seconds', 0):.1f} s)")
            tuned_text, _ = _gemm.tuned_source(source, m, n, k)
            tuned = tilec.compile(tuned_text) if tuned_text else rules
            verdicts = []
            for name, kern in (("rules", rules), ("tuned", tuned)):
                checks, why = fb.check_block(kern, cublas if name == "rules"
                                             else None, m, n, k, gen)
                verdicts.append(f"{name} {fb.verdict(checks['tilec'])}")
                failures += 0 if checks["tilec"][0] == 0 and \
                    checks["tilec"][1] == 0 else 1
                if "cublas" in checks:
                    verdicts.append(f"cuBLAS {fb.verdict(checks['cublas'])}")
            kb, nb = fb.cdiv(k, 128), fb.cdiv(n, 128)
            nbytes = m * k + n * k + 4 * (m * kb + nb * kb) + 2 * m * n
            copies, a, w, sfa, sfb, c = fb.rotated_operands(m, n, k, nbytes,
                                                            gen)
            sides = {
                "rules": lambda i: rules(a[i], w[i], c[i], sfa=sfa[i],
                                         sfb=sfb[i]),
                "tuned": lambda i: tuned(a[i], w[i], c[i], sfa=sfa[i],
                                         sfb=sfb[i]),
            }
            if cublas is not None:
                _, cublas_fn, torch_scales = cublas
                ts = [torch_scales(sfa[i], sfb[i]) for i in range(copies)]
                sides["cuBLAS"] = lambda i: cublas_fn(a[i], w[i], *ts[i])
            t = time_sides(sides, copies, args.rounds, args.iters)
            t.setdefault("cuBLAS", float("nan"))
            rows.append((m, n, k, t))
            print_row(m, n, k, rule_words(source), best, t, verdicts)
            del a, w, c, sfa, sfb, sides
            torch.cuda.empty_cache()
    return rows, failures


def sweep_w4a16(args, ms, sms, gen):
    """The W4A16 sweep: tilec.gemm's 4-bit weight program on this GPU
    (rules: sm_90a on Hopper, else sm_80; u4 with zero points, group 128,
    bf16), the one tilec.tune_w4a16 remembers
    (tuned) and cuBLAS on the dequantized bf16 weight, each checked
    against the fp32 product of the dequantized weight and timed side by
    side over weights rotated past the L2 (bench/w4a16_bench.py's
    operands). Returns (rows, failures)."""
    import w4a16_bench as wb
    rows, failures = [], 0
    cpu = torch.Generator().manual_seed(28)
    for n, k in wb.NK[:args.projections]:
        for m in ms:
            if time.perf_counter() - _START > args.budget_s:
                print(f"| {m} x {n} x {k} | SKIP: past the budget |")
                continue
            # The program tilec.gemm(a, w) runs on this GPU (sm_90a on
            # Hopper), the one tune_w4a16 tunes and remembers.
            arch = _gemm.w4a16_arch(_tune._current_arch(), m, k)
            source, _ = _gemm.gemm_program(arch, "bf16", m, n, k, sms,
                                           weight="u4", group=wb.GROUP,
                                           zeros=True)
            tile = _gemm._tile_of(source)
            rules = tilec.compile(source)
            report = tilec.tune_w4a16(m, n, k, budget_s=args.tune_s)
            result = report["results"][0]
            best = (f"{result.get('best', '?')} "
                    f"({result.get('seconds', 0):.1f} s)")
            tuned_text, _ = _gemm.tuned_source(source, m, n, k)
            tuned = tilec.compile(tuned_text) if tuned_text else rules
            w, q = wb.quantized_weight(n, k, cpu)
            w16, w32 = wb.dequantized(q, w)
            copies = wb.copies_for(w.weight.numel() * 4, wb.l2_bytes())
            ws = [w] + [tilec.PackedWeights(w.weight.clone(), w.scales.clone(),
                                            w.zeros.clone(), w.fmt, w.group)
                        for _ in range(copies - 1)]
            wds = [w16] + [w16.clone() for _ in range(copies - 1)]
            a = [(torch.randn((m, k), generator=gen, device="cuda") *
                  0.5).bfloat16() for _ in range(copies)]
            c = [torch.empty((m, n), dtype=torch.bfloat16, device="cuda")
                 for _ in range(copies)]
            ref = a[0].float() @ w32.t()
            mag = a[0].float().abs() @ w32.abs().t()
            verdicts = []
            for name, kern in (("rules", rules), ("tuned", tuned)):
                c[0].fill_(float("nan"))
                kern(a[0], ws[0].weight, c[0], sb=ws[0].scales,
                     zb=ws[0].zeros)
                torch.cuda.synchronize()
                err = (c[0].float() - ref).abs()
                wrong = int((~(err <= 2.0 ** -8 * mag +
                               2.0 ** -7 * ref.abs())).sum())
                verdicts.append(f"{name} {'PASS' if not wrong else 'FAIL'}")
                failures += 1 if wrong else 0
            sides = {
                "rules": lambda i: rules(a[i], ws[i].weight, c[i],
                                         sb=ws[i].scales, zb=ws[i].zeros),
                "tuned": lambda i: tuned(a[i], ws[i].weight, c[i],
                                         sb=ws[i].scales, zb=ws[i].zeros),
                "cuBLAS": lambda i: torch.matmul(a[i], wds[i].t(), out=c[i]),
            }
            t = time_sides(sides, copies, args.rounds, args.iters)
            rows.append((m, n, k, t))
            print_row(m, n, k, "x".join(map(str, tile)), best, t, verdicts)
            del ws, wds, a, c, ref, mag, sides
            torch.cuda.empty_cache()
    return rows, failures


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--iters", type=int, default=10)
    parser.add_argument("--tune-s", type=float, default=6.0,
                        help="tilec.tune_gemm's budget per shape")
    parser.add_argument("--budget-s", type=float, default=450.0,
                        help="no new shape after this many seconds")
    parser.add_argument("--ms", default=None,
                        help="M list (default: 1,16,64,128,512,4096; "
                        "--fp8: 64,128,512,4096)")
    parser.add_argument("--fp8", action="store_true",
                        help="the block-scaled fp8 program against cuBLAS "
                        "blockwise, on DeepSeek-V3's projections")
    parser.add_argument("--w4a16", action="store_true",
                        help="the W4A16 program (u4, zero points, group "
                        "128) against cuBLAS on the dequantized weight, on "
                        "bench/w4a16_bench.py's shapes (M 1, 4, 16, 64)")
    parser.add_argument("--sfa-m-major", action="store_true",
                        help="--fp8: SFA M-major (torch's and DeepGEMM's)")
    parser.add_argument("--projections", type=int, default=99,
                        help="the first this many (N, K) pairs")
    args = parser.parse_args()
    ms = [int(x) for x in (args.ms or ",".join(
        map(str, FP8_MS if args.fp8 else (1, 4, 16, 64) if args.w4a16
            else MS))).split(",")]
    props = torch.cuda.get_device_properties(0)
    sms = props.multi_processor_count
    print(f"{props.name}, {sms} SMs; tune budget {args.tune_s} s a shape")
    print("| M x N x K | rules program | tuned program (tune time) | rules us"
          " | tuned us"
          " | cuBLAS us | tuned / cuBLAS | rules / tuned | check |")
    print("|---|---|---|---:|---:|---:|---:|---:|---|")
    rows, failures = [], 0
    gen = torch.Generator(device="cuda").manual_seed(29)
    if args.fp8:
        rows, failures = sweep_fp8(args, ms, sms, gen)
    elif args.w4a16:
        rows, failures = sweep_w4a16(args, ms, sms, gen)
    for n, k in ([] if args.fp8 or args.w4a16 else
                 PROJECTIONS[:args.projections]):
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
            print_row(m, n, k, rule_words(source), best, t, verdicts)
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
