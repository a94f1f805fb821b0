"""tilec.tune: `tilec tune` from Python, over the C API's tilec_tune.

    import tilec
    report = tilec.tune("examples/gemm_decode_auto_sm90.tile",
                        shapes=[(64, 2112, 7168)])
    best = report["results"][0]["best"]      # "64x64x64 s8 swap_ab ..."

The report is the JSON `tilec tune --json` prints, as a dict. Without a GPU
only dry_run=True works (the simulator times nothing); it lists the
candidates that would be timed with the cost model's figures.
"""
import ctypes
import json
import os

from ._api import _looks_like_path, raise_for_status
from ._lib import lib


def _shapes_text(shapes):
    if isinstance(shapes, str):
        return shapes
    return ";".join(",".join(str(int(x)) for x in shape) for shape in shapes)


def tune(source_or_path, shapes, kernel=None, arch=None, vary=None,
         budget_s=20.0, dry_run=False, seed=1, remember=True):
    """Tunes the kernels of a .tile program (text or path) for shapes, a
    list of (M, N, K) or the text "M,N,K;M,N,K". vary names written items
    to vary too ("tile,stages", "all"). Returns the report as a dict.

    Raises CompileError for an error in the program, ValueError for a bad
    option, RuntimeError without a GPU (unless dry_run)."""
    if isinstance(source_or_path, os.PathLike) or _looks_like_path(
            str(source_or_path)):
        with open(os.fspath(source_or_path), "rb") as f:
            source = f.read()
    else:
        source = str(source_or_path).encode()
    options = {"shapes": _shapes_text(shapes), "budget_s": float(budget_s),
               "dry_run": bool(dry_run), "seed": int(seed),
               "remember": bool(remember)}
    for key, value in (("kernel", kernel), ("arch", arch), ("vary", vary)):
        if value is not None:
            options[key] = value
    out = ctypes.c_char_p()
    status = lib.tilec_tune(source, len(source), json.dumps(options).encode(),
                            ctypes.byref(out))
    raise_for_status(status)
    return json.loads(out.value.decode())


def _current_arch():
    """The current GPU's target ("sm_80", "sm_90a", ...) through torch,
    else "sm_80" (code every GPU from 8.0 runs)."""
    try:
        import torch
        if torch.cuda.is_available():
            from ._gemm import arch_of
            return arch_of(torch.cuda.get_device_capability(0))
    except ImportError:
        pass
    return "sm_80"


def _current_sms():
    """The current GPU's SM count through torch, else 0 (the rules' 132)."""
    try:
        import torch
        if torch.cuda.is_available():
            return torch.cuda.get_device_properties(0).multi_processor_count
    except ImportError:
        pass
    return 0


def tune_gemm(m, n, k, dtype="bf16", a_major="K", b_major="K", arch="sm_90a",
              sms=None, budget_s=20.0, dry_run=False, block_scales=False,
              sfa_m_major=False):
    """Tunes the program tilec.gemm compiles for an M x N x K product of
    dtype operands ("bf16", "f16", "tf32", "e4m3", "e5m2"; a_major "K" or
    "M", b_major "K" or "N"), every item varied, so that tilec.gemm then
    runs the winner for that shape bucket on this GPU. block_scales=True
    tunes the block-scaled fp8 program tilec.gemm(a, b, sfa=, sfb=) runs
    (e4m3, sm_90a; sfa_m_major for an SFA with strides (1, M)). sms: the
    SM count the rules pick for (None: the current GPU's through torch,
    else 132). Returns the report as tune() does."""
    from ._gemm import block_scaled_source, program_source
    if sms is None:
        sms = _current_sms()
    if block_scales:
        if dtype != "e4m3" or arch != "sm_90a":
            raise ValueError(f"dtype {dtype!r}, arch {arch!r} with "
                             "block_scales (legal: 'e4m3' on 'sm_90a')")
        source, _ = block_scaled_source(m, n, k, sms, sfa_m_major)
    else:
        source, _ = program_source(arch, dtype, dtype, a_major, b_major, m,
                                   n, k, sms)
    return _tuned(source, m, n, k, budget_s, dry_run)


def _tuned(source, m, n, k, budget_s, dry_run):
    """tune() of source at one shape with every item varied; a real run
    forgets tilec.gemm's kernels chosen so far, so that the next call of a
    shape already run picks the winner up."""
    report = tune(source, [(m, n, k)], vary="all", budget_s=budget_s,
                  dry_run=dry_run)
    if not dry_run:
        from . import _gemm
        _gemm.forget_chosen_kernels()
    return report


def tune_w4a16(m, n, k, fmt="u4", group=128, zeros=True, dtype="bf16",
               sms=None, budget_s=20.0, dry_run=False, arch=None):
    """Tunes the W4A16 / W8A16 program tilec.gemm(a, w) runs for an M x K
    activation of dtype ("bf16", "f16") against an N x K packed weight of
    fmt ("u4", "i4", "u8", "i8", "e4m3", "e5m2") with group scales (and u8
    zero points when zeros: u4, u8), every item varied, so that tilec.gemm
    then runs the winner for that shape bucket on this GPU. arch: the
    program's target, by default the one tilec.gemm takes on the current
    GPU (_gemm.w4a16_arch: sm_90a on Hopper, else sm_80). Returns the
    report as tune() does."""
    from ._gemm import gemm_program, w4a16_arch
    if sms is None:
        sms = _current_sms()
    if arch is None:
        arch = w4a16_arch(_current_arch(), m, k)
    source, _ = gemm_program(arch, dtype, m, n, k, sms or 132, weight=fmt,
                             group=group, zeros=zeros)
    return _tuned(source, m, n, k, budget_s, dry_run)

