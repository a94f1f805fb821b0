"""tilec.gemm as torch custom ops, so torch.compile(fullgraph=True) traces
through it: tilec::gemm (a, b) -> new tensor and tilec::gemm_out (a, b, out),
which writes out; for a 4-bit weight (tilec.gemm(a, w), w a PackedWeights)
tilec::gemm_w4a16 (a, weight, scales, zeros, fmt, group) -> new tensor and
tilec::gemm_w4a16_out. Each has a fake (meta) implementation giving the
output's shape and dtype. Registered once, when torch is importable."""
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

    from typing import Optional

    from ._gemm import w4a16_impl
    from ._pack import PackedWeights

    def packed(weight, scales, zeros, fmt, group):
        return PackedWeights(weight, scales, zeros, fmt, group)

    @torch.library.custom_op("tilec::gemm_w4a16", mutates_args=())
    def gemm_w4a16(a: torch.Tensor, weight: torch.Tensor,
                   scales: torch.Tensor, zeros: Optional[torch.Tensor],
                   fmt: str, group: int) -> torch.Tensor:
        return w4a16_impl(a, packed(weight, scales, zeros, fmt, group))

    @gemm_w4a16.register_fake
    def _(a, weight, scales, zeros, fmt, group):
        return a.new_empty((a.shape[0], weight.shape[0]))

    @torch.library.custom_op("tilec::gemm_w4a16_out", mutates_args=("out",))
    def gemm_w4a16_out(a: torch.Tensor, weight: torch.Tensor,
                       scales: torch.Tensor, zeros: Optional[torch.Tensor],
                       fmt: str, group: int, out: torch.Tensor) -> None:
        w4a16_impl(a, packed(weight, scales, zeros, fmt, group), out)

    @gemm_w4a16_out.register_fake
    def _(a, weight, scales, zeros, fmt, group, out):
        return None

    _registered = True
    return True


def gemm(a, b, out=None, *, sfa=None, sfb=None):
    """C = a @ b with a tilec kernel (see tilec._gemm); returns out. With
    sfa and sfb, a block-scaled fp8 GEMM: e4m3 a (M x K) and b (K x N),
    SFA f32[M, ceil(K/128)], SFB f32[ceil(N/128), ceil(K/128)], bf16 C.
    With b a PackedWeights (tilec.pack_weights, N x K), a 4-bit weight
    GEMM: a (M x K, bf16 or f16, the scales' dtype) @ dequant(b).T, M x N
    in a's dtype (tilec._gemm.w4a16_impl)."""
    if (sfa is None) != (sfb is None):
        raise ValueError("sfa, sfb: give both block scales or neither")
    if type(b).__name__ == "PackedWeights":
        if sfa is not None:
            raise ValueError("sfa, sfb: a quantized weight takes no block "
                             "scales (legal: None)")
        return _gemm_w4a16(a, b, out)
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


def _gemm_w4a16(a, w, out):
    if not _registered:
        register()
    torch = sys.modules["torch"]
    if torch.compiler.is_compiling():
        if out is None:
            return torch.ops.tilec.gemm_w4a16(a, w.weight, w.scales, w.zeros,
                                              w.fmt, w.group)
        torch.ops.tilec.gemm_w4a16_out(a, w.weight, w.scales, w.zeros, w.fmt,
                                       w.group, out)
        return out
    from ._gemm import w4a16_impl
    return w4a16_impl(a, w, out)
