"""A probe, not a benchmark of shipped code (issue 26, session 15): where
BM 256 x BN 128 stands with its scales staged in shared memory
(sm90StagesBlockScales widened to every unswapped block-scaled kernel),
with the copier reading SFA as if it were M-major (a K block's BM scales
contiguous, as DeepGEMM's and cuBLAS's layouts are), against 128 x 192
and the unit-scale probe (probes/fp8_unit_scales_probe.py). It needs a
wheel built with bench/probes/fp8_staged_scales_bm256.patch applied
(environment switches XSTAGE, XMMAJOR, TILEC_EXP_UNIT_SCALES; the patch
also holds the two changes that make the staged BM 256 loop spill-free:
the slot released by a predicated mbarrier.arrive instead of a branch,
and the second row block's wgmmas tied to the first block's waited fresh
registers). All scales are 1.0, so every variant is checked against the
plain product. Logs: bench/results/fp8_bm256_{staged,mmajor}_probe_h200_session15.log."""
import os, sys, time
import torch
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import fp8_block_bench as fb
import tilec

os.environ["TILEC_NO_DISK_CACHE"] = "1"
VARIANTS = [("128x192 s4", 128, 192, 4, "", {}),
            ("128x192 s4 UNIT", 128, 192, 4, "", {"TILEC_EXP_UNIT_SCALES": "1"}),
            ("256x128 s3 pers", 256, 128, 3, "schedule persistent", {}),
            ("256x128 s3 pers STAGED", 256, 128, 3, "schedule persistent",
             {"XSTAGE": "1"}),
            ("256x128 s3 pers STAGED MMAJOR", 256, 128, 3,
             "schedule persistent", {"XSTAGE": "1", "XMMAJOR": "1"}),
            ("256x128 s3 pers UNIT", 256, 128, 3, "schedule persistent",
             {"TILEC_EXP_UNIT_SCALES": "1"}),
            ("256x128 s3 STAGED MMAJOR", 256, 128, 3, "",
             {"XSTAGE": "1", "XMMAJOR": "1"}),
            ("128x192 s4 STAGED MMAJOR", 128, 192, 4, "",
             {"XSTAGE": "1", "XMMAJOR": "1"})]


class Args:
    rounds, iters = 3, 10


def compile_variant(bm, bn, stages, schedule, env, tag):
    src = open(fb.DEFAULT_TILE).read()
    src = fb.variant(src, bn, stages, schedule).replace("BM = 128",
                                                         f"BM = {bm}")
    src += f"\n// {tag}\n"  # a distinct cache key per variant
    os.environ.update(env)
    try:
        return tilec.compile(src)
    finally:
        for key in env:
            os.environ.pop(key, None)


def main():
    gen = torch.Generator(device="cuda").manual_seed(5)
    cublas = fb.cublas_blockwise(gen)
    kernels = {name: compile_variant(bm, bn, st, sch, env, name)
               for name, bm, bn, st, sch, env in VARIANTS}
    for m, n, k in [s for s in fb.SHAPES if s[0] >= 4096]:
        kb, nb = fb.cdiv(k, 128), fb.cdiv(n, 128)
        nbytes = m * k + n * k + 4 * (m * kb + nb * kb) + 2 * m * n
        copies = max(2, min(64, fb.cdiv(fb.ROTATE_BYTES, nbytes)))
        a = [fb.quantized(m, k, gen) for _ in range(copies)]
        w = [fb.quantized(n, k, gen) for _ in range(copies)]
        sfa = [torch.ones(m, kb, device="cuda") for _ in range(copies)]
        sfb = [torch.ones(nb, kb, device="cuda") for _ in range(copies)]
        c = [torch.empty(m, n, device="cuda", dtype=torch.bfloat16)
             for _ in range(copies)]
        a32, w32 = a[0].float(), w[0].float()
        sides, verdicts = {}, {}
        for name, kern in kernels.items():
            c[0].fill_(float("nan"))
            kern(a[0], w[0], c[0], sfa=sfa[0], sfb=sfb[0])
            torch.cuda.synchronize()
            verdicts[name] = fb.verdict(fb.check(c[0], a32, w32))
            sides[name] = (lambda kk: lambda i: kk(
                a[i], w[i], c[i], sfa=sfa[i], sfb=sfb[i]))(kern)
        _, fn, ts_of = cublas
        ts = [ts_of(sfa[i], sfb[i]) for i in range(copies)]
        sides["cuBLAS"] = lambda i: fn(a[i], w[i], *ts[i])
        times = fb.time_sides(sides, copies, Args)
        ref = fb.tflops(m, n, k, times["cuBLAS"])
        for name in sides:
            t = fb.tflops(m, n, k, times[name])
            print(f"| {m}x{n}x{k} | {name} | {times[name]:.1f} us | {t:.0f} |"
                  f" {t / ref:.2f}x | {verdicts.get(name, '')} |", flush=True)
        del a, w, sfa, sfb, c, sides
        torch.cuda.empty_cache()


main()
