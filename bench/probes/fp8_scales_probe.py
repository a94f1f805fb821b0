"""Probes, not benchmarks of shipped code (issue 26, session 15): where the
block-scaled kernel's time at M = 4096 goes. Each needs a wheel built with
bench/probes/fp8_staged_scales_bm256.patch applied to c9b20b9, the commit it
was written against (codegen switches read from the environment at compile
time, not in the tree; since session 16 the 256-row staging with the
predicated release and the tied registers is codegen's own,
sm90StagesBlockScales, so the patch no longer applies to main):

  TILEC_EXP_UNIT_SCALES  the scales are the constant 1.0: no scale loads,
                         products or B-slot selects (Sm90BlockScale::load)
  XSTAGE                 every unswapped block-scaled kernel stages its
                         scales in the ring (sm90StagesBlockScales widened),
                         with the two changes that keep BM 256 spill-free:
                         the slot released by a predicated mbarrier.arrive
                         and the second row block's wgmmas tied to the first
                         block's waited fresh registers
  XMMAJOR                the scale copier reads SFA as if it were M-major
                         (a K block's scales contiguous)

`--probe unit`: 128 x 192 and 256 x 128 (grid, persistent, persistent 2x1
cluster), each real and with unit scales
(bench/results/fp8_unit_scales_probe_h200_session15.log). `--probe bm256`:
256 x 128 persistent real, staged, staged M-major and unit, against 128 x
192 (bench/results/fp8_bm256_{staged,mmajor}_probe_h200_session15.log; the
staged log is an earlier variant list of the same script). All scales are
1.0, so every variant is checked against the plain product; sides
alternate in one process with cuBLAS blockwise, CUDA graphs, operands
rotated past L2 (fp8_block_bench's helpers)."""
import argparse
import os
import sys

import torch

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import fp8_block_bench as fb  # noqa: E402
import tilec  # noqa: E402

os.environ["TILEC_NO_DISK_CACHE"] = "1"
UNIT = {"TILEC_EXP_UNIT_SCALES": "1"}
STAGED = {"XSTAGE": "1"}
STAGED_M = {"XSTAGE": "1", "XMMAJOR": "1"}
PERSISTENT = "schedule persistent"
TILES = [("128x192 s4", 128, 192, 4, ""),
         ("256x128 s3", 256, 128, 3, ""),
         ("256x128 s3 persistent", 256, 128, 3, PERSISTENT),
         ("256x128 s3 pers cluster(2)", 256, 128, 3,
          "schedule persistent cluster(2)")]
PROBES = {
    # (name, bm, bn, stages, schedule line, compile-time environment)
    "unit": [v for name, bm, bn, st, sch in TILES
             for v in ((name, bm, bn, st, sch, {}),
                       (name + " UNIT", bm, bn, st, sch, UNIT))],
    "bm256": [("128x192 s4", 128, 192, 4, "", {}),
              ("128x192 s4 UNIT", 128, 192, 4, "", UNIT),
              ("256x128 s3 pers", 256, 128, 3, PERSISTENT, {}),
              ("256x128 s3 pers STAGED", 256, 128, 3, PERSISTENT, STAGED),
              ("256x128 s3 pers STAGED MMAJOR", 256, 128, 3, PERSISTENT,
               STAGED_M),
              ("256x128 s3 pers UNIT", 256, 128, 3, PERSISTENT, UNIT),
              ("256x128 s3 STAGED MMAJOR", 256, 128, 3, "", STAGED_M),
              ("128x192 s4 STAGED MMAJOR", 128, 192, 4, "", STAGED_M)],
}


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
    parser = argparse.ArgumentParser()
    parser.add_argument("--probe", choices=sorted(PROBES), required=True)
    probe = parser.parse_args().probe
    gen = torch.Generator(device="cuda").manual_seed(5)
    cublas = fb.cublas_blockwise(gen)
    kernels = {name: compile_variant(bm, bn, st, sch, env, name)
               for name, bm, bn, st, sch, env in PROBES[probe]}
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



if __name__ == "__main__":
    main()
