"""tilec from Python: compile .tile programs and inspect layouts.

    import tilec
    k = tilec.compile("examples/gemm_sm80.tile")
    print(k.params, k.shared_bytes)
    print(tilec.layout("K_SW128<bf16>"))      # Sw<3,3,3> o (8,64):(64,1)

Errors in a .tile program raise tilec.CompileError with the diagnostic
(file:line:col, the source line and a caret). Built on the C API
(include/tilec/tilec.h) through ctypes.
"""
from ._api import CompileError, Kernel, Layout, LayoutError, compile, layout
from ._lib import lib as _clib

__version__ = _clib.tilec_version().decode()

__all__ = ["CompileError", "Kernel", "Layout", "LayoutError", "compile",
           "layout", "__version__"]
