"""One block-scaled fp8 program launched a few times, for Nsight Compute
(issue 26): `ncu -k regex:fp8 --launch-skip 2 --launch-count 1 python3
bench/fp8_block_profile.py M N K BM BN STAGES [SCHEDULE...]`. The program
is examples/gemm_fp8_block_sm90.tile with that tile, stage count and
schedule line (bench/fp8_block_sweep.py's `program`; a literal \\n in it
starts a new line), its output checked
against the fp32 reference first. FP8_SFA_M_MAJOR=1: SFA M-major (the
`scale a ... major(M)` program, strides (1, M))."""
import os
import sys

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import fp8_block_bench as fb  # noqa: E402
import fp8_block_sweep as sweep  # noqa: E402
import tilec  # noqa: E402


def main(argv):
    fb.SFA_M_MAJOR = os.environ.get("FP8_SFA_M_MAJOR") == "1"
    m, n, k, bm, bn, stages = (int(x) for x in argv[:6])
    # A literal \n starts another line (e.g. "...\n  epilogue store").
    schedule = " ".join(argv[6:]).replace("\\n", "\n")
    kernel = tilec.compile(sweep.program(m, n, k, bm, bn, stages, schedule))
    gen = torch.Generator(device="cuda").manual_seed(3)
    checks, _ = fb.check_block(kernel, None, m, n, k, gen)
    print(f"{m} x {n} x {k} BM {bm} BN {bn} s{stages} {schedule}: "
          f"{fb.verdict(checks['tilec'])}")
    kb, nb = fb.cdiv(k, 128), fb.cdiv(n, 128)
    a, w = fb.quantized(m, k, gen), fb.quantized(n, k, gen)
    sfa, sfb = fb.sfa_scales(m, kb, gen), fb.scales((nb, kb), gen)
    c = torch.empty(m, n, device="cuda", dtype=torch.bfloat16)
    for _ in range(4):
        kernel(a, w, c, sfa=sfa, sfb=sfb)
    torch.cuda.synchronize()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
