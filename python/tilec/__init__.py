"""tilec from Python: compile .tile programs and inspect layouts.

    import tilec
    k = tilec.compile("examples/gemm_sm80.tile")
    print(k.params, k.shared_bytes)
    print(tilec.layout("K_SW128<bf16>"))      # Sw<3,3,3> o (8,64):(64,1)
    k(a, b, c)                                # launch on torch tensors
    c = tilec.gemm(a, b)                      # a @ b, the program chosen
    p = tilec.pack_weights(*tilec.quantize_weights(w, 128, "i4"))  # W4A16
    y = tilec.gemm(x, p.to("cuda"))           # x @ dequant(w).T, 4-bit w

Errors in a .tile program raise tilec.CompileError with the diagnostic
(file:line:col, the source line and a caret). Built on the C API
(include/tilec/tilec.h) through ctypes.
"""
import sys as _sys

from ._api import CompileError, Kernel, Layout, LayoutError, compile, layout
from ._desc import Descriptor, desc
from ._lib import lib as _clib
from ._torch_op import gemm
from ._torch_op import register as _register_torch_ops
from ._pack import (PackedWeights, pack_weights, quantize_weights,
                    unpack_weights)
from ._tune import tune, tune_gemm, tune_w4a16

__version__ = _clib.tilec_version().decode()

__all__ = ["CompileError", "Descriptor", "Kernel", "Layout", "LayoutError",
           "compile", "desc", "gemm", "layout", "__version__",
           "PackedWeights", "pack_weights", "quantize_weights",
           "unpack_weights", "tune", "tune_gemm", "tune_w4a16"]

# With torch already imported, tilec::gemm is registered now, so that
# torch.compile sees it before tracing; otherwise on the first tilec.gemm.
if "torch" in _sys.modules:
    _register_torch_ops()
