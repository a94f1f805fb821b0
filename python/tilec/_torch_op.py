"""tilec.gemm as torch custom ops, so torch.compile(fullgraph=True) traces
through it: tilec::gemm (a, b) -> new tensor and tilec::gemm_out (a, b, out),
which writes out. Each has a fake (meta) implementation giving the output's
shape and dtype. Registered once, when torch is importable."""
import sys

_registered = False


def register():
    """Registers the ops (idempotent); False where torch is missing."""
    global _registered
    if _registered:
        return True
    try:
        import torch
    except ImportError:
        return False
    from ._gemm import _ELEMENT, _OUT_DTYPE, gemm_impl

    def out_dtype(a):
        name = _OUT_DTYPE.get(_ELEMENT.get(str(a.dtype)[6:], ""), None)
        return {"bf16": torch.bfloat16, "f16": torch.float16,
                "f32": torch.float32}.get(name, a.dtype)

    @torch.library.custom_op("tilec::gemm", mutates_args=())
    def gemm(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
        return gemm_impl(a, b)

    @gemm.register_fake
    def _(a, b):
        return a.new_empty((a.shape[0], b.shape[1]), dtype=out_dtype(a))

    @torch.library.custom_op("tilec::gemm_out", mutates_args=("out",))
    def gemm_out(a: torch.Tensor, b: torch.Tensor, out: torch.Tensor) -> None:
        gemm_impl(a, b, out)

    @gemm_out.register_fake
    def _(a, b, out):
        return None

    _registered = True
    return True


def gemm(a, b, out=None, *, sfa=None, sfb=None):
    """C = a @ b with a tilec kernel (see tilec._gemm); returns out. With
    sfa and sfb, a block-scaled fp8 GEMM: e4m3 a (M x K) and b (K x N),
    SFA f32[M, ceil(K/128)], SFB f32[ceil(N/128), ceil(K/128)], bf16 C."""
    if (sfa is None) != (sfb is None):
        raise ValueError("sfa, sfb: give both block scales or neither")
    if sfa is not None:
        from ._gemm import block_scaled_impl
        return block_scaled_impl(a, b, sfa, sfb, out)
    if not _registered:
        register()
    torch = sys.modules["torch"]
    if torch.compiler.is_compiling():
        if out is None:
            return torch.ops.tilec.gemm(a, b)
        torch.ops.tilec.gemm_out(a, b, out)
        return out
    from ._gemm import gemm_impl
    return gemm_impl(a, b, out)
