"""A probe, not a benchmark of shipped code (issue 26, session 15): how much
of the block-scaled kernel's time at M = 4096 is the scales' handling. It
needs a wheel built with this throwaway patch in Sm90BlockScale::load
(codegen/Sm90BlockScale.cpp, after the swap-AB branch; not in the tree):

    if (std::getenv("TILEC_EXP_UNIT_SCALES")) {
      for (unsigned h = 0; h < 2; ++h)
        scales.a[h] = llvm::ConstantFP::get(b.getFloatTy(), 1.0);
      for (unsigned s = 0; s < slots; ++s)
        scales.b.push_back(llvm::ConstantFP::get(b.getFloatTy(), 1.0));
      return scales;
    }

Kernels compiled with TILEC_EXP_UNIT_SCALES=1 promote with scales 1.0 and
load none (their FMULs, B-slot selects and scale loads fold away); fed unit
scales they are checked like the real ones. Sides per M = 4096 shape: the
real and unit kernels of 128 x 192 and 256 x 128 (grid, persistent,
persistent 2x1 cluster), cuBLAS blockwise, alternating in one process,
CUDA graphs, operands rotated past L2 (fp8_block_bench's helpers). Log:
bench/results/fp8_unit_scales_probe_h200_session15.log."""
import os, sys, time
import torch
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import fp8_block_bench as fb
import tilec

os.environ["TILEC_NO_DISK_CACHE"] = "1"
VARIANTS = [("128x192 s4", 128, 192, 4, ""),
            ("256x128 s3", 256, 128, 3, ""),
            ("256x128 s3 persistent", 256, 128, 3, "schedule persistent"),
            ("256x128 s3 pers cluster(2)", 256, 128, 3,
             "schedule persistent cluster(2)")]


class Args:
    rounds, iters = 3, 10


def compile_variant(bm, bn, stages, schedule, unit):
    src = open(fb.DEFAULT_TILE).read()
    src = fb.variant(src, bn, stages, schedule).replace("BM = 128", f"BM = {bm}")
    if unit:
        os.environ["TILEC_EXP_UNIT_SCALES"] = "1"
        src += "\n// unit scales\n"
    try:
        return tilec.compile(src)
    finally:
        os.environ.pop("TILEC_EXP_UNIT_SCALES", None)


def main():
    gen = torch.Generator(device="cuda").manual_seed(5)
    cublas = fb.cublas_blockwise(gen)
    kernels = {}
    for name, bm, bn, st, sch in VARIANTS:
        for unit in (False, True):
            try:
                kernels[name + (" UNIT" if unit else "")] = compile_variant(
                    bm, bn, st, sch, unit)
            except Exception as e:  # noqa: BLE001
                print(name, unit, "does not compile:", str(e).splitlines()[0])
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
