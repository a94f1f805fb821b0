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
